#include <cppestimators/model/optimizers/registry.h>

#include <vector>

#include <cppestimators/model/optimizers/adagrad.h>
#include <cppestimators/model/optimizers/adam.h>
#include <cppestimators/model/optimizers/ftrl.h>
#include <cppestimators/model/optimizers/momentum.h>
#include <cppestimators/model/optimizers/optimizer.h>
#include <cppestimators/model/optimizers/rmsprop.h>
#include <cppestimators/model/optimizers/sgd.h>

namespace cppestimators {

const OptimizerRegistry& optimizer_registry() {
  static const OptimizerRegistry registry = [] {
    OptimizerRegistry r("optimizer",
                        [](const std::string& kind, const std::vector<std::string>& known) {
                          return "Unsupported optimizer name: " + kind +  // TensorFlow's wording
                                 ". Supported names are: " + OptimizerRegistry::join(known);
                        });
    r.add<AdagradOptimizer>("Adagrad")
        .add<AdamOptimizer>("Adam")
        .add<FtrlOptimizer>("Ftrl")
        .add<MomentumOptimizer>("Momentum")
        .add<RmsPropOptimizer>("RMSProp")
        .add<SgdOptimizer>("SGD");
    return r;
  }();
  return registry;
}

std::unique_ptr<Optimizer> make_optimizer(const Spec& spec, const std::string& scope) {
  return optimizer_registry().make(spec, scope);
}

}  // namespace cppestimators
