// The weighted quantile sketch TensorFlow's boosted trees take their numeric
// features' bucket boundaries from (TF 1.13+ QuantileAccumulator): a batch's
// values go through a stream of bounded-error summaries (sorted, equal
// values merged, compressed to a block size and merged level by level),
// the batch's final summary is pushed into the accumulator's stream, and
// once that stream is finalized the boundaries are a compressed copy of its
// summary, duplicates removed. Ranks and weights are floats, as in TF, so
// that the same values give the same boundaries.
#pragma once
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace cppestimators {
namespace trees {

struct SketchEntry {
  float value = 0.0f, weight = 0.0f, min_rank = 0.0f, max_rank = 0.0f;
  float prev_max_rank() const { return max_rank - weight; }  // of the next smaller value
  float next_min_rank() const { return min_rank + weight; }  // of the next larger value
};

class QuantileSummary {
 public:
  std::vector<SketchEntry> entries;

  // From (value, weight) pairs sorted by value, values distinct.
  void build(const std::vector<std::pair<float, float>>& sorted);

  float total_weight() const { return entries.empty() ? 0.0f : entries.back().max_rank; }

  // The union of two summaries, ranks bounded as in a merge sort of the two.
  void merge(const QuantileSummary& other);

  // Down to about `size_hint` entries (the first and last always kept),
  // adding at most max(1 / size_hint, min_eps) to the relative rank error.
  void compress(std::int64_t size_hint, double min_eps);

  double approximation_error() const;

  // About `count` representative values, the smallest and largest included,
  // duplicates removed (TF's GenerateBoundaries then std::unique).
  std::vector<float> boundaries(std::int64_t count) const;
};

// A stream of (value, weight) entries or summaries: a base buffer, then
// summaries level by level, each compressed to the block size.
class QuantileStream {
 public:
  QuantileStream(double eps, std::int64_t max_elements);

  void push(float value, float weight);

  void push_summary(const std::vector<SketchEntry>& summary);

  // Merges every level into the final summary.
  void finalize();

  const QuantileSummary& summary() const { return local_; }

 private:
  void push_buffer();

  void propagate();

  double eps_;
  std::int64_t block_ = 2;
  std::size_t buffer_max_ = 4;
  std::vector<std::pair<float, float>> buffer_;
  QuantileSummary local_;
  std::vector<QuantileSummary> levels_;
};

// The boundaries of one feature's values (weight 1 each) as TF's estimator
// finds them for a batch holding them: the batch's summary (a stream of
// batch size + 1 elements) pushed into the accumulator's stream, finalized,
// and `num_quantiles` boundaries asked of it. `epsilon` is taken as a float,
// as TF's ops take it.
std::vector<float> sketch_boundaries(const std::vector<float>& values, double epsilon,
                                     std::int64_t num_quantiles);

}  // namespace trees
}  // namespace cppestimators
