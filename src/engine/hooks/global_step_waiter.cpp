#include <cppestimators/hooks/global_step_waiter.h>

#include <algorithm>
#include <chrono>
#include <thread>
#include <utility>

#include <cppestimators/hooks/hook_env.h>
#include <cppestimators/io/checkpoint.h>
#include <cppestimators/services.h>
#include <cppestimators/session/session.h>
#include <cppestimators/spec.h>

namespace cppestimators {

GlobalStepWaiterHook::GlobalStepWaiterHook(std::int64_t wait_until_step,
                                           std::function<std::int64_t()> read_step, Services& svc,
                                           double poll_secs)
    : wait_(wait_until_step), read_step_(std::move(read_step)), svc_(svc), poll_(poll_secs) {}

GlobalStepWaiterHook::GlobalStepWaiterHook(const Spec& s, HookEnv& env)
    : GlobalStepWaiterHook(s.int_or("wait_until_step", 0),
                           checkpoint_step(s.str_or("model_dir", "")), env.services()) {}

std::string GlobalStepWaiterHook::constructor() const { return "hook_global_step_waiter"; }

std::function<std::int64_t()> GlobalStepWaiterHook::checkpoint_step(std::string dir) {
  return [dir]() -> std::int64_t {
    if (dir.empty()) return -1;
    const std::string path = latest_checkpoint(dir);
    if (path.empty()) return -1;
    return read_checkpoint_file(path).global_step;
  };
}

void GlobalStepWaiterHook::begin(Session&) { started_ = wait_ <= 0; }

void GlobalStepWaiterHook::before_run(RunContext& ctx) {
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

std::int64_t GlobalStepWaiterHook::current(const Session& s) const {
  const std::int64_t ckpt = read_step_ ? read_step_() : -1;
  return std::max<std::int64_t>(s.global_step(), ckpt);
}

}  // namespace cppestimators
