#include <cppestimators/model/trees/quantile_sketch.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

namespace cppestimators {
namespace trees {

void QuantileSummary::build(const std::vector<std::pair<float, float>>& sorted) {
  entries.clear();
  float cumulative = 0.0f;
  for (const auto& vw : sorted) {
    entries.push_back({vw.first, vw.second, cumulative, cumulative + vw.second});
    cumulative += vw.second;
  }
}

void QuantileSummary::merge(const QuantileSummary& other) {
  const std::vector<SketchEntry>& b = other.entries;
  if (b.empty()) return;
  if (entries.empty()) {
    entries = b;
    return;
  }
  std::vector<SketchEntry> a;
  a.swap(entries);
  entries.reserve(a.size() + b.size());
  std::size_t i = 0, j = 0;
  float next_a = 0.0f, next_b = 0.0f;
  while (i < a.size() && j < b.size()) {
    if (a[i].value < b[j].value) {
      entries.push_back(
          {a[i].value, a[i].weight, a[i].min_rank + next_b, a[i].max_rank + b[j].prev_max_rank()});
      next_a = a[i].next_min_rank();
      ++i;
    } else if (b[j].value < a[i].value) {
      entries.push_back(
          {b[j].value, b[j].weight, b[j].min_rank + next_a, b[j].max_rank + a[i].prev_max_rank()});
      next_b = b[j].next_min_rank();
      ++j;
    } else {
      entries.push_back({a[i].value, a[i].weight + b[j].weight, a[i].min_rank + b[j].min_rank,
                         a[i].max_rank + b[j].max_rank});
      next_a = a[i].next_min_rank();
      next_b = b[j].next_min_rank();
      ++i;
      ++j;
    }
  }
  for (; i < a.size(); ++i)
    entries.push_back(
        {a[i].value, a[i].weight, a[i].min_rank + next_b, a[i].max_rank + b.back().max_rank});
  for (; j < b.size(); ++j)
    entries.push_back(
        {b[j].value, b[j].weight, b[j].min_rank + next_a, b[j].max_rank + a.back().max_rank});
}

void QuantileSummary::compress(std::int64_t size_hint, double min_eps) {
  size_hint = std::max<std::int64_t>(size_hint, 2);
  if (static_cast<std::int64_t>(entries.size()) <= size_hint) return;
  const double delta = total_weight() * std::max(1.0 / static_cast<double>(size_hint), min_eps);
  const std::int64_t step = static_cast<std::int64_t>(entries.size());
  std::int64_t budget = 0;
  std::size_t write = 1, last = 0, read = 0;
  const std::size_t n = entries.size();
  while (read + 1 != n) {
    std::size_t next = read + 1;
    while (next != n && budget < step &&
           entries[next].prev_max_rank() - entries[read].next_min_rank() <= delta) {
      budget += size_hint;
      ++next;
    }
    read = read == next - 1 ? read + 1 : next - 1;
    entries[write++] = entries[read];
    last = read;
    budget -= step;
  }
  if (last + 1 != n) entries[write++] = entries.back();
  entries.resize(write);
}

double QuantileSummary::approximation_error() const {
  if (entries.empty()) return 0.0;
  float gap = 0.0f;
  for (std::size_t k = 1; k < entries.size(); ++k)
    gap = std::max(gap, std::max(entries[k].max_rank - entries[k].min_rank - entries[k].weight,
                                 entries[k].prev_max_rank() - entries[k - 1].next_min_rank()));
  return static_cast<double>(gap) / total_weight();
}

std::vector<float> QuantileSummary::boundaries(std::int64_t count) const {
  std::vector<float> out;
  if (entries.empty()) return out;
  QuantileSummary copy = *this;
  const float eps = static_cast<float>(approximation_error() + 1.0 / static_cast<double>(count));
  copy.compress(count, eps);
  for (const SketchEntry& e : copy.entries) out.push_back(e.value);
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

QuantileStream::QuantileStream(double eps, std::int64_t max_elements) : eps_(eps) {
  std::int64_t levels = 1, block = 2;
  if (eps <= 2.220446049250313e-16) {
    block = std::max<std::int64_t>(max_elements, 2);
  } else {
    for (levels = 1, block = 2; (std::int64_t{1} << levels) * block < max_elements; ++levels)
      block = static_cast<std::int64_t>(std::ceil(static_cast<double>(levels) / eps)) + 1;
  }
  block_ = std::max<std::int64_t>(block, 2);
  buffer_max_ = static_cast<std::size_t>(std::min(block_ * 2, max_elements));
  buffer_.reserve(buffer_max_);
}

void QuantileStream::push(float value, float weight) {
  if (!(weight > 0.0f)) return;  // zero and negative weights are ignored
  buffer_.emplace_back(value, weight);
  if (buffer_.size() >= buffer_max_) push_buffer();
}

void QuantileStream::push_summary(const std::vector<SketchEntry>& summary) {
  local_.entries = summary;
  local_.compress(block_, eps_);
  propagate();
}

void QuantileStream::finalize() {
  push_buffer();
  local_.entries.clear();
  for (QuantileSummary& level : levels_) local_.merge(level);
  levels_.clear();
}

void QuantileStream::push_buffer() {
  std::vector<std::pair<float, float>> sorted;
  sorted.swap(buffer_);
  buffer_.reserve(buffer_max_);
  std::sort(sorted.begin(), sorted.end(),
            [](const std::pair<float, float>& a, const std::pair<float, float>& b) {
              return a.first < b.first;
            });
  std::size_t kept = 0;
  for (std::size_t k = 1; k < sorted.size(); ++k) {
    if (sorted[k].first != sorted[kept].first)
      sorted[++kept] = sorted[k];
    else
      sorted[kept].second += sorted[k].second;
  }
  if (!sorted.empty()) sorted.resize(kept + 1);
  local_.build(sorted);
  local_.compress(block_, eps_);
  propagate();
}

void QuantileStream::propagate() {
  if (local_.entries.empty()) return;
  for (std::size_t level = 0;; ++level) {
    if (levels_.size() <= level) levels_.emplace_back();
    QuantileSummary& current = levels_[level];
    local_.merge(current);
    if (current.entries.empty() || static_cast<std::int64_t>(local_.entries.size()) <= block_ + 1) {
      current.entries.swap(local_.entries);
      local_.entries.clear();
      return;
    }
    local_.compress(block_, eps_);
    current.entries.clear();
  }
}

std::vector<float> sketch_boundaries(const std::vector<float>& values, double epsilon,
                                     std::int64_t num_quantiles) {
  const double eps = static_cast<double>(static_cast<float>(epsilon));
  QuantileStream batch(eps, static_cast<std::int64_t>(values.size()) + 1);
  for (float v : values)
    if (!std::isnan(v)) batch.push(v, 1.0f);
  batch.finalize();
  QuantileStream accumulator(eps, std::int64_t{1} << 40);
  accumulator.push_summary(batch.summary().entries);
  accumulator.finalize();
  return accumulator.summary().boundaries(num_quantiles);
}

}  // namespace trees
}  // namespace cppestimators
