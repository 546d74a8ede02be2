#include <cppestimators/model/trees/constraints.h>

#include <algorithm>
#include <map>
#include <stdexcept>

namespace cppestimators {
namespace trees {

TreeConstraints TreeConstraints::from_spec(const Spec& spec,
                                           const std::vector<FeatureOrigin>& features) {
  TreeConstraints out;
  // each column's features
  std::map<std::string, std::vector<std::size_t>> of;
  std::string known;
  for (std::size_t f = 0; f < features.size(); ++f) {
    std::vector<std::size_t>& list = of[features[f].column];
    if (list.empty()) known += (known.empty() ? "" : ", ") + features[f].column;
    list.push_back(f);
  }
  const auto column = [&](const std::string& name,
                          const char* what) -> const std::vector<std::size_t>& {
    auto it = of.find(name);
    if (it == of.end())
      throw std::invalid_argument(std::string(what) + ": no feature column '" + name +
                                  "' in the trees (their columns: " + known + ")");
    return it->second;
  };
  if (spec.strs.count("monotone_columns") != 0) {
    const std::vector<std::string>& names = spec.strings("monotone_columns");
    const std::vector<double>& dirs = spec.numbers("monotone_directions");
    if (dirs.size() != names.size())
      throw std::invalid_argument("monotone_constraints: one direction per column");
    out.monotone.assign(features.size(), 0);
    for (std::size_t i = 0; i < names.size(); ++i) {
      const double d = dirs[i];
      if (d != -1.0 && d != 0.0 && d != 1.0)
        throw std::invalid_argument("monotone_constraints: the direction of '" + names[i] +
                                    "' must be -1, 0 or 1");
      for (std::size_t f : column(names[i], "monotone_constraints")) {
        if (!features[f].ordered && d != 0.0)
          throw std::invalid_argument("monotone_constraints: '" + names[i] +
                                      "' is a categorical column, whose categories have no order");
        out.monotone[f] = static_cast<signed char>(d);
      }
    }
  }
  if (spec.strs.count("interaction_columns") != 0) {
    const std::vector<std::string>& names = spec.strings("interaction_columns");
    const std::vector<double>& set_of = spec.numbers("interaction_sets");
    if (set_of.size() != names.size())
      throw std::invalid_argument("interaction_constraints: one set per column");
    std::vector<std::vector<int>> sets_of(features.size());
    int n_sets = 0;
    for (std::size_t i = 0; i < names.size(); ++i) {
      const int set = static_cast<int>(set_of[i]);
      if (!(set_of[i] >= 0.0) || set != set_of[i] || set > 1000000)
        throw std::invalid_argument("interaction_constraints: sets are numbered from 0");
      n_sets = std::max(n_sets, set + 1);
      for (std::size_t f : column(names[i], "interaction_constraints")) sets_of[f].push_back(set);
    }
    std::map<std::string, int> own;  // a column in no set: a set of its own
    for (std::size_t f = 0; f < features.size(); ++f) {
      if (!sets_of[f].empty()) continue;
      auto it = own.find(features[f].column);
      if (it == own.end()) it = own.emplace(features[f].column, n_sets++).first;
      sets_of[f].push_back(it->second);
    }
    out.words = (n_sets + 63) / 64;
    const std::size_t w = static_cast<std::size_t>(out.words);
    out.sets.assign(features.size() * w, 0);
    for (std::size_t f = 0; f < features.size(); ++f)
      for (int set : sets_of[f])
        out.sets[f * w + static_cast<std::size_t>(set / 64)] |= std::uint64_t{1} << (set % 64);
  }
  return out;
}

}  // namespace trees
}  // namespace cppestimators
