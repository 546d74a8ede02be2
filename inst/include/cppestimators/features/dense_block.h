// The dense columns of a FeatureSet over a whole dataset, as one float32
// row-major block: built once (column by column, each read from its
// contiguous R vector), then shared by every session over the same input
// and columns. A batch of contiguous rows is read from it in place; other
// batches copy their rows with one memcpy each. Half the size of R's doubles.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "feature_set.h"

namespace cppestimators {

class DenseBlock : public DenseRows {
 public:
  // Chunks of rows go to `threads` threads (the dense readers are stateless).
  DenseBlock(const FeatureSet& features, FeatureSet::Binding& binding, std::int64_t n,
             int threads = 1);
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
  static long& live_count();

 private:
  int width_;
  std::int64_t n_;
  std::vector<float> data_;
};

}  // namespace cppestimators
