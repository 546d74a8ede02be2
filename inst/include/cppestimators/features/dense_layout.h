// Numeric feature columns laid side by side into one dense block, in sorted
// name order (as TensorFlow's linear_model and input_layer do). gather()
// copies the rows of one batch into a buffer allocated once per session.
#pragma once
#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "../data/dataset.h"

namespace cppestimators {

struct NumericColumnSpec {
  std::string name;  // the column's name (its key)
  int width = 1;     // prod(shape)
};

class DenseLayout {
 public:
  DenseLayout() = default;
  explicit DenseLayout(std::vector<NumericColumnSpec> columns) : columns_(std::move(columns)) {
    if (columns_.empty()) throw std::invalid_argument("`feature_columns` must not be empty");
    std::sort(columns_.begin(), columns_.end(),
              [](const NumericColumnSpec& a, const NumericColumnSpec& b) { return a.name < b.name; });
    for (std::size_t i = 0; i < columns_.size(); ++i) {
      if (i > 0 && columns_[i].name == columns_[i - 1].name)
        throw std::invalid_argument("Duplicate feature column name found for columns: " +
                                    columns_[i].name);
      if (columns_[i].width <= 0)
        throw std::invalid_argument("column '" + columns_[i].name + "' must have a positive shape");
      offsets_.push_back(total_);
      total_ += columns_[i].width;
    }
  }

  int width() const { return total_; }
  const std::vector<NumericColumnSpec>& columns() const { return columns_; }
  int offset(std::size_t i) const { return offsets_[i]; }

  // Resolves each column against the data; throws naming a missing or
  // misshapen feature.
  std::vector<const ColumnView*> bind(const Dataset& data) const {
    std::vector<const ColumnView*> bound;
    for (const auto& c : columns_) {
      const ColumnView* v = data.find(c.name);
      if (v == nullptr)
        throw std::invalid_argument("feature '" + c.name +
                                    "' is used by a feature column but missing from the input");
      if (v->width != c.width)
        throw std::invalid_argument("feature '" + c.name + "' has " + std::to_string(v->width) +
                                    " values per row but its column expects " +
                                    std::to_string(c.width));
      bound.push_back(v);
    }
    return bound;
  }

  // out: row-major buffer with at least rows * width() floats.
  void gather(const std::vector<const ColumnView*>& bound, std::int64_t n, const int* rows,
              int count, float* out) const {
    for (int r = 0; r < count; ++r) {
      float* dst = out + static_cast<std::size_t>(r) * total_;
      const std::int64_t row = rows[r];
      for (std::size_t c = 0; c < bound.size(); ++c) {
        const double* src = bound[c]->data + row;
        float* d = dst + offsets_[c];
        for (int j = 0; j < columns_[c].width; ++j) d[j] = static_cast<float>(src[j * n]);
      }
    }
  }

 private:
  std::vector<NumericColumnSpec> columns_;
  std::vector<int> offsets_;
  int total_ = 0;
};

}  // namespace cppestimators
