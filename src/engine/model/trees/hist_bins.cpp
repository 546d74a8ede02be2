#include <cppestimators/model/trees/hist_bins.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <utility>

#include <cppestimators/distributed/collective.h>
#include <cppestimators/io/little_endian.h>
#include <cppestimators/parallel.h>

namespace cppestimators {
namespace trees {

void BinMatrix::resize(std::int64_t n, int nw, int ww) {
  rows = n;
  narrow_width = nw;
  wide_width = ww;
  narrow.assign(static_cast<std::size_t>(n) * static_cast<std::size_t>(nw), 0);
  wide.assign(static_cast<std::size_t>(n) * static_cast<std::size_t>(ww), 0);
  narrow_cols.assign(narrow.size(), 0);
  wide_cols.assign(wide.size(), 0);
}

void HistFeatures::add_column(const FeatureSet& columns, std::size_t i) {
  const FeatureTransform& c = columns.column(i);
  HistFeature f;
  f.name = c.name();
  f.col = static_cast<int>(i);
  if (c.role() == ColumnRole::Dense) {
    for (int k = 0; k < c.dense_width(); ++k) {
      f.kind = HistFeature::Numeric;
      f.name = c.dense_width() == 1 ? c.name() : c.name() + "[" + std::to_string(k) + "]";
      f.source = columns.dense_offset(i) + k;
      f.numeric = numeric_count_++;
      f.bins = max_bin_;
      push(f);
    }
    return;
  }
  const std::int64_t categories = c.num_buckets();
  if (categories + 1 > 65535)
    throw std::invalid_argument("boosted trees: the column '" + c.name() + "' has " +
                                std::to_string(categories) +
                                " categories; the histogram growths split at most 65534 (hash "
                                "them into fewer buckets)");
  f.kind =
      c.constructor() == "column_bucketized()" ? HistFeature::Ordinal : HistFeature::Categorical;
  f.source = columns.sparse_slot(i);
  f.bins = static_cast<int>(categories) + 1;
  push(f);
}

void HistFeatures::push(HistFeature f) {
  f.wide = f.bins > 256;
  f.column = f.wide ? wide_width_++ : narrow_width_++;
  f.offset = total_bins_;
  total_bins_ += f.bins;
  max_bins_ = std::max(max_bins_, f.bins);
  feats_.push_back(std::move(f));
}

void HistFeatures::finish_build() {
  if (feats_.empty()) throw std::invalid_argument("boosted trees need at least one feature column");
}

void HistFeatures::attach(Parameter& cuts, Parameter& counts) {
  cuts_ = &cuts;
  counts_ = &counts;
}

int HistFeatures::cut_count(int j) const {
  return static_cast<int>(counts_->value[static_cast<std::size_t>(j)]);
}

int HistFeatures::numeric_bin(int j, float x) const {
  return bin_among(cuts_->value.data() + static_cast<std::size_t>(j) * cut_capacity(), cut_count(j),
                   x);
}

float HistFeatures::cut_value(int j, int b) const {
  const int count = cut_count(j);
  // (finite: checkpoints hold finite values; every finite value is <= the
  // largest float, and no value is below the lowest one)
  if (b < 1) return std::numeric_limits<float>::lowest();
  if (b > count) return std::numeric_limits<float>::max();
  return cuts_
      ->value[static_cast<std::size_t>(j) * cut_capacity() + static_cast<std::size_t>(b) - 1];
}

std::vector<float> find_cuts(std::vector<float>& values, int capacity) {
  values.erase(
      std::remove_if(values.begin(), values.end(), [](float x) { return !std::isfinite(x); }),
      values.end());
  std::sort(values.begin(), values.end());
  std::vector<float> cuts;
  if (values.empty()) return cuts;
  std::vector<float> distinct;
  std::vector<std::size_t> ends;  // one past the last copy of each distinct value
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i == 0 || values[i] != values[i - 1]) {
      if (i > 0) ends.push_back(i);
      distinct.push_back(values[i]);
    }
  }
  ends.push_back(values.size());
  const auto midpoint = [](float a, float b) {
    const float m = static_cast<float>((static_cast<double>(a) + b) / 2.0);
    return m < b ? m : a;  // a value between them, a when none is
  };
  if (static_cast<int>(distinct.size()) <= capacity + 1) {
    // one bin per distinct value
    for (std::size_t k = 0; k + 1 < distinct.size(); ++k)
      cuts.push_back(midpoint(distinct[k], distinct[k + 1]));
    return cuts;
  }
  // quantiles of the values: the cut after the distinct value holding rank
  // q * n / (capacity + 1), for q = 1..capacity, each distinct value once
  const std::size_t n = values.size();
  std::size_t k = 0;
  for (int q = 1; q <= capacity; ++q) {
    const std::size_t rank = static_cast<std::size_t>(static_cast<double>(q) * n / (capacity + 1));
    while (k < ends.size() && ends[k] <= rank) ++k;
    if (k + 1 >= distinct.size()) break;
    const float c = midpoint(distinct[k], distinct[k + 1]);
    if (cuts.empty() || c > cuts.back()) cuts.push_back(c);
  }
  return cuts;
}

void HistFeatures::fit(const FeatureSet& columns, FeatureSet::Binding& binding, std::int64_t n,
                       const DenseRows* block, int threads, std::int64_t n_total, int shard,
                       int shards, Collective* collective) {
  if (numeric_count_ == 0 || n_total <= 0) return;
  const std::int64_t m = std::min<std::int64_t>(n_total, 262144);
  // this rank's rows of the sample, in global order
  std::vector<int> mine;
  for (std::int64_t i = 0; i < m; ++i) {
    const std::int64_t g = i * n_total / m;
    if (g % shards != shard) continue;
    const std::int64_t local = (g - shard) / shards;
    if (local < n) mine.push_back(static_cast<int>(local));
  }
  const int width = columns.dense_width();
  std::vector<std::vector<float>> values(static_cast<std::size_t>(numeric_count_));
  for (auto& v : values) v.reserve(mine.size());
  const int chunk = 4096;
  std::vector<float> dense(static_cast<std::size_t>(chunk) * width);
  for (std::size_t i0 = 0; i0 < mine.size(); i0 += chunk) {
    const int count = static_cast<int>(std::min<std::size_t>(chunk, mine.size() - i0));
    if (block == nullptr) columns.gather_dense(binding, mine.data() + i0, count, dense.data());
    for (int k = 0; k < count; ++k) {
      const float* row = block != nullptr ? block->row(mine[i0 + static_cast<std::size_t>(k)])
                                          : dense.data() + static_cast<std::size_t>(k) * width;
      for (const HistFeature& f : feats_)
        if (f.kind == HistFeature::Numeric)
          values[static_cast<std::size_t>(f.numeric)].push_back(row[f.source]);
    }
  }
  if (collective != nullptr && collective->size() > 1) {
    // every rank's values (the cuts depend on the values, not their order)
    std::string bytes;
    for (const std::vector<float>& v : values) {
      detail::put_u64(bytes, v.size());
      for (float x : v) detail::put_f32(bytes, x);
    }
    const std::vector<std::string> all = collective->allgather(bytes);
    for (auto& v : values) v.clear();
    for (std::size_t r = 0; r < all.size(); ++r) {
      detail::LittleEndianReader in(all[r].data(), all[r].size());
      try {
        for (std::vector<float>& v : values) {
          const std::uint64_t count = in.u64("count");
          in.need(count, 4, "values");
          for (std::uint64_t i = 0; i < count; ++i) v.push_back(in.f32("values"));
        }
      } catch (const detail::TruncatedInput&) {
        throw std::invalid_argument("rank " + std::to_string(r) +
                                    "'s values for the trees' bins are cut short (another model "
                                    "on that rank?)");
      }
    }
  }
  const int cap = cut_capacity();
  parallel_for(numeric_count_, std::max(1, threads), [&](int j) {
    const std::vector<float> found = find_cuts(values[static_cast<std::size_t>(j)], cap);
    float* c = cuts_->value.data() + static_cast<std::size_t>(j) * cap;
    const int count = static_cast<int>(std::min<std::size_t>(found.size(), cap));
    std::copy(found.begin(), found.begin() + count, c);
    std::fill(c + count, c + cap, 0.0f);
    counts_->value[static_cast<std::size_t>(j)] = static_cast<float>(count);
  });
}

void HistFeatures::bin_rows(const FeatureSet& columns, FeatureSet::Binding& binding, std::int64_t n,
                            const DenseRows* block, int threads, BinMatrix& out) const {
  out.resize(n, narrow_width_, wide_width_);
  const int width = columns.dense_width();
  const int chunk = 8192;
  std::vector<int> rows(chunk);
  std::vector<float> dense(block == nullptr ? static_cast<std::size_t>(chunk) * width : 0);
  std::vector<SparseIds> ids(columns.sparse_count());
  for (const HistFeature& f : feats_)
    if (f.kind != HistFeature::Numeric)
      ids[static_cast<std::size_t>(f.source)].reserve(
          chunk, std::max<std::int64_t>(
                     1, binding.ids[static_cast<std::size_t>(f.col)]->max_ids_per_row()));
  const std::size_t nw = static_cast<std::size_t>(narrow_width_),
                    ww = static_cast<std::size_t>(wide_width_);
  // each feature's cuts and their count, read once
  std::vector<const float*> cut_of(feats_.size(), nullptr);
  std::vector<int> count_of(feats_.size(), 0);
  for (std::size_t k = 0; k < feats_.size(); ++k)
    if (feats_[k].kind == HistFeature::Numeric) {
      cut_of[k] =
          cuts_->value.data() + static_cast<std::size_t>(feats_[k].numeric) * cut_capacity();
      count_of[k] = cut_count(feats_[k].numeric);
    }
  for (std::int64_t i0 = 0; i0 < n; i0 += chunk) {
    const int count = static_cast<int>(std::min<std::int64_t>(chunk, n - i0));
    for (int k = 0; k < count; ++k) rows[static_cast<std::size_t>(k)] = static_cast<int>(i0 + k);
    if (block == nullptr && width > 0)
      columns.gather_dense(binding, rows.data(), count, dense.data());
    for (const HistFeature& f : feats_) {
      if (f.kind == HistFeature::Numeric) continue;
      SparseIds& s = ids[static_cast<std::size_t>(f.source)];
      s.clear();
      binding.ids[static_cast<std::size_t>(f.col)]->gather(rows.data(), count, s);
      s.prune();
    }
    const int pieces = count >= 2048 ? std::max(1, threads) * 4 : 1;
    parallel_for(pieces, std::max(1, threads), [&](int piece) {
      const int k0 = static_cast<int>(static_cast<std::int64_t>(count) * piece / pieces);
      const int k1 = static_cast<int>(static_cast<std::int64_t>(count) * (piece + 1) / pieces);
      for (int k = k0; k < k1; ++k) {
        const std::size_t r = static_cast<std::size_t>(i0 + k);
        const float* row = width == 0         ? nullptr
                           : block != nullptr ? block->row(static_cast<std::int64_t>(r))
                                              : dense.data() + static_cast<std::size_t>(k) * width;
        std::uint8_t* nb = out.narrow.data() + r * nw;
        std::uint16_t* wb = out.wide.data() + r * ww;
        for (std::size_t fk = 0; fk < feats_.size(); ++fk) {
          const HistFeature& f = feats_[fk];
          int b = 0;
          if (f.kind == HistFeature::Numeric) {
            b = bin_among(cut_of[fk], count_of[fk], row[f.source]);
          } else {
            const SparseIds& s = ids[static_cast<std::size_t>(f.source)];
            if (s.end(k) > s.begin(k)) {
              const std::int64_t id = s.id(s.begin(k));
              b = id >= 0 && id + 1 < f.bins ? static_cast<int>(id) + 1 : 0;
            }
          }
          const std::size_t at =
              static_cast<std::size_t>(f.column) * static_cast<std::size_t>(n) + r;
          if (f.wide) {
            wb[f.column] = static_cast<std::uint16_t>(b);
            out.wide_cols[at] = static_cast<std::uint16_t>(b);
          } else {
            nb[f.column] = static_cast<std::uint8_t>(b);
            out.narrow_cols[at] = static_cast<std::uint8_t>(b);
          }
        }
      }
    });
  }
}

}  // namespace trees
}  // namespace cppestimators
