// The hook family: a hook spec's kind -> the built-in hook. A new native
// hook is a new header in this folder (a class with a
// `(const Spec&, HookEnv&)` constructor) plus one `add()` line here, and its
// R constructor in R/hook_<name>.R. What a hook needs from outside the
// engine comes through the HookEnv.
#pragma once
#include <memory>
#include <vector>

#include "../registry.h"
#include "checkpoint_saver.h"
#include "csv_logger.h"
#include "early_stopping.h"
#include "global_step_waiter.h"
#include "history_saver.h"
#include "hook.h"
#include "hook_env.h"
#include "in_memory_evaluator.h"
#include "logging_tensor.h"
#include "nan_tensor.h"
#include "progress_bar.h"
#include "reduce_lr_on_plateau.h"
#include "step_counter.h"
#include "stop_at_step.h"
#include "summary_saver.h"

namespace cppestimators {

using HookRegistry = Registry<Hook, HookEnv&>;

inline const HookRegistry& hook_registry() {
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

inline std::unique_ptr<Hook> make_hook(const Spec& spec, HookEnv& env) {
  return hook_registry().make(spec, env);
}

// The hooks of a loop, built in order.
inline std::vector<std::unique_ptr<Hook>> make_hooks(const std::vector<Spec>& specs, HookEnv& env) {
  std::vector<std::unique_ptr<Hook>> out;
  out.reserve(specs.size());
  for (const Spec& s : specs) out.push_back(make_hook(s, env));
  return out;
}

}  // namespace cppestimators
