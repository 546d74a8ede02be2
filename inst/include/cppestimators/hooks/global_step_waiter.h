// hook_global_step_waiter(): before the first step, waits until the global
// step (the session's own, or that of the latest checkpoint in model_dir,
// written by another process) reaches wait_until_step. Polls every 0.5 s and
// stays interruptible.
#pragma once
#include <cstdint>
#include <functional>
#include <string>

#include "../session/hook.h"

namespace cppestimators {

class HookEnv;
class Services;
struct Spec;

class GlobalStepWaiterHook : public Hook {
 public:
  // read_step returns the latest checkpoint's global step, or -1.
  GlobalStepWaiterHook(std::int64_t wait_until_step, std::function<std::int64_t()> read_step,
                       Services& svc, double poll_secs = 0.5);
  // spec: wait_until_step, model_dir (absent: only the session's own step counts)
  GlobalStepWaiterHook(const Spec& s, HookEnv& env);
  std::string constructor() const override;

  // Reads the global step of the latest checkpoint in `dir` (-1: none).
  static std::function<std::int64_t()> checkpoint_step(std::string dir);

  void begin(Session&) override;
  void before_run(RunContext& ctx) override;

 private:
  std::int64_t current(const Session& s) const;
  std::int64_t wait_;
  std::function<std::int64_t()> read_step_;
  Services& svc_;
  double poll_;
  bool started_ = false;
};

}  // namespace cppestimators
