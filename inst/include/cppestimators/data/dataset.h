// Columnar views of the caller's data: the engine reads the vectors in place
// (column-major doubles, as R stores them) and never owns or copies them.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace cppestimators {

struct ColumnView {
  std::string key;
  const double* data = nullptr;  // n * width values, column-major
  int width = 1;
};

struct Dataset {
  std::int64_t n = 0;
  std::vector<ColumnView> features;  // any order; looked up by key
  const double* labels = nullptr;    // n * label_width values, column-major; may be null
  int label_width = 1;

  const ColumnView* find(const std::string& key) const {
    for (const auto& c : features)
      if (c.key == key) return &c;
    return nullptr;
  }
};

}  // namespace cppestimators
