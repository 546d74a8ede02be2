// The optimizer family: an optimizer's kind -> its class. A new optimizer is
// a new header plus one `add()` line in src/engine/model/optimizers/registry.cpp
// (and its R constructor, which holds its defaults). Optimizers are built
// from their spec and the scope their slot variables are named under.
#pragma once
#include <memory>
#include <string>

#include "../../registry.h"
#include "../../spec.h"

namespace cppestimators {

class Optimizer;

using OptimizerRegistry = Registry<Optimizer, const std::string&>;

const OptimizerRegistry& optimizer_registry();

std::unique_ptr<Optimizer> make_optimizer(const Spec& spec, const std::string& scope = "");

}  // namespace cppestimators
