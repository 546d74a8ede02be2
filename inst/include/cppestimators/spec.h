// A plain description of one engine object (a feature column, an optimizer,
// a model): its kind, named numbers, named strings and nested specs. The R
// glue builds these from R lists; engine code reads them by name. Keeping
// specs generic means a new column, model or optimizer needs no new glue.
#pragma once
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace cppestimators {

struct Spec {
  std::string kind;
  std::map<std::string, std::vector<double>> nums;
  std::map<std::string, std::vector<std::string>> strs;
  std::map<std::string, std::vector<Spec>> lists;
  // Objects of the host the spec refers to (in R, closures), by their index
  // in a table the host keeps; the engine only hands them back to the host
  // (hooks/hook_env.h).
  std::map<std::string, std::size_t> handles;

  bool has(const std::string& field) const {
    return nums.count(field) || strs.count(field) || lists.count(field) || handles.count(field);
  }
  bool has_handle(const std::string& field) const { return handles.count(field) != 0; }
  std::size_t handle(const std::string& field) const {
    auto it = handles.find(field);
    if (it == handles.end()) missing(field);
    return it->second;
  }
  const std::vector<double>& numbers(const std::string& field) const {
    auto it = nums.find(field);
    if (it == nums.end()) missing(field);
    return it->second;
  }
  double num(const std::string& field) const {
    const auto& v = numbers(field);
    if (v.size() != 1) missing(field);
    return v[0];
  }
  double num_or(const std::string& field, double dflt) const {
    auto it = nums.find(field);
    return (it == nums.end() || it->second.size() != 1) ? dflt : it->second[0];
  }
  std::int64_t int_or(const std::string& field, std::int64_t dflt) const {
    return static_cast<std::int64_t>(num_or(field, static_cast<double>(dflt)));
  }
  bool flag_or(const std::string& field, bool dflt) const {
    return num_or(field, dflt ? 1.0 : 0.0) != 0.0;
  }
  const std::vector<std::string>& strings(const std::string& field) const {
    auto it = strs.find(field);
    if (it == strs.end()) missing(field);
    return it->second;
  }
  const std::string& str(const std::string& field) const {
    const auto& v = strings(field);
    if (v.size() != 1) missing(field);
    return v[0];
  }
  std::string str_or(const std::string& field, const std::string& dflt) const {
    auto it = strs.find(field);
    return (it == strs.end() || it->second.size() != 1) ? dflt : it->second[0];
  }
  const std::vector<Spec>& children(const std::string& field) const {
    static const std::vector<Spec> none;
    auto it = lists.find(field);
    return it == lists.end() ? none : it->second;
  }
  const Spec& child(const std::string& field) const {
    const auto& v = children(field);
    if (v.size() != 1) missing(field);
    return v[0];
  }

 private:
  [[noreturn]] void missing(const std::string& field) const {
    throw std::invalid_argument("internal: the spec of '" + kind + "' lacks a valid '" + field +
                                "'");
  }
};

}  // namespace cppestimators
