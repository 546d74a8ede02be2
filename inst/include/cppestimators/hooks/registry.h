// The hook family: a hook spec's kind -> the built-in hook. A new native
// hook is a new header in this folder (a class with a
// `(const Spec&, HookEnv&)` constructor) and its source under
// src/engine/hooks/, plus one `add()` line in src/engine/hooks/registry.cpp,
// and its R constructor in R/hook_<name>.R. What a hook needs from outside
// the engine comes through the HookEnv.
#pragma once
#include <memory>
#include <vector>

#include "../registry.h"
#include "../session/hook.h"

namespace cppestimators {

class HookEnv;

using HookRegistry = Registry<Hook, HookEnv&>;

const HookRegistry& hook_registry();

std::unique_ptr<Hook> make_hook(const Spec& spec, HookEnv& env);

// The hooks of a loop, built in order.
std::vector<std::unique_ptr<Hook>> make_hooks(const std::vector<Spec>& specs, HookEnv& env);

}  // namespace cppestimators
