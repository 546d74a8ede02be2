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
#include "hook.h"

namespace cppestimators {

class GlobalStepWaiterHook : public Hook {
 public:
  // read_step returns the latest checkpoint's global step, or -1.
  GlobalStepWaiterHook(std::int64_t wait_until_step, std::function<std::int64_t()> read_step,
                       Services& svc, double poll_secs = 0.5)
      : wait_(wait_until_step), read_step_(std::move(read_step)), svc_(svc), poll_(poll_secs) {}
  std::string kind() const override { return "hook_global_step_waiter"; }

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
