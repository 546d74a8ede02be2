// Batch transforms of a streaming dataset, with tf.data's semantics counted
// in batches (the transforms after dataset_batch()): skip the first batches
// of each pass, take at most some batches of each pass, repeat the passes.
#pragma once
#include <cstdint>

#include "batch_plan.h"

namespace cppestimators {

// The batches of each pass after its first `count`.
class SkipBatches : public BatchOp {
 public:
  explicit SkipBatches(std::int64_t count);
  bool next(BatchSource& in) override;
  void reset() override;

 private:
  std::int64_t count_, done_ = 0;
};

// The first `count` batches of each pass (count < 0: every batch).
class TakeBatches : public BatchOp {
 public:
  explicit TakeBatches(std::int64_t count);
  bool next(BatchSource& in) override;
  void reset() override;

 private:
  std::int64_t count_, done_ = 0;
};

// `count` passes of the batches before as one (count < 0: forever); a pass
// that gives no batch ends the stream rather than looping.
class RepeatBatches : public BatchOp {
 public:
  explicit RepeatBatches(std::int64_t count);
  bool next(BatchSource& in) override;
  void reset() override;

 private:
  std::int64_t count_, done_ = 0;  // passes made
  bool any_ = false;               // the pass gave a batch
};

}  // namespace cppestimators
