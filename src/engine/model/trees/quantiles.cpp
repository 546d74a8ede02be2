#include <cppestimators/model/trees/quantiles.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

#include <cppestimators/distributed/collective.h>
#include <cppestimators/io/little_endian.h>
#include <cppestimators/parallel.h>
#include <cppestimators/model/trees/quantile_sketch.h>

namespace cppestimators {
namespace trees {

void Bucketizer::start_build(double epsilon) {
  epsilon_ = epsilon;
  num_quantiles_ = quantiles_for(epsilon);
  capacity_ = num_quantiles_ + 1;
}

void Bucketizer::add_column(const FeatureSet& columns, std::size_t i) {
  const FeatureTransform& c = columns.column(i);
  const std::string ctor = c.constructor();
  Feature f;
  f.name = c.name();
  f.col = static_cast<int>(i);
  if (c.sparse_numeric())
    throw std::invalid_argument(
        "boosted trees read column_numeric() '" + c.name() +
        "' as dense values: build it without `sparse = TRUE` (a sparse matrix still goes in)");
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

void Bucketizer::finish_build() const {
  if (feats_.empty()) throw std::invalid_argument("boosted trees need at least one feature column");
}

void Bucketizer::attach(Parameter& boundaries, Parameter& counts) {
  boundaries_ = &boundaries;
  counts_ = &counts;
}

void Bucketizer::fit(const FeatureSet& columns, FeatureSet::Binding& binding, std::int64_t n,
                     const DenseRows* block, int threads, Collective* collective,
                     const ShardLayout& layout) {
  const bool across = collective != nullptr && collective->size() > 1;
  const std::int64_t total = layout.total;
  const std::int64_t m = std::min<std::int64_t>(total, 200000);
  const int shards = std::max(1, layout.shards);
  // this rank's rows of the sample (global rows floor(i * total / m)), in
  // global order
  std::vector<int> mine;
  for (std::int64_t i = 0; i < m; ++i) {
    const std::int64_t g = i * total / m;
    if (g % shards != layout.shard) continue;
    const std::int64_t local = (g - layout.shard) / shards;
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
      for (const Feature& f : feats_)
        if (f.kind == Feature::Numeric)
          values[static_cast<std::size_t>(f.numeric)].push_back(row[f.source]);
    }
  }
  if (across) {  // every rank's values, merged in global row order: one process's sample
    std::string bytes;
    for (const std::vector<float>& v : values) {
      detail::put_u64(bytes, v.size());
      for (float x : v) detail::put_f32(bytes, x);
    }
    const std::vector<std::string> all = collective->allgather(bytes);
    std::vector<std::vector<std::vector<float>>> of_rank(all.size());
    for (std::size_t r = 0; r < all.size(); ++r) {
      detail::LittleEndianReader in(all[r].data(), all[r].size());
      of_rank[r].resize(values.size());
      try {
        for (std::vector<float>& v : of_rank[r]) {
          const std::uint64_t count = in.u64("count");
          in.need(count, 4, "values");
          for (std::uint64_t i = 0; i < count; ++i) v.push_back(in.f32("values"));
        }
      } catch (const detail::TruncatedInput&) {
        throw std::invalid_argument("rank " + std::to_string(r) +
                                    "'s values for the trees' buckets are cut short (another "
                                    "model on that rank?)");
      }
    }
    for (std::size_t j = 0; j < values.size(); ++j) {
      values[j].clear();
      std::vector<std::size_t> at(all.size(), 0);
      for (std::int64_t i = 0; i < m; ++i) {
        const std::int64_t g = i * total / m;
        const std::size_t r =
            static_cast<std::size_t>(layout.shard_rank[static_cast<std::size_t>(g % shards)]);
        const std::vector<float>& v = of_rank[r][j];
        if (at[r] < v.size()) values[j].push_back(v[at[r]++]);
      }
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

void Bucketizer::push(Feature f) {
  if (f.buckets > 65535)
    throw std::invalid_argument("boosted trees: a feature has more than 65535 buckets");
  if (f.buckets > 256) narrow_ = false;
  f.bin_offset = total_bins_;
  bin_offsets_.push_back(total_bins_);
  total_bins_ += f.buckets;
  feats_.push_back(std::move(f));
}

}  // namespace trees
}  // namespace cppestimators
