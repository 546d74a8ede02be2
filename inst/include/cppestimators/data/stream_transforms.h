// Row transforms of a RowStream, with tf.data's semantics counted in rows
// (the transforms before dataset_batch()): skip the first rows of each pass,
// take at most some rows of each pass, repeat the passes. Each wraps the
// stream it transforms and owns it.
#pragma once
#include <cstdint>
#include <memory>

#include "row_stream.h"

namespace cppestimators {

// The rows of each pass after its first `count`.
class SkipStream : public RowStream {
 public:
  SkipStream(std::unique_ptr<RowStream> in, std::int64_t count);
  std::int64_t read(Chunk& out, std::int64_t max_rows) override;
  void rewind() override;
  bool main_thread_only() const override;

 private:
  std::unique_ptr<RowStream> in_;
  std::int64_t count_, left_ = count_;
};

// The first `count` rows of each pass.
class TakeStream : public RowStream {
 public:
  TakeStream(std::unique_ptr<RowStream> in, std::int64_t count);
  std::int64_t read(Chunk& out, std::int64_t max_rows) override;
  void rewind() override;
  bool main_thread_only() const override;

 private:
  std::unique_ptr<RowStream> in_;
  std::int64_t count_, left_ = count_;
};

// `count` passes of the input as one (count < 0: forever); an input whose
// pass holds no row ends the stream rather than looping.
class RepeatStream : public RowStream {
 public:
  RepeatStream(std::unique_ptr<RowStream> in, std::int64_t count);
  std::int64_t read(Chunk& out, std::int64_t max_rows) override;
  void rewind() override;
  bool main_thread_only() const override;

 private:
  std::unique_ptr<RowStream> in_;
  std::int64_t count_, original_ = count_;
  std::int64_t pass_ = 0, rows_in_pass_ = 0;
};

// tf.data's shard(): of each pass, the rows whose position i (from 0)
// has i % num_shards == index, for one of num_shards processes reading the
// same input.
class ShardStream : public RowStream {
 public:
  ShardStream(std::unique_ptr<RowStream> in, std::int64_t num_shards, std::int64_t index);
  std::int64_t read(Chunk& out, std::int64_t max_rows) override;
  void rewind() override;
  bool main_thread_only() const override;

 private:
  std::unique_ptr<RowStream> in_;
  std::int64_t shards_, index_;
  std::int64_t pos_ = 0;  // rows of this pass read from the input
  Chunk buf_;
};

}  // namespace cppestimators
