// The dense columns of a FeatureSet over a whole dataset, as one float32
// row-major block: built once (column by column, each read from its
// contiguous R vector), then shared by every session over the same input
// and columns. A batch of contiguous rows is read from it in place; other
// batches copy their rows with one memcpy each. Half the size of R's doubles.
#pragma once
#include <algorithm>
#include <cstdint>
#include <memory>
#include <numeric>
#include <vector>

#include "../parallel.h"
#include "feature_set.h"

namespace cppestimators {

class DenseBlock : public DenseRows {
 public:
  // Chunks of rows go to `threads` threads (the dense readers are stateless).
  DenseBlock(const FeatureSet& features, FeatureSet::Binding& binding, std::int64_t n,
             int threads = 1)
      : width_(features.dense_width()), n_(n) {
    data_.resize(static_cast<std::size_t>(n) * static_cast<std::size_t>(width_));
    // chunks of rows small enough that the chunk's part of the block stays
    // in cache while every column writes its values into it (a wide block
    // written column by column over many rows misses the cache at each value)
    const int kChunk = std::max(16, std::min(4096, (1 << 16) / std::max(1, width_)));
    const int chunks = static_cast<int>((n + kChunk - 1) / kChunk);
    threads = std::max(1, std::min(threads, chunks));
    std::vector<std::vector<int>> rows(static_cast<std::size_t>(threads), std::vector<int>(kChunk));
    parallel_for(threads, threads, [&](int t) {
      std::vector<int>& idx = rows[static_cast<std::size_t>(t)];
      for (int c = chunks * t / threads; c < chunks * (t + 1) / threads; ++c) {
        const std::int64_t start = static_cast<std::int64_t>(c) * kChunk;
        const int count = static_cast<int>(std::min<std::int64_t>(kChunk, n - start));
        std::iota(idx.begin(), idx.begin() + count, static_cast<int>(start));
        features.gather_dense(binding, idx.data(), count,
                              data_.data() + static_cast<std::size_t>(start) * width_);
      }
    });
    ++live_count();
  }
  ~DenseBlock() override { --live_count(); }
  DenseBlock(const DenseBlock&) = delete;
  DenseBlock& operator=(const DenseBlock&) = delete;

  int width() const { return width_; }
  std::int64_t rows() const { return n_; }
  const float* row(std::int64_t r) const override {
    return data_.data() + static_cast<std::size_t>(r) * width_;
  }
  std::size_t bytes() const { return data_.size() * sizeof(float); }

  // Blocks alive in this process (tests check that unused ones are freed).
  static long& live_count() {
    static long n = 0;
    return n;
  }

 private:
  int width_;
  std::int64_t n_;
  std::vector<float> data_;
};

}  // namespace cppestimators
