// Builds a sparse gradient (distinct rows, ascending, one gradient row each)
// from (row, source, coefficient) entries: grad[row] += coef * src[source].
// Duplicate ids in a batch are summed, as TF sums IndexedSlices. The cost is
// in the entries of the batch, never in the size of the table.
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

#include "parameter.h"

namespace cppestimators {

class SparseGrad {
 public:
  void reserve(std::size_t max_entries, std::size_t width) {
    entries_.assign(max_entries, Entry{});
    rows_.assign(max_entries, 0);
    values_.assign(max_entries * width, 0.0f);
    width_ = width;
  }
  void begin() { n_ = 0; }
  void add(std::int64_t row, int source, float coef) { entries_[n_++] = Entry{row, source, coef}; }

  // src: rows x width (row-major). Fills `g` for `param`.
  void finish(const float* src, Parameter& param, Gradient& g) {
    std::sort(entries_.begin(), entries_.begin() + static_cast<std::ptrdiff_t>(n_),
              [](const Entry& a, const Entry& b) { return a.row < b.row; });
    std::size_t count = 0;
    for (std::size_t e = 0; e < n_; ++e) {
      const Entry& en = entries_[e];
      if (count == 0 || rows_[count - 1] != en.row) {
        rows_[count] = en.row;
        std::fill_n(values_.begin() + static_cast<std::ptrdiff_t>(count * width_), width_, 0.0f);
        ++count;
      }
      float* dst = values_.data() + (count - 1) * width_;
      const float* s = src + static_cast<std::size_t>(en.source) * width_;
      for (std::size_t j = 0; j < width_; ++j) dst[j] += en.coef * s[j];
    }
    g.param = &param;
    g.sparse = true;
    g.dense = nullptr;
    g.rows = rows_.data();
    g.values = values_.data();
    g.count = count;
  }

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
