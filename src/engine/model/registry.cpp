#include <cppestimators/model/registry.h>

#include <cppestimators/model/boosted_trees.h>
#include <cppestimators/model/combined_model.h>
#include <cppestimators/model/dnn_model.h>
#include <cppestimators/model/graph_model.h>
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
  return model_registry().make(spec, units);
}

}  // namespace cppestimators
