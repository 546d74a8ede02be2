// The caller's data for one session: typed column views (any order, looked
// up by key), the response as doubles (column-major; may be absent) and the
// examples' weights (TF's weight_column; absent: every weight is 1).
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "column.h"

namespace cppestimators {

struct Dataset {
  std::int64_t n = 0;
  std::vector<ColumnView> features;
  const double* labels = nullptr;  // n * label_width values, column-major; may be null
  int label_width = 1;
  const double* weights = nullptr;  // n values; may be null
  std::string weight_key;           // the weight column's name, for messages

  const ColumnView* find(const std::string& key) const {
    for (const auto& c : features)
      if (c.key == key) return &c;
    return nullptr;
  }
  // The column named `key`; throws naming the features that exist.
  const ColumnView& require(const std::string& key, const std::string& user) const {
    if (const ColumnView* c = find(key)) return *c;
    std::string have;
    for (const auto& c : features) have += (have.empty() ? "" : ", ") + c.key;
    throw std::invalid_argument("feature '" + key + "' is used by feature column '" + user +
                                "' but is not among the input's features (" +
                                (have.empty() ? "none" : have) + ")");
  }
};

}  // namespace cppestimators
