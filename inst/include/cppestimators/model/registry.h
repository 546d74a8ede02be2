// The model family: a model spec's kind -> its class. A new estimator family
// is a new Model header plus one `add()` line here. Models are built from
// their spec and the number of logits their head needs.
#pragma once
#include <memory>

#include "../registry.h"
#include "boosted_trees.h"
#include "combined_model.h"
#include "dnn_model.h"
#include "linear_model.h"

namespace cppestimators {

using ModelRegistry = Registry<Model, int>;

inline const ModelRegistry& model_registry() {
  static const ModelRegistry registry = [] {
    ModelRegistry r("model");
    r.add<LinearModel>("linear")
        .add<DnnModel>("dnn")
        .add<CombinedModel>("combined")
        .add<BoostedTreesModel>("boosted_trees");
    return r;
  }();
  return registry;
}

inline std::unique_ptr<Model> make_model(const Spec& spec, int units) {
  return model_registry().make(spec, units);
}

}  // namespace cppestimators
