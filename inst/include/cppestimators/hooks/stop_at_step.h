// hook_stop_at_step(num_steps, last_step): requests a stop after the step
// that brings the global step to last_step. num_steps counts from the global
// step the session started at.
#pragma once
#include <cstdint>
#include <string>

#include "../session/hook.h"

namespace cppestimators {

class HookEnv;
struct Spec;

class StopAtStepHook : public Hook {
 public:
  // Exactly one of num_steps / last_step is >= 0.
  StopAtStepHook(std::int64_t num_steps, std::int64_t last_step);
  StopAtStepHook(const Spec& s, HookEnv&);
  std::string constructor() const override;
  void after_create_session(Session& s) override;
  void after_run(RunContext& ctx) override;

 private:
  std::int64_t num_steps_, last_step_;
};

// Evaluation's "stop after N evals": counts this session's steps.
class StopAfterStepsHook : public Hook {
 public:
  explicit StopAfterStepsHook(std::int64_t steps);
  StopAfterStepsHook(const Spec& s, HookEnv&);
  std::string constructor() const override;
  void after_run(RunContext& ctx) override;

 private:
  std::int64_t steps_;
};

}  // namespace cppestimators
