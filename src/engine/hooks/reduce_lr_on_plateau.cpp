#include <cppestimators/hooks/reduce_lr_on_plateau.h>

#include <algorithm>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <utility>
#include <vector>

#include <cppestimators/hooks/early_stopping.h>
#include <cppestimators/hooks/hook_env.h>
#include <cppestimators/model/estimator.h>
#include <cppestimators/services.h>
#include <cppestimators/session/session.h>
#include <cppestimators/spec.h>

namespace cppestimators {

PlateauRule::PlateauRule(double factor, std::int64_t patience, double min_delta,
                         std::int64_t cooldown, double min_lr, bool maximize)
    : factor_(factor),
      patience_(patience),
      min_delta_(min_delta),
      cooldown_(cooldown),
      min_lr_(min_lr),
      maximize_(maximize) {
  reset();
}

void PlateauRule::reset() {
  best_ = maximize_ ? -std::numeric_limits<double>::infinity()
                    : std::numeric_limits<double>::infinity();
  wait_ = 0;
  cooldown_left_ = 0;
}

double PlateauRule::check(double value, double rate) {
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

ReduceLrOnPlateauHook::ReduceLrOnPlateauHook(const Spec& s, HookEnv& env)
    : metric_(s.str("metric")),
      patience_(s.int_or("patience", 10)),
      rule_(s.num("factor"), patience_, s.num_or("min_delta", 1e-4), s.int_or("cooldown", 0),
            s.num_or("min_lr", 0), s.str_or("mode", "min") == "max"),
      every_(s.int_or("every_n_steps", 100)),
      eval_dir_(s.str_or("eval_dir", "")),
      follow_evaluator_(s.flag_or("follow_evaluator", false)),
      timer_(-1, every_),
      svc_(env.services()) {}

std::string ReduceLrOnPlateauHook::constructor() const { return "hook_reduce_lr_on_plateau"; }

void ReduceLrOnPlateauHook::begin(Session& s) {
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

void ReduceLrOnPlateauHook::after_create_session(Session& s) {
  if (records_ == nullptr && eval_dir_.empty())
    require_tensor(s, metric_, "hook_reduce_lr_on_plateau");
}

void ReduceLrOnPlateauHook::after_run(RunContext& ctx) {
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

void ReduceLrOnPlateauHook::on_evaluation(const EvalRecord& record, Session& s, RunContext*) {
  for (const auto& kv : record.metrics)
    if (kv.first == metric_) return check(s, kv.second);
  std::string names;
  for (const auto& kv : record.metrics) names += (names.empty() ? "" : ", ") + kv.first;
  // the bad argument is this hook's, not the evaluator's calling it
  s.blame_hook(this, "on_evaluation");
  throw std::invalid_argument("hook_reduce_lr_on_plateau(): `metric` '" + metric_ +
                              "' is not among the evaluation's metrics (" + names +
                              "); give one of these");
}

void ReduceLrOnPlateauHook::read_evaluations(Session& s) {
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

void ReduceLrOnPlateauHook::check(Session& s, double value) {
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

}  // namespace cppestimators
