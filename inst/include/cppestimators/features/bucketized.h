// column_bucketized(): a numeric column cut at sorted boundaries. The bucket
// of x is the number of boundaries <= x (compared in float32, as TF); value
// j of a multi-valued source gets ids offset by j * (boundaries + 1).
#pragma once
#include <algorithm>
#include <memory>
#include <vector>

#include "numeric.h"

namespace cppestimators {

// Number of boundaries <= x.
inline std::int64_t bucket_of(const std::vector<float>& boundaries, float x) {
  return std::upper_bound(boundaries.begin(), boundaries.end(), x) - boundaries.begin();
}

class BucketizedTransform : public FeatureTransform {
 public:
  explicit BucketizedTransform(const Spec& spec)
      : FeatureTransform(spec), source_(make_transform(spec.child("source_column"))) {
    if (source_->role() != ColumnRole::Dense)
      throw std::invalid_argument("source_column of column_bucketized() must be a numeric column");
    for (double b : spec.numbers("boundaries")) boundaries_.push_back(static_cast<float>(b));
    for (std::size_t i = 1; i < boundaries_.size(); ++i)
      if (!(boundaries_[i - 1] < boundaries_[i]))
        throw std::invalid_argument("boundaries must be a sorted list.");
  }
  std::string constructor() const override { return "column_bucketized()"; }
  ColumnRole role() const override { return ColumnRole::Categorical; }
  bool one_hot_ok() const override { return true; }
  std::int64_t num_buckets() const override {
    return static_cast<std::int64_t>(boundaries_.size() + 1) * source_->dense_width();
  }
  const std::vector<float>& boundaries() const { return boundaries_; }

  std::unique_ptr<BoundIds> bind_ids(const Dataset& data) const override {
    return std::make_unique<Bound>(*this, source_->bind_dense(data));
  }

 private:
  class Bound : public BoundIds {
   public:
    Bound(const BucketizedTransform& t, std::unique_ptr<BoundDense> src)
        : t_(t), src_(std::move(src)), width_(t.source_->dense_width()) {}
    std::int64_t max_ids_per_row() const override { return width_; }
    void gather(const int* rows, int count, SparseIds& out) override {
      const std::size_t need = static_cast<std::size_t>(count) * width_;
      if (values_.size() < need) values_.resize(need);  // once: the first batch is the largest
      src_->gather(rows, count, values_.data(), width_);
      const std::int64_t per = static_cast<std::int64_t>(t_.boundaries_.size()) + 1;
      for (int r = 0; r < count; ++r) {
        for (int j = 0; j < width_; ++j)
          out.push(bucket_of(t_.boundaries_, values_[static_cast<std::size_t>(r) * width_ + j]) +
                   per * j);
        out.end_row();
      }
    }

   private:
    const BucketizedTransform& t_;
    std::unique_ptr<BoundDense> src_;
    int width_;
    std::vector<float> values_;
  };

  std::unique_ptr<FeatureTransform> source_;
  std::vector<float> boundaries_;
};

}  // namespace cppestimators
