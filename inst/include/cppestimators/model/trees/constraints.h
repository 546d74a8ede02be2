// Monotone and interaction constraints of boosted trees, by feature column
// name in a model's spec, resolved to the features a growth splits on (a
// column may give several: a numeric column of several values, an
// indicator column's categories in TensorFlow's growth).
//
// Spec fields: `monotone_columns` (names) with `monotone_directions` (-1, 0
// or 1 each); `interaction_columns` (names) with `interaction_sets` (the
// 0-based set of each name; a name may be in several sets). A column in no
// interaction set is a set of its own.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "../../spec.h"

namespace cppestimators {
namespace trees {

// What a feature of a growth comes from.
struct FeatureOrigin {
  std::string column;  // its feature column's name
  bool ordered;        // its bins are ordered (numeric, bucketized)
};

// Whether two sets of interaction sets (`words` words of bits each) meet.
inline bool shares_a_set(const std::uint64_t* a, const std::uint64_t* b, int words) {
  for (int w = 0; w < words; ++w)
    if ((a[w] & b[w]) != 0) return true;
  return false;
}

struct TreeConstraints {
  std::vector<signed char> monotone;  // per feature; empty: none
  std::vector<std::uint64_t> sets;    // per feature, `words` words of set bits; empty: none
  int words = 0;

  // Throws std::invalid_argument naming the column for an unknown name, a
  // direction other than -1, 0, 1, or a monotone unordered feature.
  static TreeConstraints from_spec(const Spec& spec, const std::vector<FeatureOrigin>& features);

  const signed char* monotone_or_null() const {
    return monotone.empty() ? nullptr : monotone.data();
  }
  const std::uint64_t* sets_or_null() const { return sets.empty() ? nullptr : sets.data(); }
};

}  // namespace trees
}  // namespace cppestimators
