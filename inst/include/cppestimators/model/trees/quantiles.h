// The features boosted trees split on, and each one's buckets. In sorted
// column order: a bucketized column is one feature (its bucket index); an
// indicator column is one 0/1 feature per category; a numeric column (as
// TF 1.13+) is one feature per value, bucketized by the boundaries TF's
// quantile sketch (quantile_sketch.h) finds in the data of the first
// training session, at most num_quantiles + 1 of them (num_quantiles =
// 1 / quantile_sketch_epsilon), kept with the model as two variables (the
// boundaries and how many each feature has).
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "../../features/feature_set.h"
#include "../../parallel.h"
#include "../parameter.h"
#include "quantile_sketch.h"

namespace cppestimators {
namespace trees {

// The bucket of x among `count` sorted boundaries as TF's
// BoostedTreesBucketize finds it: how many of them are < x (std::lower_bound's
// index: a value equal to a boundary is in that boundary's bucket), a value
// above the last boundary in the last boundary's bucket. A binary search
// whose steps are selects, not branches, so that unpredictable values cost
// no mispredictions.
inline int bucket_of(const float* boundaries, int count, float x) {
  if (count <= 0) return 0;
  const float* base = boundaries;
  int n = count;
  while (n > 1) {
    const int half = n / 2;
    base = base[half] < x ? base + half : base;
    n -= half;
  }
  const int below = static_cast<int>(base - boundaries) + (*base < x ? 1 : 0);
  return below < count ? below : count - 1;
}

// TF's number of quantiles for an epsilon: int(1 / epsilon).
inline int quantiles_for(double epsilon) { return static_cast<int>(1.0 / epsilon); }

struct Feature {
  enum Kind { Numeric, Bucketized, Indicator } kind = Numeric;
  std::string name;
  int source = 0;    // dense offset (numeric) or sparse slot
  int category = 0;  // indicator: the category this 0/1 feature tests
  int numeric = -1;  // numeric: its row in bucket_boundaries
  int buckets = 0;
  int bin_offset = 0;  // first bin in a node's histogram
};

class Bucketizer {
 public:
  // The features of the columns `uses` accepts (by name).
  template <class Uses>
  void build(const FeatureSet& columns, Uses uses, double epsilon = 0.01) {
    epsilon_ = epsilon;
    num_quantiles_ = quantiles_for(epsilon);
    capacity_ = num_quantiles_ + 1;
    for (std::size_t i = 0; i < columns.size(); ++i) {
      const FeatureTransform& c = columns.column(i);
      if (!uses(c.name())) continue;
      const std::string ctor = c.constructor();
      Feature f;
      f.name = c.name();
      if (ctor == "column_numeric()") {
        for (int k = 0; k < c.dense_width(); ++k) {
          f.kind = Feature::Numeric;
          f.name = c.dense_width() == 1 ? c.name() : c.name() + "[" + std::to_string(k) + "]";
          f.source = columns.dense_offset(i) + k;
          f.numeric = numeric_count_++;
          f.buckets = capacity_;
          push(f);
        }
      } else if (ctor == "column_bucketized()") {
        f.kind = Feature::Bucketized;
        f.source = columns.sparse_slot(i);
        f.buckets = static_cast<int>(c.num_buckets());
        push(f);
      } else if (ctor == "column_indicator()") {
        if (c.num_buckets() > 100000)
          throw std::invalid_argument("boosted trees: the indicator column '" + c.name() +
                                      "' has more than 100000 categories");
        for (int k = 0; k < static_cast<int>(c.num_buckets()); ++k) {
          f.kind = Feature::Indicator;
          f.name = c.name() + ":" + std::to_string(k);
          f.source = columns.sparse_slot(i);
          f.category = k;
          f.buckets = 2;
          push(f);
        }
      } else {
        throw std::invalid_argument(
            "For now, only bucketized_column and indicator_column is supported but got: " + ctor +
            " '" + c.name() + "' (numeric columns are accepted too)");
      }
    }
    if (feats_.empty())
      throw std::invalid_argument("boosted trees need at least one feature column");
  }

  // The variables holding the numeric features' boundaries
  // (numeric features x boundary_capacity()) and their counts.
  void attach(Parameter& boundaries, Parameter& counts) {
    boundaries_ = &boundaries;
    counts_ = &counts;
  }

  const std::vector<Feature>& features() const { return feats_; }
  const std::vector<int>& bin_offsets() const {
    return bin_offsets_;
  }  // features()[f].bin_offset, contiguous
  int total_bins() const { return total_bins_; }
  int numeric_count() const { return numeric_count_; }
  int boundary_capacity() const { return capacity_; }
  bool narrow() const { return narrow_; }  // every feature's buckets fit in a byte

  // The numeric features' quantile buckets from the data (every row up to
  // 200,000, else 200,000 evenly spaced ones, in their order, as one batch),
  // read from `block` or gathered through `binding`.
  void fit(const FeatureSet& columns, FeatureSet::Binding& binding, std::int64_t n,
           const DenseRows* block, int threads) {
    const std::int64_t m = std::min<std::int64_t>(n, 200000);
    const int width = columns.dense_width();
    std::vector<std::vector<float>> values(static_cast<std::size_t>(numeric_count_));
    for (auto& v : values) v.reserve(static_cast<std::size_t>(m));
    const int chunk = 4096;
    std::vector<int> rows(chunk);
    std::vector<float> dense(static_cast<std::size_t>(chunk) * width);
    for (std::int64_t i0 = 0; i0 < m; i0 += chunk) {
      const int count = static_cast<int>(std::min<std::int64_t>(chunk, m - i0));
      for (int k = 0; k < count; ++k)
        rows[static_cast<std::size_t>(k)] = static_cast<int>((i0 + k) * n / m);
      if (block == nullptr) columns.gather_dense(binding, rows.data(), count, dense.data());
      for (int k = 0; k < count; ++k) {
        const float* row = block != nullptr ? block->row(rows[static_cast<std::size_t>(k)])
                                            : dense.data() + static_cast<std::size_t>(k) * width;
        for (const Feature& f : feats_)
          if (f.kind == Feature::Numeric)
            values[static_cast<std::size_t>(f.numeric)].push_back(row[f.source]);
      }
    }
    // each feature's sketch on its own (features split over the threads)
    parallel_for(numeric_count_, std::max(1, threads), [&](int j) {
      const std::vector<float> found =
          sketch_boundaries(values[static_cast<std::size_t>(j)], epsilon_, num_quantiles_);
      float* b = boundaries_->value.data() + static_cast<std::size_t>(j) * capacity_;
      int count = 0;
      for (float x : found) {
        if (!std::isfinite(x)) continue;  // checkpoints hold finite values
        if (count == capacity_) {         // never seen: the sketch keeps about num_quantiles
          b[capacity_ - 1] = found.back();
          break;
        }
        b[count++] = x;
      }
      for (int k = count; k < capacity_; ++k) b[k] = 0.0f;  // unused
      counts_->value[static_cast<std::size_t>(j)] = static_cast<float>(count);
    });
  }

  // Buckets of batch row r, one per feature.
  template <class B>
  void fill(const FeatureBatch& batch, int r, B* out) const {
    const float* dense = nullptr;
    if (batch.dense_width > 0)
      dense = batch.dense_rows != nullptr
                  ? batch.dense_rows + static_cast<std::size_t>(r) * batch.dense_width
                  : batch.dense_block->row(batch.dense_index[r]);
    for (std::size_t k = 0; k < feats_.size(); ++k) {
      const Feature& f = feats_[k];
      if (f.kind == Feature::Numeric) {
        const float* b =
            boundaries_->value.data() + static_cast<std::size_t>(f.numeric) * capacity_;
        const int count = static_cast<int>(counts_->value[static_cast<std::size_t>(f.numeric)]);
        out[k] = static_cast<B>(bucket_of(b, count, dense[f.source]));
      } else {
        const SparseIds& ids = batch.sparse[static_cast<std::size_t>(f.source)];
        if (f.kind == Feature::Bucketized) {
          out[k] = ids.end(r) > ids.begin(r) ? static_cast<B>(ids.id(ids.begin(r))) : 0;
        } else {
          out[k] = 0;
          for (int j = ids.begin(r); j < ids.end(r); ++j)
            if (ids.id(j) == f.category) out[k] = 1;
        }
      }
    }
  }

 private:
  void push(Feature f) {
    if (f.buckets > 65535)
      throw std::invalid_argument("boosted trees: a feature has more than 65535 buckets");
    if (f.buckets > 256) narrow_ = false;
    f.bin_offset = total_bins_;
    bin_offsets_.push_back(total_bins_);
    total_bins_ += f.buckets;
    feats_.push_back(std::move(f));
  }

  std::vector<Feature> feats_;
  std::vector<int> bin_offsets_;
  int total_bins_ = 0, numeric_count_ = 0;
  double epsilon_ = 0.01;
  int num_quantiles_ = 100, capacity_ = 101;
  bool narrow_ = true;
  Parameter *boundaries_ = nullptr, *counts_ = nullptr;
};

}  // namespace trees
}  // namespace cppestimators
