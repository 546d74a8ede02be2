// Row transforms of a RowStream, with tf.data's semantics counted in rows
// (the transforms before dataset_batch()): skip the first rows of each pass,
// take at most some rows of each pass, repeat the passes. Each wraps the
// stream it transforms and owns it.
#pragma once
#include <algorithm>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <utility>

#include "row_stream.h"

namespace cppestimators {

// The rows of each pass after its first `count`.
class SkipStream : public RowStream {
 public:
  SkipStream(std::unique_ptr<RowStream> in, std::int64_t count)
      : in_(std::move(in)), count_(count) {
    if (count < 0) throw std::invalid_argument("`count` must be >= 0");
  }
  std::int64_t read(Chunk& out, std::int64_t max_rows) override {
    while (left_ > 0) {
      const std::int64_t got =
          in_->read(out, std::min(left_, std::max(max_rows, std::int64_t{65536})));
      if (got == 0) return 0;
      left_ -= got;
    }
    return in_->read(out, max_rows);
  }
  void rewind() override {
    in_->rewind();
    left_ = count_;
  }
  bool main_thread_only() const override { return in_->main_thread_only(); }

 private:
  std::unique_ptr<RowStream> in_;
  std::int64_t count_, left_ = count_;
};

// The first `count` rows of each pass.
class TakeStream : public RowStream {
 public:
  TakeStream(std::unique_ptr<RowStream> in, std::int64_t count)
      : in_(std::move(in)), count_(count) {
    if (count < 0) throw std::invalid_argument("`count` must be >= 0");
  }
  std::int64_t read(Chunk& out, std::int64_t max_rows) override {
    if (left_ == 0) {
      if (out.columns.empty()) in_->read(out, 1);  // no row, but the columns
      out.clear();
      return 0;
    }
    const std::int64_t got = in_->read(out, std::min(max_rows, left_));
    left_ -= got;
    return got;
  }
  void rewind() override {
    in_->rewind();
    left_ = count_;
  }
  bool main_thread_only() const override { return in_->main_thread_only(); }

 private:
  std::unique_ptr<RowStream> in_;
  std::int64_t count_, left_ = count_;
};

// `count` passes of the input as one (count < 0: forever); an input whose
// pass holds no row ends the stream rather than looping.
class RepeatStream : public RowStream {
 public:
  RepeatStream(std::unique_ptr<RowStream> in, std::int64_t count)
      : in_(std::move(in)), count_(count) {}
  std::int64_t read(Chunk& out, std::int64_t max_rows) override {
    for (;;) {
      if (count_ >= 0 && pass_ >= count_) {
        if (out.columns.empty()) in_->read(out, 1);  // no row, but the columns
        out.clear();
        return 0;
      }
      const std::int64_t got = in_->read(out, max_rows);
      if (got > 0) {
        rows_in_pass_ += got;
        return got;
      }
      if (rows_in_pass_ == 0) {  // an empty input: nothing to repeat
        pass_ = count_ < 0 ? 0 : count_;
        if (count_ < 0) count_ = 0;
        out.clear();
        return 0;
      }
      ++pass_;
      rows_in_pass_ = 0;
      if (count_ < 0 || pass_ < count_) in_->rewind();
    }
  }
  void rewind() override {
    in_->rewind();
    pass_ = 0;
    rows_in_pass_ = 0;
    count_ = original_;
  }
  bool main_thread_only() const override { return in_->main_thread_only(); }

 private:
  std::unique_ptr<RowStream> in_;
  std::int64_t count_, original_ = count_;
  std::int64_t pass_ = 0, rows_in_pass_ = 0;
};

}  // namespace cppestimators
