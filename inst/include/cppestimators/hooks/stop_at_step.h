// hook_stop_at_step(num_steps, last_step): requests a stop after the step
// that brings the global step to last_step. num_steps counts from the global
// step the session started at.
#pragma once
#include <cstdint>
#include <stdexcept>

#include "hook.h"
#include "hook_env.h"

namespace cppestimators {

class StopAtStepHook : public Hook {
 public:
  // Exactly one of num_steps / last_step is >= 0.
  StopAtStepHook(std::int64_t num_steps, std::int64_t last_step)
      : num_steps_(num_steps), last_step_(last_step) {
    if ((num_steps < 0) == (last_step < 0))
      throw std::invalid_argument("One of num_steps or last_step must be specified.");
  }
  StopAtStepHook(const Spec& s, HookEnv&)
      : StopAtStepHook(s.int_or("num_steps", -1), s.int_or("last_step", -1)) {}
  std::string kind() const override { return "hook_stop_at_step"; }
  void after_create_session(Session& s) override {
    if (num_steps_ >= 0) last_step_ = s.global_step() + num_steps_;
  }
  void after_run(RunContext& ctx) override {
    if (ctx.session->global_step() >= last_step_) ctx.request_stop();
  }

 private:
  std::int64_t num_steps_, last_step_;
};

// Evaluation's "stop after N evals": counts this session's steps.
class StopAfterStepsHook : public Hook {
 public:
  explicit StopAfterStepsHook(std::int64_t steps) : steps_(steps) {}
  StopAfterStepsHook(const Spec& s, HookEnv&) : StopAfterStepsHook(s.int_or("steps", 1)) {}
  std::string kind() const override { return "stop_after_evals"; }
  void after_run(RunContext& ctx) override {
    if (ctx.session->steps_run() >= steps_) ctx.request_stop();
  }

 private:
  std::int64_t steps_;
};

}  // namespace cppestimators
