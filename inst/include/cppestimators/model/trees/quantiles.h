// The features boosted trees split on, and each one's buckets. In sorted
// column order: a bucketized column is one feature (its bucket index); an
// indicator column is one 0/1 feature per category; a numeric column (as
// TF 1.13+) is one feature per value, bucketized by the boundaries TF's
// quantile sketch (quantile_sketch.h) finds in the data of the first
// training session, at most num_quantiles + 1 of them (num_quantiles =
// 1 / quantile_sketch_epsilon), kept with the model as two variables (the
// boundaries and how many each feature has).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "../../features/feature_batch.h"
#include "../../features/feature_set.h"
#include "../../features/transform.h"
#include "../parameter.h"

namespace cppestimators {
class Collective;
struct ShardLayout;
namespace trees {

// The bucket of x among `count` sorted boundaries as TF's
// BoostedTreesBucketize finds it: how many of them are < x (std::lower_bound's
// index: a value equal to a boundary is in that boundary's bucket), a value
// above the last boundary in the last boundary's bucket. A binary search
// whose steps are selects, not branches, so that unpredictable values cost
// no mispredictions. (inline: called per row and feature by
// Bucketizer::fill())
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
  int col = 0;       // its column's index in the feature set
  int source = 0;    // dense offset (numeric) or sparse slot
  int category = 0;  // indicator: the category this 0/1 feature tests
  int numeric = -1;  // numeric: its row in bucket_boundaries
  int buckets = 0;
  int bin_offset = 0;  // first bin in a node's histogram
};

class Bucketizer {
 public:
  // The features of the columns `uses` accepts (by name).
  // (inline: a template on the caller's filter; each column's features are
  // found by add_column())
  template <class Uses>
  void build(const FeatureSet& columns, Uses uses, double epsilon = 0.01) {
    start_build(epsilon);
    for (std::size_t i = 0; i < columns.size(); ++i)
      if (uses(columns.column(i).name())) add_column(columns, i);
    finish_build();
  }

  // The variables holding the numeric features' boundaries
  // (numeric features x boundary_capacity()) and their counts.
  void attach(Parameter& boundaries, Parameter& counts);

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
  // read from `block` or gathered through `binding`. With a `collective` of
  // several ranks, each rank holding shard `layout.shard` of the rows
  // (distributed/collective.h), every rank takes the rows of the sample it
  // holds and the ranks' values are merged in global row order: the
  // buckets one process finds from all the rows.
  void fit(const FeatureSet& columns, FeatureSet::Binding& binding, std::int64_t n,
           const DenseRows* block, int threads, Collective* collective, const ShardLayout& layout);

  // Buckets of batch row r, one per feature.
  // (inline: called per row by the tree walk, Ensemble::forward())
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
  // build()'s steps: the settings, the features of column i, the check
  // that some column gave features.
  void start_build(double epsilon);
  void add_column(const FeatureSet& columns, std::size_t i);
  void finish_build() const;

  void push(Feature f);

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
