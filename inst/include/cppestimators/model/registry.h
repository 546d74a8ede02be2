// The model family: a model spec's kind -> its class. A new estimator family
// is a new Model header plus one `add()` line in src/engine/model/registry.cpp.
// Models are built from their spec and the number of logits their head needs.
#pragma once
#include <memory>

#include "../registry.h"
#include "../spec.h"

namespace cppestimators {

class Model;

using ModelRegistry = Registry<Model, int>;

const ModelRegistry& model_registry();

std::unique_ptr<Model> make_model(const Spec& spec, int units);

}  // namespace cppestimators
