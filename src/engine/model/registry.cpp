#include <cppestimators/model/registry.h>

#include <cppestimators/model/boosted_trees.h>
#include <cppestimators/model/combined_model.h>
#include <cppestimators/model/dnn_model.h>
#include <cppestimators/model/graph_model.h>
#include <cppestimators/model/hist_boosted_trees.h>
#include <cppestimators/model/linear_model.h>
#include <cppestimators/model/model.h>

namespace cppestimators {

const ModelRegistry& model_registry() {
  static const ModelRegistry registry = [] {
    ModelRegistry r("model");
    r.add<LinearModel>("linear")
        .add<DnnModel>("dnn")
        .add<CombinedModel>("combined")
        .add<BoostedTreesModel>("boosted_trees")
        .add<GraphModel>("graph");
    return r;
  }();
  return registry;
}

std::unique_ptr<Model> make_model(const Spec& spec, int units) {
  // boosted trees grow by TensorFlow's layers unless `growth` says otherwise
  if (spec.kind == "boosted_trees" && spec.str_or("growth", "tensorflow") != "tensorflow") {
    // its numeric columns read missing values (each split learns where they go)
    Spec with_missing = spec;
    auto it = with_missing.lists.find("feature_columns");
    if (it != with_missing.lists.end())
      for (Spec& c : it->second)
        if (c.kind == "numeric") c.nums["allow_missing"] = {1.0};
    return std::make_unique<HistBoostedTreesModel>(with_missing, units);
  }
  return model_registry().make(spec, units);
}

}  // namespace cppestimators
