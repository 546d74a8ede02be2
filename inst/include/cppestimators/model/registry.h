// The one place that maps a model spec's kind to its class. A new estimator
// family is a new Model header plus one line here.
#pragma once
#include <map>
#include <memory>
#include <string>

#include "boosted_trees.h"
#include "combined_model.h"
#include "dnn_model.h"
#include "linear_model.h"

namespace cppestimators {

inline std::unique_ptr<Model> make_model(const Spec& spec, int units) {
  using Factory = std::unique_ptr<Model> (*)(const Spec&, int);
  static const std::map<std::string, Factory> kinds = {
      {"linear", [](const Spec& s, int u) -> std::unique_ptr<Model> { return std::make_unique<LinearModel>(s, u); }},
      {"dnn", [](const Spec& s, int u) -> std::unique_ptr<Model> { return std::make_unique<DnnModel>(s, u); }},
      {"combined", [](const Spec& s, int u) -> std::unique_ptr<Model> { return std::make_unique<CombinedModel>(s, u); }},
      {"boosted_trees",
       [](const Spec& s, int u) -> std::unique_ptr<Model> { return std::make_unique<BoostedTreesModel>(s, u); }},
  };
  auto it = kinds.find(spec.kind);
  if (it == kinds.end()) throw std::invalid_argument("unknown kind of model: '" + spec.kind + "'");
  return it->second(spec, units);
}

}  // namespace cppestimators
