// The one place that maps head names to heads. A new head is a new file in
// this folder plus one row in the table below.
#pragma once
#include <memory>
#include <stdexcept>
#include <string>

#include "binary.h"
#include "head.h"
#include "multi_class.h"
#include "regression.h"

namespace cppestimators {

// n is the label dimension (regression) or the number of classes (classifiers).
// Throws std::invalid_argument for an unknown name, naming the known ones.
inline std::unique_ptr<Head> make_head(const std::string& name, int n) {
  using Factory = std::unique_ptr<Head> (*)(int);
  static const struct {
    const char* name;
    Factory make;
  } table[] = {
      {"regression", [](int d) -> std::unique_ptr<Head> { return std::make_unique<RegressionHead>(d); }},
      {"binary", [](int) -> std::unique_ptr<Head> { return std::make_unique<BinaryHead>(); }},
      {"multi_class",
       [](int k) -> std::unique_ptr<Head> { return std::make_unique<MultiClassHead>(k); }},
  };
  std::string known;
  for (const auto& e : table) {
    if (name == e.name) return e.make(n);
    known += std::string(known.empty() ? "'" : ", '") + e.name + "'";
  }
  throw std::invalid_argument("unknown head '" + name + "'; known heads are " + known);
}

}  // namespace cppestimators
