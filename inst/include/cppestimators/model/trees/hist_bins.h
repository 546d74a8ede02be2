// The data of the histogram growths ("depthwise", "lossguide"): every
// column a model uses becomes features whose values are bin indices, and
// the rows of a training session become one matrix of them, all that
// training reads.
//
// - A numeric column gives one feature per value. Its bins come from the
//   data of the first training session: at most max_bin - 2 cut values
//   (midpoints between neighbouring distinct values when there are few of
//   them, quantiles otherwise), kept with the model as two variables. Bin 0
//   holds missing values (NA, NaN); bin b >= 1 holds the values x with
//   cut[b - 2] < x <= cut[b - 1], so "bin <= b" is "x <= cut[b - 1]" and a
//   tree predicts from raw values without binning them.
// - A bucketized column is one ordered feature: bin = bucket + 1.
// - Any other column with ids (a categorical column, an indicator or
//   embedding of one) is one categorical feature: bin = id + 1 (a row's
//   first valid id), bin 0 when the row has none. Its splits are sets of
//   categories (hist_grower.h), never a one-hot expansion.
//
// The matrix is row-major in two blocks: one byte per value for the
// features with at most 256 bins, two bytes for the others, so a row's
// bins are read together when a node's histogram is built.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "../../features/feature_batch.h"
#include "../../features/feature_set.h"
#include "../parameter.h"

namespace cppestimators {
class Collective;
namespace trees {

// The bin of x among `count` sorted cuts: 0 when x is missing, else 1 +
// how many cuts are < x (the bins are (cut[b - 2], cut[b - 1]]), by a
// binary search whose steps are selects, not branches. (inline: called per
// value when rows are binned)
inline int bin_among(const float* cuts, int count, float x) {
  if (x != x) return 0;  // NaN: missing
  if (count <= 0) return 1;
  const float* base = cuts;
  int n = count;
  while (n > 1) {
    const int half = n / 2;
    base = base[half - 1] < x ? base + half : base;
    n -= half;
  }
  return static_cast<int>(base - cuts) + (*base < x ? 1 : 0) + 1;
}

struct HistFeature {
  enum Kind { Numeric, Ordinal, Categorical } kind = Numeric;
  std::string name;
  int source = 0;     // dense offset (Numeric) or sparse slot
  int col = 0;        // its column's index in the feature set
  int numeric = -1;   // Numeric: its row of the cut variables
  int bins = 0;       // including bin 0 (missing)
  bool wide = false;  // more than 256 bins: in the two-byte block
  int column = 0;     // its column in its block
  int offset = 0;     // its first bin in a node's histogram
};

// Row-major for building histograms (a row's bins read together) and, as
// xgboost keeps its column matrix, column-major too for partitioning rows
// (one feature's bins of a node's rows read in order): twice the bytes of
// one layout, which the partition repays (a row-major read of one feature
// moves a whole row's cache line per row and level).
struct BinMatrix {
  std::int64_t rows = 0;
  int narrow_width = 0, wide_width = 0;
  std::vector<std::uint8_t> narrow;       // rows x narrow_width
  std::vector<std::uint16_t> wide;        // rows x wide_width
  std::vector<std::uint8_t> narrow_cols;  // narrow_width x rows
  std::vector<std::uint16_t> wide_cols;   // wide_width x rows
  void resize(std::int64_t n, int nw, int ww);
  std::size_t bytes() const { return 2 * (narrow.size() + 2 * wide.size()); }
  // Feature column `column` of its block, `row`.
  int bin(bool is_wide, int column, std::int64_t row) const {
    return is_wide ? wide_cols[static_cast<std::size_t>(column) * static_cast<std::size_t>(rows) +
                               static_cast<std::size_t>(row)]
                   : narrow_cols[static_cast<std::size_t>(column) * static_cast<std::size_t>(rows) +
                                 static_cast<std::size_t>(row)];
  }
};

class HistFeatures {
 public:
  // The features of the columns `uses` accepts (by name), at most
  // `max_bin` bins each (numeric features; categorical ones have one per
  // category).
  template <class Uses>
  void build(const FeatureSet& columns, Uses uses, int max_bin) {
    max_bin_ = max_bin;
    for (std::size_t i = 0; i < columns.size(); ++i)
      if (uses(columns.column(i).name())) add_column(columns, i);
    finish_build();
  }

  // The variables holding the numeric features' cuts (numeric features x
  // cut_capacity()) and their counts.
  void attach(Parameter& cuts, Parameter& counts);

  const std::vector<HistFeature>& features() const { return feats_; }
  int total_bins() const { return total_bins_; }
  int numeric_count() const { return numeric_count_; }
  int cut_capacity() const { return max_bin_ - 2 > 0 ? max_bin_ - 2 : 1; }
  int narrow_width() const { return narrow_width_; }
  int wide_width() const { return wide_width_; }
  int max_bins() const { return max_bins_; }

  // The cuts of every numeric feature from the n rows of `binding` (or
  // `block`), through a RowSample (below). Across processes, this rank
  // holds shard `shard` of `shards` (global rows shard, shard + shards,
  // ...: R/distributed.R's take_shard()): the cuts one process finds from
  // all the rows.
  void fit(const FeatureSet& columns, FeatureSet::Binding& binding, std::int64_t n,
           const DenseRows* block, int threads, int shard, int shards, Collective* collective);

  // Every row's bins into `out` (n rows).
  void bin_rows(const FeatureSet& columns, FeatureSet::Binding& binding, std::int64_t n,
                const DenseRows* block, int threads, BinMatrix& out) const;
  // The bins of rows rows[0..count) of `binding` (or `block`) into rows
  // at, at + 1, ... of `out`, already sized.
  void bin_rows_at(const FeatureSet& columns, FeatureSet::Binding& binding, const int* rows,
                   int count, const DenseRows* block, int threads, BinMatrix& out,
                   std::int64_t at) const;

  // The rows whose values pick the cuts: of the rows offered, the
  // kSampleRows whose keys (a mix of the global row index, every index a
  // distinct key) are the smallest. The sample depends on the rows' global
  // indices only: one process reading every row, ranks each reading a shard
  // or a stream read window by window choose the same rows.
  class RowSample {
   public:
    static constexpr std::int64_t kSampleRows = 262144;
    explicit RowSample(int numeric) : numeric_(numeric) {}
    static std::uint64_t key(std::int64_t global_row);
    // Whether a row of this key may enter the sample (inline: asked per row).
    bool wants(std::uint64_t key) const { return key < bound_; }
    // Offers the numeric values of global row g (numeric() of them, in the
    // order of the numeric features).
    void offer(std::int64_t g, const float* values);
    // The numeric values of row `row` of `binding` or `block` (dense rows).
    void offer_rows(const HistFeatures& feats, const FeatureSet& columns,
                    FeatureSet::Binding& binding, const DenseRows* block, const int* rows,
                    const std::int64_t* global, int count);
    // The sample, gathered over the ranks, as one vector of values per
    // numeric feature.
    std::vector<std::vector<float>> values(Collective* collective);

   private:
    void shrink();
    int numeric_;
    std::uint64_t bound_ = ~std::uint64_t{0};
    std::vector<std::uint64_t> keys_;
    std::vector<float> values_;  // keys_.size() x numeric_
    std::vector<float> row_;     // offer_rows()'s scratch
    std::vector<float> dense_;
  };
  // The cuts from a sample's values (one vector per numeric feature).
  void set_cuts(std::vector<std::vector<float>>& values, int threads);

  // The bin of a numeric value of numeric feature j.
  int numeric_bin(int j, float x) const;
  // The value whose "x <= value" is "bin <= b" (b >= 1).
  float cut_value(int j, int b) const;
  int cut_count(int j) const;

 private:
  void add_column(const FeatureSet& columns, std::size_t i);
  void finish_build();
  void push(HistFeature f);

  std::vector<HistFeature> feats_;
  int total_bins_ = 0, numeric_count_ = 0, narrow_width_ = 0, wide_width_ = 0, max_bins_ = 0;
  int max_bin_ = 256;
  Parameter *cuts_ = nullptr, *counts_ = nullptr;
};

// The cuts of one feature's sample (sorted in place, NaNs dropped): at most
// `capacity` values.
std::vector<float> find_cuts(std::vector<float>& values, int capacity);

}  // namespace trees
}  // namespace cppestimators
