// hook_reduce_lr_on_plateau(): lowers the learning rate when a metric stops
// improving (keras' ReduceLROnPlateau). Each "check" is one value of the
// metric: an evaluation of an in-memory evaluator of the same train() call
// (as it happens), a new evaluation found in the event files of eval_dir
// (re-read every N steps), or else the training tensor `metric` averaged
// over each window of N steps. The rate is lowered through the estimator's
// learning-rate scale, so it multiplies every optimizer's (scheduled or
// constant) rate and is checkpointed with the weights.
#pragma once
#include <cstdint>
#include <string>

#include "../session/tensors.h"
#include "eval_records.h"
#include "../session/hook.h"
#include "timer.h"

namespace cppestimators {

class HookEnv;
class Services;
struct Spec;

// The decision rule alone: feed it one value per check with the current
// rate; it answers the rate to use from now on.
class PlateauRule {
 public:
  PlateauRule(double factor, std::int64_t patience, double min_delta, std::int64_t cooldown,
              double min_lr, bool maximize);
  void reset();
  // Checks without improvement so far, and checks of cooldown left.
  std::int64_t wait() const { return wait_; }
  std::int64_t cooldown_left() const { return cooldown_left_; }
  double best() const { return best_; }

  double check(double value, double rate);

 private:
  double factor_;
  std::int64_t patience_;
  double min_delta_;
  std::int64_t cooldown_;
  double min_lr_;
  bool maximize_;
  double best_ = 0;
  std::int64_t wait_ = 0, cooldown_left_ = 0;
};

class ReduceLrOnPlateauHook : public Hook, public EvalObserver {
 public:
  // spec: metric, factor, patience, min_delta, cooldown, min_lr, mode ("min",
  // "max"), every_n_steps, eval_dir ("" : none), follow_evaluator
  ReduceLrOnPlateauHook(const Spec& s, HookEnv& env);
  std::string constructor() const override;

  void begin(Session& s) override;
  void after_create_session(Session& s) override;
  void after_run(RunContext& ctx) override;
  void on_evaluation(const EvalRecord& record, Session& s, RunContext*) override;

 private:
  // The evaluations of eval_dir newer than the last one seen, in step order.
  void read_evaluations(Session& s);
  void check(Session& s, double value);
  std::string metric_;
  std::int64_t patience_;
  PlateauRule rule_;
  std::int64_t every_;
  std::string eval_dir_;
  bool follow_evaluator_;
  SecondOrStepTimer timer_;
  Services& svc_;
  EvalRecords* records_ = nullptr;
  TensorValue tmp_;
  double sum_ = 0;
  std::int64_t count_ = 0, seen_step_ = 0;
};

}  // namespace cppestimators
