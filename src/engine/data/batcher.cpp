#include <cppestimators/data/batcher.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <stdexcept>

namespace cppestimators {

Batcher::Batcher(std::int64_t n, int batch_size, std::int64_t num_epochs, bool shuffle,
                 std::uint64_t seed)
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

int Batcher::next(int* out) {
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

}  // namespace cppestimators
