// hook_global_step_waiter(): before the first step, waits until the global
// step (the session's own, or that of the latest checkpoint in model_dir,
// written by another process) reaches wait_until_step. Polls every 0.5 s and
// stays interruptible.
#pragma once
#include <chrono>
#include <functional>
#include <string>
#include <thread>

#include "../services.h"
#include "../io/checkpoint.h"
#include "hook.h"
#include "hook_env.h"

namespace cppestimators {

class GlobalStepWaiterHook : public Hook {
 public:
  // read_step returns the latest checkpoint's global step, or -1.
  GlobalStepWaiterHook(std::int64_t wait_until_step, std::function<std::int64_t()> read_step,
                       Services& svc, double poll_secs = 0.5)
      : wait_(wait_until_step), read_step_(std::move(read_step)), svc_(svc), poll_(poll_secs) {}
  // spec: wait_until_step, model_dir (absent: only the session's own step counts)
  GlobalStepWaiterHook(const Spec& s, HookEnv& env)
      : GlobalStepWaiterHook(s.int_or("wait_until_step", 0),
                             checkpoint_step(s.str_or("model_dir", "")), env.services()) {}
  std::string kind() const override { return "hook_global_step_waiter"; }

  // Reads the global step of the latest checkpoint in `dir` (-1: none).
  static std::function<std::int64_t()> checkpoint_step(std::string dir) {
    return [dir]() -> std::int64_t {
      if (dir.empty()) return -1;
      const std::string path = latest_checkpoint(dir);
      if (path.empty()) return -1;
      return read_checkpoint_file(path).global_step;
    };
  }

  void begin(Session&) override { started_ = wait_ <= 0; }
  void before_run(RunContext& ctx) override {
    if (started_) return;
    svc_.message("Waiting for global step " + std::to_string(wait_) + " before starting training.");
    std::int64_t last_logged = current(*ctx.session);
    for (;;) {
      const std::int64_t step = current(*ctx.session);
      if (step >= wait_) break;
      if (step - last_logged > 1000) {
        svc_.message("Waiting for global step " + std::to_string(wait_) +
                     " before starting training. Current step is " + std::to_string(step) + ".");
        last_logged = step;
      }
      const double until = svc_.now() + poll_;
      while (svc_.now() < until) {
        if (svc_.interrupt_requested()) throw Interrupted();
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
    }
    started_ = true;
  }

 private:
  std::int64_t current(const Session& s) const {
    const std::int64_t ckpt = read_step_ ? read_step_() : -1;
    return std::max<std::int64_t>(s.global_step(), ckpt);
  }
  std::int64_t wait_;
  std::function<std::int64_t()> read_step_;
  Services& svc_;
  double poll_;
  bool started_ = false;
};

}  // namespace cppestimators
