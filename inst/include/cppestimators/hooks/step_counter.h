// hook_step_counter(): every N global steps (or N seconds) logs
// "global_step/sec: <rate>" and writes it as a summary when a writer is set.
// The first trigger only starts the clock.
#pragma once
#include <cstdio>
#include <string>

#include "../services.h"
#include "hook.h"
#include "hook_env.h"
#include "summary_sink.h"
#include "timer.h"

namespace cppestimators {

class StepCounterHook : public Hook {
 public:
  StepCounterHook(std::int64_t every_n_steps, double every_n_secs, Services& svc, bool verbose,
                  SummarySink* sink)
      : timer_(every_n_secs, every_n_steps), svc_(svc), verbose_(verbose), sink_(sink) {}
  // spec: every_n_steps, every_n_secs, verbose, output_dir (summaries; absent: none)
  StepCounterHook(const Spec& s, HookEnv& env)
      : StepCounterHook(s.int_or("every_n_steps", -1), s.num_or("every_n_secs", -1), env.services(),
                        s.flag_or("verbose", true), env.events(s, "output_dir")) {}
  std::string kind() const override { return "hook_step_counter"; }

  void begin(Session&) override { timer_.reset(); }
  void after_run(RunContext& ctx) override {
    const std::int64_t step = ctx.session->global_step();
    if (!timer_.should_trigger(step, timer_.by_time() ? svc_.now() : 0.0)) return;
    const double now = svc_.now();
    double secs;
    std::int64_t steps;
    timer_.update(step, now, &secs, &steps);
    if (steps < 0 || !(secs > 0)) return;
    const double rate = steps / secs;
    if (sink_) sink_->scalar(step, "global_step/sec", rate);
    if (verbose_) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "global_step/sec: %g", rate);
      svc_.message(buf);
    }
  }

 private:
  SecondOrStepTimer timer_;
  Services& svc_;
  bool verbose_;
  SummarySink* sink_;
};

}  // namespace cppestimators
