// Turns row indices 0..n-1 into batches: a stream of epochs (each a seeded
// permutation when shuffling), chunked into batches that cross epoch
// boundaries. Only the very last batch of a finite stream is partial.
// A batch that is always one whole epoch (batch_size equal to the number of
// rows, or one epoch no larger than a batch) is not shuffled: it holds every
// row once whatever the order, and the order only changes how its sums
// round, while rows in order are read sequentially (several times faster
// for models that read them by index, such as boosted trees).
#pragma once
#include <cstdint>
#include <vector>

#include "rng.h"

namespace cppestimators {

class Batcher {
 public:
  // num_epochs < 0 repeats forever.
  Batcher(std::int64_t n, int batch_size, std::int64_t num_epochs, bool shuffle,
          std::uint64_t seed);

  int batch_size() const { return batch_size_; }
  // Whether batches are shuffled (false when each batch is one whole epoch).
  bool shuffles() const { return shuffle_; }
  bool exhausted() const { return exhausted_; }

  // Writes up to batch_size row indices to `out` (capacity >= batch_size, or
  // the rows left in a finite stream) and returns how many; 0: end of input.
  // Whether the last batch holds each of its rows once (it did not wrap
  // around the end of an epoch).
  bool last_distinct() const { return last_distinct_; }

  int next(int* out);

 private:
  std::int64_t n_;
  int batch_size_;
  std::int64_t num_epochs_;
  bool shuffle_;
  Rng rng_;
  std::vector<int> order_;
  std::int64_t pos_ = 0;
  std::int64_t epoch_ = 0;
  bool exhausted_ = false;
  bool last_distinct_ = true;
};

}  // namespace cppestimators
