#include <cppestimators/model/sparse_grad.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace cppestimators {

void SparseGrad::reserve(std::size_t max_entries, std::size_t width) {
  entries_.assign(max_entries, Entry{});
  rows_.assign(max_entries, 0);
  values_.assign(max_entries * width, 0.0f);
  width_ = width;
}

void SparseGrad::finish(const float* src, Parameter& param, Gradient& g) {
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

}  // namespace cppestimators
