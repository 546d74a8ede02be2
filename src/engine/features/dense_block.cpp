// Building the float32 block of a dataset's dense columns.
#include <cppestimators/features/dense_block.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <vector>

#include <cppestimators/parallel.h>

namespace cppestimators {

DenseBlock::DenseBlock(const FeatureSet& features, FeatureSet::Binding& binding, std::int64_t n,
                       int threads)
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

long& DenseBlock::live_count() {
  static long n = 0;
  return n;
}

}  // namespace cppestimators
