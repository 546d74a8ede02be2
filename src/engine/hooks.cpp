// The engine's hooks family as one translation unit of the R package: every
// source under src/engine/hooks/, included once. R's build compiles this file
// (src/Makevars lists engine/hooks.o), so the headers these sources share
// are parsed once per family instead of once per file; tools/engine/
// CMakeLists.txt reads the lines below and compiles each source on its own,
// and fails when a source under src/engine/hooks/ is missing here.
// A new source of the family: one line below, kept sorted.

#include "hooks/checkpoint_saver.cpp"
#include "hooks/csv_logger.cpp"
#include "hooks/early_stopping.cpp"
#include "hooks/eval_records.cpp"
#include "hooks/global_step_waiter.cpp"
#include "hooks/history_saver.cpp"
#include "hooks/hook.cpp"
#include "hooks/hook_env.cpp"
#include "hooks/in_memory_evaluator.cpp"
#include "hooks/logging_tensor.cpp"
#include "hooks/nan_tensor.cpp"
#include "hooks/progress_bar.cpp"
#include "hooks/reduce_lr_on_plateau.cpp"
#include "hooks/registry.cpp"
#include "hooks/step_counter.cpp"
#include "hooks/stop_at_step.cpp"
#include "hooks/summary_saver.cpp"
#include "hooks/timer.cpp"
