// Builders shared by the engine's Catch tests: specs as the R layer makes
// them, and datasets over plain C++ vectors.
#pragma once
#include <cppestimators/cppestimators.h>

#include <string>
#include <string_view>
#include <vector>

namespace cppestimators {
namespace testing {

inline Spec column(const std::string& kind, const std::string& name) {
  Spec s;
  s.kind = kind;
  s.strs["name"] = {name};
  return s;
}
inline Spec numeric(const std::string& key, int width = 1) {
  Spec s = column("numeric", key);
  s.strs["key"] = {key};
  s.nums["width"] = {static_cast<double>(width)};
  return s;
}

// An optimizer spec with TF 1.x defaults (as R's optimizer_*() fill them).
inline Spec optimizer(const std::string& name, double lr) {
  Spec s;
  s.kind = name;
  s.nums = {{"learning_rate", {lr}}, {"initial_accumulator_value", {0.1}},
            {"learning_rate_power", {-0.5}}, {"l1_regularization_strength", {0.0}},
            {"l2_regularization_strength", {0.0}}, {"l2_shrinkage_regularization_strength", {0.0}},
            {"beta1", {0.9}}, {"beta2", {0.999}}, {"decay", {0.9}}, {"momentum", {0.0}}};
  s.nums["epsilon"] = {name == "Adam" ? 1e-8 : 1e-10};
  return s;
}

inline EstimatorSpec linear(std::vector<Spec> columns, const std::string& opt = "SGD", double lr = 0.01,
                            const std::string& head = "regression", int head_n = 1) {
  EstimatorSpec e;
  e.model.kind = "linear";
  e.model.lists["feature_columns"] = std::move(columns);
  e.head = head;
  e.head_n = head_n;
  e.optimizers.push_back(optimizer(opt, lr));
  return e;
}

inline bool read_std_string(const void* v, std::int64_t i, std::string_view* out) {
  const auto& vec = *static_cast<const std::vector<std::string>*>(v);
  if (vec[static_cast<std::size_t>(i)] == "<NA>") return false;
  *out = vec[static_cast<std::size_t>(i)];
  return true;
}

inline ColumnView doubles(const std::string& key, const std::vector<double>& x, int width = 1) {
  ColumnView c;
  c.key = key;
  c.type = ColumnType::Double;
  c.n = static_cast<std::int64_t>(x.size()) / width;
  c.width = width;
  c.doubles = x.data();
  return c;
}
inline ColumnView ints(const std::string& key, const std::vector<int>& x) {
  ColumnView c;
  c.key = key;
  c.type = ColumnType::Integer;
  c.n = static_cast<std::int64_t>(x.size());
  c.ints = x.data();
  return c;
}
// "<NA>" marks a missing value.
inline ColumnView strings(const std::string& key, const std::vector<std::string>& x) {
  ColumnView c;
  c.key = key;
  c.type = ColumnType::String;
  c.n = static_cast<std::int64_t>(x.size());
  c.strings = &x;
  c.read_string = &read_std_string;
  return c;
}

// The ids of every row of one column over rows 0..n-1, pruned as models see them.
inline std::vector<std::vector<std::int64_t>> ids_of(const Spec& spec, const Dataset& data) {
  auto t = make_transform(spec);
  auto bound = t->bind_ids(data);
  SparseIds ids;
  ids.reserve(static_cast<int>(data.n), bound->max_ids_per_row());
  std::vector<int> rows(static_cast<std::size_t>(data.n));
  for (std::size_t i = 0; i < rows.size(); ++i) rows[i] = static_cast<int>(i);
  bound->gather(rows.data(), static_cast<int>(rows.size()), ids);
  ids.prune();
  std::vector<std::vector<std::int64_t>> out(rows.size());
  for (int r = 0; r < ids.rows(); ++r)
    for (int k = ids.begin(r); k < ids.end(r); ++k) out[static_cast<std::size_t>(r)].push_back(ids.id(k));
  return out;
}

}  // namespace testing
}  // namespace cppestimators
