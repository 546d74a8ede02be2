// Early stopping (tf.estimator.experimental.stop_if_*): stop training when an
// evaluation metric crosses a threshold or stops improving. Results come
// from an in-memory evaluator of the same estimator when one is attached
// (each result is checked as soon as it exists), otherwise from the event
// files in the evaluation directory, re-read on a timer (the first step,
// then every N steps or seconds).
//
// With restore_best, the weights of the best evaluation are kept and, at the
// end, restored (the global step stays) and checkpointed.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "../io/checkpoint.h"
#include "eval_records.h"
#include "../session/hook.h"
#include "timer.h"

namespace cppestimators {

class HookEnv;
class Services;
struct Spec;

enum class StopRule { Higher, Lower, NoIncrease, NoDecrease };

struct EarlyStoppingSpec {
  StopRule rule = StopRule::NoDecrease;
  std::string metric;
  double threshold = 0;                // Higher / Lower
  std::int64_t max_steps_without = 0;  // NoIncrease / NoDecrease
  std::int64_t min_steps = 0;
  double min_delta = 0;
  double every_secs = -1;
  std::int64_t every_steps = -1;
  std::string eval_dir;
  bool restore_best = false;
  std::string checkpoint_dir;  // where the restored weights are saved
  int keep_checkpoint_max = 5;
  // follow the first in-memory evaluator of the loop (found at begin())
  bool follow_evaluator = false;
};

// The rule a stop_if_*() name stands for; an unknown one is an error.
StopRule stop_rule(const std::string& rule);

// The spec of an early_stopping hook, as the R layer writes it.
EarlyStoppingSpec early_stopping_spec(const Spec& s);

// step -> value of one metric, read from every event file of a directory.
std::vector<std::pair<std::int64_t, double>> read_metric_series(const std::string& dir,
                                                                const std::string& metric);

class EarlyStoppingHook : public Hook, public EvalObserver {
 public:
  EarlyStoppingHook(EarlyStoppingSpec spec, Services& svc);
  EarlyStoppingHook(const Spec& s, HookEnv& env);
  std::string constructor() const override;

  // Uses an in-memory evaluator's results instead of the event files.
  void attach(EvalRecords* records);

  void begin(Session& s) override;
  void after_run(RunContext& ctx) override;
  void on_evaluation(const EvalRecord& record, Session& s, RunContext* ctx) override;
  void end(Session& s) override;

 private:
  bool lower_is_better() const;
  bool improves(double v) const;

  // Errors found while reading another hook's evaluation are this hook's:
  // the session reports this hook, in phase "on_evaluation".
  void blame_self(Session& s) const;

  // The rule of TF's stop_if_* predicates over the results so far.
  bool should_stop();

  void stop(std::int64_t step, RunContext* ctx);

  EarlyStoppingSpec spec_;
  SecondOrStepTimer timer_;
  Services& svc_;
  EvalRecords* in_memory_ = nullptr;
  std::vector<std::pair<std::int64_t, double>> series_;
  bool pending_stop_ = false;
  bool stopped_ = false;
  bool has_best_ = false;
  double best_value_ = 0;
  std::int64_t best_step_ = 0;
  CheckpointData best_state_;
};

}  // namespace cppestimators
