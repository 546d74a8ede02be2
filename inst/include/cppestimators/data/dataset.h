// The caller's data for one session: typed column views (any order, looked
// up by key), the response as doubles (column-major; may be absent) and the
// examples' weights (TF's weight_column; absent: every weight is 1).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
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

  // The column named `key` (the first, keys being unique in practice), or
  // null. Looked up in an index of the keys, built on first use and again
  // whenever `features` has grown or the index names another column (the
  // vector was replaced), so that binding every column of a wide input is not
  // quadratic in its width. Not for concurrent use: columns are bound from
  // one thread.
  const ColumnView* find(const std::string& key) const;
  // The column named `key`; throws naming the features that exist.
  const ColumnView& require(const std::string& key, const std::string& user) const;

  // find()'s index, and the number of features it holds
  mutable std::unordered_map<std::string, std::size_t> index_;
  mutable std::size_t indexed_ = 0;
};

}  // namespace cppestimators
