#include <cppestimators/hooks/hook_env.h>

#include <stdexcept>
#include <utility>

#include <cppestimators/hooks/checkpoint_saver.h>

namespace cppestimators {

EventFileSink* HookEnv::events(const Spec& spec, const std::string& field) {
  const std::string dir = spec.str_or(field, "");
  return dir.empty() ? nullptr : writers().get(dir);
}

TensorFormatter HookEnv::formatter(const Spec& spec, const std::string& field) {
  if (spec.has_handle(field)) unsupported("a formatter");
  return nullptr;
}

EvaluationFn HookEnv::evaluation(const Spec& spec, const std::string& field) {
  if (spec.has_handle(field)) unsupported("an evaluation");
  throw std::invalid_argument("internal: the spec of '" + spec.kind + "' lacks '" + field + "'");
}

std::unique_ptr<CheckpointListener> HookEnv::checkpoint_listener(const Spec&) {
  unsupported("a checkpoint listener");
}

std::unique_ptr<Hook> HookEnv::custom_hook(const Spec&) { unsupported("a custom hook"); }

void HookEnv::unsupported(const std::string& what) {
  throw std::invalid_argument("this environment cannot run " + what + " of the host");
}

PlainHookEnv::PlainHookEnv(Services& svc, std::string hostname)
    : svc_(svc), writers_(std::move(hostname)) {}

Services& PlainHookEnv::services() { return svc_; }

SummaryWriters& PlainHookEnv::writers() { return writers_; }

}  // namespace cppestimators
