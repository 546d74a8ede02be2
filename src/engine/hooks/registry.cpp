#include <cppestimators/hooks/registry.h>

#include <cppestimators/hooks/checkpoint_saver.h>
#include <cppestimators/hooks/csv_logger.h>
#include <cppestimators/hooks/early_stopping.h>
#include <cppestimators/hooks/global_step_waiter.h>
#include <cppestimators/hooks/history_saver.h>
#include <cppestimators/hooks/hook_env.h>
#include <cppestimators/hooks/in_memory_evaluator.h>
#include <cppestimators/hooks/logging_tensor.h>
#include <cppestimators/hooks/nan_tensor.h>
#include <cppestimators/hooks/progress_bar.h>
#include <cppestimators/hooks/reduce_lr_on_plateau.h>
#include <cppestimators/hooks/step_counter.h>
#include <cppestimators/hooks/stop_at_step.h>
#include <cppestimators/hooks/summary_saver.h>

namespace cppestimators {

const HookRegistry& hook_registry() {
  static const HookRegistry registry = [] {
    HookRegistry r("hook");
    r.add<ProgressBarHook>("progress_bar")
        .add<HistorySaverHook>("history_saver")
        .add<StopAtStepHook>("stop_at_step")
        .add<StopAfterStepsHook>("stop_after_steps")
        .add<LoggingTensorHook>("logging_tensor")
        .add<NanTensorHook>("nan_tensor")
        .add<StepCounterHook>("step_counter")
        .add<SummarySaverHook>("summary_saver")
        .add<CheckpointSaverHook>("checkpoint_saver")
        .add<GlobalStepWaiterHook>("global_step_waiter")
        .add<InMemoryEvaluatorHook>("in_memory_evaluator")
        .add<EarlyStoppingHook>("early_stopping")
        .add<ReduceLrOnPlateauHook>("reduce_lr_on_plateau")
        .add<CsvLoggerHook>("csv_logger")
        // callbacks supplied by the host (session_run_hook() in R)
        .add("session_run_hook", [](const Spec& s, HookEnv& env) { return env.custom_hook(s); });
    return r;
  }();
  return registry;
}

std::unique_ptr<Hook> make_hook(const Spec& spec, HookEnv& env) {
  return hook_registry().make(spec, env);
}

std::vector<std::unique_ptr<Hook>> make_hooks(const std::vector<Spec>& specs, HookEnv& env) {
  std::vector<std::unique_ptr<Hook>> out;
  out.reserve(specs.size());
  for (const Spec& s : specs) out.push_back(make_hook(s, env));
  return out;
}

}  // namespace cppestimators
