// How a streaming dataset is batched: dataset_batch()'s size and the batch
// transforms after it (skip, take, repeat batches), and the interface those
// transforms implement. The plan holds the transforms as the host describes
// them (Specs, kinds of data/registry.h's batch_op_registry()); the feed
// (data/stream_feed.h) builds them, each pulling batches from the stages
// before it, as tf.data chains its datasets.
#pragma once
#include <vector>

#include "../spec.h"

namespace cppestimators {

struct BatchPlan {
  int batch_size = 0;  // dataset_batch()'s size; 0: no dataset_batch()
  bool drop_remainder = false;
  std::vector<Spec> after;  // the batch transforms, in the order applied
};

// What a batch transform pulls batches from: the batches cut from the rows,
// through the transforms before it.
class BatchSource {
 public:
  // The next batch; false: the pass has ended.
  virtual bool next() = 0;
  // Starts these stages again: a new pass of the rows, the transforms before
  // this one reset.
  virtual void rewind() = 0;

 protected:
  ~BatchSource() = default;
};

// A transform of the batches of a pass (data/batch_transforms.h), holding
// its state in the pass.
class BatchOp {
 public:
  virtual ~BatchOp() = default;
  // Whether a next batch comes out of this transform (pulled from `in`);
  // false: the pass has ended.
  virtual bool next(BatchSource& in) = 0;
  // Forgets the pass: the transform starts over, as after a rewind.
  virtual void reset() = 0;
};

}  // namespace cppestimators
