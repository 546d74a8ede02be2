#include <cppestimators/hooks/step_counter.h>

#include <cstdio>

#include <cppestimators/hooks/hook_env.h>
#include <cppestimators/io/summary_sink.h>
#include <cppestimators/services.h>
#include <cppestimators/session/session.h>
#include <cppestimators/spec.h>

namespace cppestimators {

StepCounterHook::StepCounterHook(std::int64_t every_n_steps, double every_n_secs, Services& svc,
                                 bool verbose, SummarySink* sink)
    : timer_(every_n_secs, every_n_steps), svc_(svc), verbose_(verbose), sink_(sink) {}

StepCounterHook::StepCounterHook(const Spec& s, HookEnv& env)
    : StepCounterHook(s.int_or("every_n_steps", -1), s.num_or("every_n_secs", -1), env.services(),
                      s.flag_or("verbose", true), env.events(s, "output_dir")) {}

std::string StepCounterHook::constructor() const { return "hook_step_counter"; }

void StepCounterHook::begin(Session&) { timer_.reset(); }

void StepCounterHook::after_run(RunContext& ctx) {
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

}  // namespace cppestimators
