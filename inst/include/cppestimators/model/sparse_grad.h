// Builds a sparse gradient (distinct rows, ascending, one gradient row each)
// from (row, source, coefficient) entries: grad[row] += coef * src[source].
// Duplicate ids in a batch are summed, as TF sums IndexedSlices. The cost is
// in the entries of the batch, never in the size of the table.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "parameter.h"

namespace cppestimators {

class SparseGrad {
 public:
  void reserve(std::size_t max_entries, std::size_t width);
  void begin() { n_ = 0; }
  // inline: called per id of the batch in the models' backward loops
  void add(std::int64_t row, int source, float coef) { entries_[n_++] = Entry{row, source, coef}; }

  // src: rows x width (row-major). Fills `g` for `param`.
  void finish(const float* src, Parameter& param, Gradient& g);

 private:
  struct Entry {
    std::int64_t row = 0;
    int source = 0;
    float coef = 0.0f;
  };
  std::vector<Entry> entries_;
  std::vector<std::int64_t> rows_;
  std::vector<float> values_;
  std::size_t width_ = 1, n_ = 0;
};

}  // namespace cppestimators
