// hook_reduce_lr_on_plateau(): lowers the learning rate when a metric stops
// improving (keras' ReduceLROnPlateau). Each "check" is one value of the
// metric: an evaluation of an in-memory evaluator of the same train() call
// (as it happens), a new evaluation found in the event files of eval_dir
// (re-read every N steps), or else the training tensor `metric` averaged
// over each window of N steps. The rate is lowered through the estimator's
// learning-rate scale, so it multiplies every optimizer's (scheduled or
// constant) rate and is checkpointed with the weights.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "../services.h"
#include "../session/tensors.h"
#include "early_stopping.h"
#include "eval_records.h"
#include "hook.h"
#include "hook_env.h"
#include "timer.h"

namespace cppestimators {

// The decision rule alone: feed it one value per check with the current
// rate; it answers the rate to use from now on.
class PlateauRule {
 public:
  PlateauRule(double factor, std::int64_t patience, double min_delta, std::int64_t cooldown,
              double min_lr, bool maximize)
      : factor_(factor),
        patience_(patience),
        min_delta_(min_delta),
        cooldown_(cooldown),
        min_lr_(min_lr),
        maximize_(maximize) {
    reset();
  }
  void reset() {
    best_ = maximize_ ? -std::numeric_limits<double>::infinity()
                      : std::numeric_limits<double>::infinity();
    wait_ = 0;
    cooldown_left_ = 0;
  }
  // Checks without improvement so far, and checks of cooldown left.
  std::int64_t wait() const { return wait_; }
  std::int64_t cooldown_left() const { return cooldown_left_; }
  double best() const { return best_; }

  double check(double value, double rate) {
    if (cooldown_left_ > 0) {
      --cooldown_left_;
      wait_ = 0;
    }
    if (maximize_ ? value > best_ + min_delta_ : value < best_ - min_delta_) {
      best_ = value;
      wait_ = 0;
      return rate;
    }
    if (cooldown_left_ > 0) return rate;
    if (++wait_ < patience_) return rate;
    if (!(static_cast<float>(rate) > static_cast<float>(min_lr_))) return rate;
    cooldown_left_ = cooldown_;
    wait_ = 0;
    return std::max(rate * factor_, min_lr_);
  }

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
  ReduceLrOnPlateauHook(const Spec& s, HookEnv& env)
      : metric_(s.str("metric")),
        patience_(s.int_or("patience", 10)),
        rule_(s.num("factor"), patience_, s.num_or("min_delta", 1e-4), s.int_or("cooldown", 0),
              s.num_or("min_lr", 0), s.str_or("mode", "min") == "max"),
        every_(s.int_or("every_n_steps", 100)),
        eval_dir_(s.str_or("eval_dir", "")),
        follow_evaluator_(s.flag_or("follow_evaluator", false)),
        timer_(-1, every_),
        svc_(env.services()) {}
  std::string kind() const override { return "hook_reduce_lr_on_plateau"; }

  void begin(Session& s) override {
    s.estimator().use_learning_rate_scale();
    if (follow_evaluator_ && records_ == nullptr)
      for (Hook* h : s.hooks())
        if (EvalRecords* r = h->evaluation_records()) {
          records_ = r;
          r->observe(this);
          break;
        }
    rule_.reset();
    timer_.reset();
    sum_ = 0;
    count_ = 0;
    seen_step_ = s.global_step();
  }
  void after_create_session(Session& s) override {
    if (records_ == nullptr && eval_dir_.empty())
      require_tensor(s, metric_, "hook_reduce_lr_on_plateau");
  }
  void after_run(RunContext& ctx) override {
    if (records_ != nullptr) return;  // checks arrive through on_evaluation()
    Session& s = *ctx.session;
    if (!eval_dir_.empty()) {
      const std::int64_t step = s.global_step();
      if (!timer_.should_trigger(step, 0.0)) return;
      timer_.update(step, 0.0, nullptr, nullptr);
      read_evaluations(s);
      return;
    }
    read_tensor(s, metric_, tmp_);
    double v = 0;
    for (double x : tmp_.data) v += x;
    if (tmp_.data.size() > 1) v /= static_cast<double>(tmp_.data.size());
    sum_ += v;
    if (++count_ < every_) return;
    const double mean = sum_ / static_cast<double>(count_);
    sum_ = 0;
    count_ = 0;
    check(s, mean);
  }
  void on_evaluation(const EvalRecord& record, Session& s, RunContext*) override {
    for (const auto& kv : record.metrics)
      if (kv.first == metric_) return check(s, kv.second);
    std::string names;
    for (const auto& kv : record.metrics) names += (names.empty() ? "" : ", ") + kv.first;
    // the bad argument is this hook's, not the evaluator's calling it
    const std::vector<Hook*>& hooks = s.hooks();
    for (std::size_t i = 0; i < hooks.size(); ++i)
      if (hooks[i] == this) {
        s.current_hook = static_cast<int>(i);
        s.current_phase = "on_evaluation";
      }
    throw std::invalid_argument("hook_reduce_lr_on_plateau(): `metric` '" + metric_ +
                                "' is not among the evaluation's metrics (" + names +
                                "); give one of these");
  }

 private:
  // The evaluations of eval_dir newer than the last one seen, in step order.
  void read_evaluations(Session& s) {
    std::vector<std::pair<std::int64_t, double>> series;
    try {
      series = read_metric_series(eval_dir_, metric_);
    } catch (const std::runtime_error&) {
      throw std::invalid_argument("hook_reduce_lr_on_plateau(): `metric` '" + metric_ +
                                  "' is missing from an evaluation in " + eval_dir_);
    }
    for (const auto& sv : series)
      if (sv.first > seen_step_) {
        seen_step_ = sv.first;
        check(s, sv.second);
      }
  }
  void check(Session& s, double value) {
    Estimator& est = s.estimator();
    const double rate = est.learning_rate();
    const double next = rule_.check(value, rate);
    if (!(next < rate) || !(rate > 0)) return;
    est.set_learning_rate_scale(est.learning_rate_scale() * next / rate);
    char buf[320];
    std::snprintf(buf, sizeof buf,
                  "hook_reduce_lr_on_plateau(): %s has not improved for %lld checks; reducing "
                  "the learning rate from %g to %g at global step %lld.",
                  metric_.c_str(), static_cast<long long>(patience_),
                  static_cast<double>(static_cast<float>(rate)),
                  static_cast<double>(static_cast<float>(next)),
                  static_cast<long long>(s.global_step()));
    svc_.message(buf);
  }
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
