#include <cppestimators/model/trees/hist_bins.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
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
  if (c.sparse_numeric())
    throw std::invalid_argument(
        "boosted trees read column_numeric() '" + c.name() +
        "' as dense values: build it without `sparse = TRUE` (a sparse matrix still goes in)");
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

std::uint64_t HistFeatures::RowSample::key(std::int64_t global_row) {
  // splitmix64's finalizer: a bijection, so distinct rows have distinct keys
  std::uint64_t z = static_cast<std::uint64_t>(global_row) + 0x9E3779B97F4A7C15ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

void HistFeatures::RowSample::offer(std::int64_t g, const float* values) {
  const std::uint64_t k = key(g);
  if (!wants(k)) return;
  keys_.push_back(k);
  values_.insert(values_.end(), values, values + numeric_);
  if (static_cast<std::int64_t>(keys_.size()) >= 2 * kSampleRows) shrink();
}

void HistFeatures::RowSample::shrink() {
  if (static_cast<std::int64_t>(keys_.size()) <= kSampleRows) return;
  std::vector<std::size_t> order(keys_.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  const std::size_t k = static_cast<std::size_t>(kSampleRows);
  std::nth_element(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(k - 1), order.end(),
                   [&](std::size_t a, std::size_t b) { return keys_[a] < keys_[b]; });
  order.resize(k);
  std::sort(order.begin(), order.end());  // (the rows' order kept)
  std::vector<std::uint64_t> keys(k);
  std::vector<float> values(k * static_cast<std::size_t>(numeric_));
  const std::size_t m = static_cast<std::size_t>(numeric_);
  std::uint64_t top = 0;
  for (std::size_t i = 0; i < k; ++i) {
    keys[i] = keys_[order[i]];
    top = std::max(top, keys[i]);
    std::copy(values_.begin() + static_cast<std::ptrdiff_t>(order[i] * m),
              values_.begin() + static_cast<std::ptrdiff_t>((order[i] + 1) * m),
              values.begin() + static_cast<std::ptrdiff_t>(i * m));
  }
  keys_.swap(keys);
  values_.swap(values);
  bound_ = top;  // (the largest kept key is in; keys are distinct)
}

void HistFeatures::RowSample::offer_rows(const HistFeatures& feats, const FeatureSet& columns,
                                         FeatureSet::Binding& binding, const DenseRows* block,
                                         const int* rows, const std::int64_t* global, int count) {
  if (numeric_ == 0 || count <= 0) return;
  const int width = columns.dense_width();
  // the rows that may enter, gathered together
  std::vector<int> take;
  std::vector<std::int64_t> take_g;
  for (int k = 0; k < count; ++k)
    if (wants(key(global[k]))) {
      take.push_back(rows[k]);
      take_g.push_back(global[k]);
    }
  if (take.empty()) return;
  if (block == nullptr) {
    dense_.resize(take.size() * static_cast<std::size_t>(width));
    columns.gather_dense(binding, take.data(), static_cast<int>(take.size()), dense_.data());
  }
  row_.resize(static_cast<std::size_t>(numeric_));
  for (std::size_t k = 0; k < take.size(); ++k) {
    const float* row = block != nullptr ? block->row(take[k])
                                        : dense_.data() + k * static_cast<std::size_t>(width);
    for (const HistFeature& f : feats.features())
      if (f.kind == HistFeature::Numeric) row_[static_cast<std::size_t>(f.numeric)] = row[f.source];
    offer(take_g[k], row_.data());
  }
}

std::vector<std::vector<float>> HistFeatures::RowSample::values(Collective* collective) {
  if (collective != nullptr && collective->size() > 1) {
    // every rank's candidates, the smallest keys of them all kept
    shrink();
    std::string bytes;
    detail::put_u64(bytes, keys_.size());
    for (std::size_t i = 0; i < keys_.size(); ++i) {
      detail::put_u64(bytes, keys_[i]);
      for (int j = 0; j < numeric_; ++j)
        detail::put_f32(bytes, values_[i * static_cast<std::size_t>(numeric_) + j]);
    }
    const std::vector<std::string> all = collective->allgather(bytes);
    keys_.clear();
    values_.clear();
    for (std::size_t r = 0; r < all.size(); ++r) {
      detail::LittleEndianReader in(all[r].data(), all[r].size());
      try {
        const std::uint64_t count = in.u64("count");
        in.need(count, 8 + 4 * static_cast<std::uint64_t>(numeric_), "values");
        for (std::uint64_t i = 0; i < count; ++i) {
          keys_.push_back(in.u64("key"));
          for (int j = 0; j < numeric_; ++j) values_.push_back(in.f32("values"));
        }
      } catch (const detail::TruncatedInput&) {
        throw std::invalid_argument("rank " + std::to_string(r) +
                                    "'s values for the trees' bins are cut short (another model "
                                    "on that rank?)");
      }
    }
  }
  shrink();
  std::vector<std::vector<float>> out(static_cast<std::size_t>(numeric_));
  for (int j = 0; j < numeric_; ++j) {
    std::vector<float>& v = out[static_cast<std::size_t>(j)];
    v.reserve(keys_.size());
    for (std::size_t i = 0; i < keys_.size(); ++i)
      v.push_back(values_[i * static_cast<std::size_t>(numeric_) + j]);
  }
  return out;
}

void HistFeatures::set_cuts(std::vector<std::vector<float>>& values, int threads) {
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

void HistFeatures::fit(const FeatureSet& columns, FeatureSet::Binding& binding, std::int64_t n,
                       const DenseRows* block, int threads, int shard, int shards,
                       Collective* collective) {
  if (numeric_count_ == 0) return;
  RowSample sample(numeric_count_);
  const int chunk = 4096;
  std::vector<int> rows(chunk);
  std::vector<std::int64_t> global(chunk);
  for (std::int64_t i0 = 0; i0 < n; i0 += chunk) {
    const int count = static_cast<int>(std::min<std::int64_t>(chunk, n - i0));
    for (int k = 0; k < count; ++k) {
      rows[static_cast<std::size_t>(k)] = static_cast<int>(i0 + k);
      global[static_cast<std::size_t>(k)] = shard + (i0 + k) * shards;
    }
    sample.offer_rows(*this, columns, binding, block, rows.data(), global.data(), count);
  }
  std::vector<std::vector<float>> values = sample.values(collective);
  set_cuts(values, threads);
}

void HistFeatures::bin_rows(const FeatureSet& columns, FeatureSet::Binding& binding, std::int64_t n,
                            const DenseRows* block, int threads, BinMatrix& out) const {
  out.resize(n, narrow_width_, wide_width_);
  const int chunk = 8192;
  std::vector<int> rows(chunk);
  for (std::int64_t i0 = 0; i0 < n; i0 += chunk) {
    const int count = static_cast<int>(std::min<std::int64_t>(chunk, n - i0));
    for (int k = 0; k < count; ++k) rows[static_cast<std::size_t>(k)] = static_cast<int>(i0 + k);
    bin_rows_at(columns, binding, rows.data(), count, block, threads, out, i0);
  }
}

void HistFeatures::bin_rows_at(const FeatureSet& columns, FeatureSet::Binding& binding,
                               const int* rows, int count, const DenseRows* block, int threads,
                               BinMatrix& out, std::int64_t at) const {
  if (count <= 0) return;
  if (at < 0 || at + count > out.rows)
    throw std::logic_error("internal: rows binned past the bin matrix");
  const std::int64_t n = out.rows;
  const int width = columns.dense_width();
  std::vector<float> dense(block == nullptr ? static_cast<std::size_t>(count) * width : 0);
  std::vector<SparseIds> ids(columns.sparse_count());
  for (const HistFeature& f : feats_)
    if (f.kind != HistFeature::Numeric)
      ids[static_cast<std::size_t>(f.source)].reserve(
          count, std::max<std::int64_t>(
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
  if (block == nullptr && width > 0) columns.gather_dense(binding, rows, count, dense.data());
  for (const HistFeature& f : feats_) {
    if (f.kind == HistFeature::Numeric) continue;
    SparseIds& s = ids[static_cast<std::size_t>(f.source)];
    s.clear();
    binding.ids[static_cast<std::size_t>(f.col)]->gather(rows, count, s);
    s.prune();
  }
  const int pieces = count >= 2048 ? std::max(1, threads) * 4 : 1;
  parallel_for(pieces, std::max(1, threads), [&](int piece) {
    const int k0 = static_cast<int>(static_cast<std::int64_t>(count) * piece / pieces);
    const int k1 = static_cast<int>(static_cast<std::int64_t>(count) * (piece + 1) / pieces);
    for (int k = k0; k < k1; ++k) {
      const std::size_t r = static_cast<std::size_t>(at + k);
      const float* row = width == 0         ? nullptr
                         : block != nullptr ? block->row(rows[k])
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
        const std::size_t cell =
            static_cast<std::size_t>(f.column) * static_cast<std::size_t>(n) + r;
        if (f.wide) {
          wb[f.column] = static_cast<std::uint16_t>(b);
          out.wide_cols[cell] = static_cast<std::uint16_t>(b);
        } else {
          nb[f.column] = static_cast<std::uint8_t>(b);
          out.narrow_cols[cell] = static_cast<std::uint8_t>(b);
        }
      }
    }
  });
}

}  // namespace trees
}  // namespace cppestimators
