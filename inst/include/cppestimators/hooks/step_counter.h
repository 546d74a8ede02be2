// hook_step_counter(): every N global steps (or N seconds) logs
// "global_step/sec: <rate>" and writes it as a summary when a writer is set.
// The first trigger only starts the clock.
#pragma once
#include <cstdint>
#include <string>

#include "../session/hook.h"
#include "timer.h"

namespace cppestimators {

class HookEnv;
class Services;
class SummarySink;
struct Spec;

class StepCounterHook : public Hook {
 public:
  StepCounterHook(std::int64_t every_n_steps, double every_n_secs, Services& svc, bool verbose,
                  SummarySink* sink);
  // spec: every_n_steps, every_n_secs, verbose, output_dir (summaries; absent: none)
  StepCounterHook(const Spec& s, HookEnv& env);
  std::string constructor() const override;

  void begin(Session&) override;
  void after_run(RunContext& ctx) override;

 private:
  SecondOrStepTimer timer_;
  Services& svc_;
  bool verbose_;
  SummarySink* sink_;
};

}  // namespace cppestimators
