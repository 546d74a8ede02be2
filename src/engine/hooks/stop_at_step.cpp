#include <cppestimators/hooks/stop_at_step.h>

#include <stdexcept>

#include <cppestimators/session/session.h>
#include <cppestimators/spec.h>

namespace cppestimators {

StopAtStepHook::StopAtStepHook(std::int64_t num_steps, std::int64_t last_step)
    : num_steps_(num_steps), last_step_(last_step) {
  if ((num_steps < 0) == (last_step < 0))
    throw std::invalid_argument("One of num_steps or last_step must be specified.");
}

StopAtStepHook::StopAtStepHook(const Spec& s, HookEnv&)
    : StopAtStepHook(s.int_or("num_steps", -1), s.int_or("last_step", -1)) {}

std::string StopAtStepHook::constructor() const { return "hook_stop_at_step"; }

void StopAtStepHook::after_create_session(Session& s) {
  if (num_steps_ >= 0) last_step_ = s.global_step() + num_steps_;
}

void StopAtStepHook::after_run(RunContext& ctx) {
  if (ctx.session->global_step() >= last_step_) ctx.request_stop();
}

StopAfterStepsHook::StopAfterStepsHook(std::int64_t steps) : steps_(steps) {}

StopAfterStepsHook::StopAfterStepsHook(const Spec& s, HookEnv&)
    : StopAfterStepsHook(s.int_or("steps", 1)) {}

std::string StopAfterStepsHook::constructor() const { return "stop_after_evals"; }

void StopAfterStepsHook::after_run(RunContext& ctx) {
  if (ctx.session->steps_run() >= steps_) ctx.request_stop();
}

}  // namespace cppestimators
