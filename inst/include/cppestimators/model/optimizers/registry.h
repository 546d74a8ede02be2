// The optimizer family: an optimizer's kind -> its class. A new optimizer is
// a new header plus one `add()` line here (and its R constructor, which
// holds its defaults). Optimizers are built from their spec and the scope
// their slot variables are named under.
#pragma once
#include <memory>
#include <string>

#include "../../registry.h"
#include "adagrad.h"
#include "adam.h"
#include "ftrl.h"
#include "rmsprop.h"
#include "sgd.h"

namespace cppestimators {

using OptimizerRegistry = Registry<Optimizer, const std::string&>;

inline const OptimizerRegistry& optimizer_registry() {
  static const OptimizerRegistry registry = [] {
    OptimizerRegistry r("optimizer",
                        [](const std::string& kind, const std::vector<std::string>& known) {
                          return "Unsupported optimizer name: " + kind +  // TensorFlow's wording
                                 ". Supported names are: " + OptimizerRegistry::join(known);
                        });
    r.add<AdagradOptimizer>("Adagrad")
        .add<AdamOptimizer>("Adam")
        .add<FtrlOptimizer>("Ftrl")
        .add<RmsPropOptimizer>("RMSProp")
        .add<SgdOptimizer>("SGD");
    return r;
  }();
  return registry;
}

inline std::unique_ptr<Optimizer> make_optimizer(const Spec& spec, const std::string& scope = "") {
  return optimizer_registry().make(spec, scope);
}

}  // namespace cppestimators
