// Turns row indices 0..n-1 into batches: a stream of epochs (each a seeded
// permutation when shuffling), chunked into batches that cross epoch
// boundaries. Only the very last batch of a finite stream is partial.
// A batch that is always one whole epoch (batch_size equal to the number of
// rows, or one epoch no larger than a batch) is not shuffled: it holds every
// row once whatever the order, and the order only changes how its sums
// round, while rows in order are read sequentially (several times faster
// for models that read them by index, such as boosted trees).
#pragma once
#include <algorithm>
#include <cstdint>
#include <numeric>
#include <stdexcept>
#include <vector>

#include "rng.h"

namespace cppestimators {

class Batcher {
 public:
  // num_epochs < 0 repeats forever.
  Batcher(std::int64_t n, int batch_size, std::int64_t num_epochs, bool shuffle, std::uint64_t seed)
      : n_(n),
        batch_size_(batch_size),
        num_epochs_(num_epochs),
        shuffle_(shuffle && !(n == batch_size || (num_epochs == 1 && n <= batch_size))),
        rng_(seed),
        order_(static_cast<std::size_t>(n)) {
    if (n < 0) throw std::invalid_argument("number of rows must be >= 0");
    if (batch_size <= 0) throw std::invalid_argument("`batch_size` must be a positive integer");
    std::iota(order_.begin(), order_.end(), 0);
    if (shuffle_) rng_.shuffle(order_);
    exhausted_ = (n_ == 0 || num_epochs_ == 0);
  }

  int batch_size() const { return batch_size_; }
  // Whether batches are shuffled (false when each batch is one whole epoch).
  bool shuffles() const { return shuffle_; }
  bool exhausted() const { return exhausted_; }

  // Writes up to batch_size row indices to `out` (capacity >= batch_size, or
  // the rows left in a finite stream) and returns how many; 0: end of input.
  // Whether the last batch holds each of its rows once (it did not wrap
  // around the end of an epoch).
  bool last_distinct() const { return last_distinct_; }

  int next(int* out) {
    int count = 0, segments = 0;
    while (count < batch_size_ && !exhausted_) {
      if (pos_ == n_) {
        ++epoch_;
        pos_ = 0;
        if (num_epochs_ >= 0 && epoch_ >= num_epochs_) {
          exhausted_ = true;
          break;
        }
        if (shuffle_) rng_.shuffle(order_);
      }
      // the rest of this epoch's run that fits, in one copy
      const std::int64_t take = std::min<std::int64_t>(batch_size_ - count, n_ - pos_);
      std::copy(order_.begin() + static_cast<std::ptrdiff_t>(pos_),
                order_.begin() + static_cast<std::ptrdiff_t>(pos_ + take), out + count);
      count += static_cast<int>(take);
      pos_ += take;
      ++segments;
    }
    last_distinct_ = segments <= 1;
    if (count > 0 && pos_ == n_ && num_epochs_ >= 0 && epoch_ + 1 >= num_epochs_) {
      exhausted_ = true;  // the stream ends exactly here
    }
    return count;
  }

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
