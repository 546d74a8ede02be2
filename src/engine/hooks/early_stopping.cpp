#include <cppestimators/hooks/early_stopping.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <stdexcept>
#include <system_error>

#include <cppestimators/hooks/hook_env.h>
#include <cppestimators/io/event_file.h>
#include <cppestimators/model/estimator_io.h>
#include <cppestimators/services.h>
#include <cppestimators/session/session.h>
#include <cppestimators/spec.h>

namespace cppestimators {

StopRule stop_rule(const std::string& rule) {
  if (rule == "higher") return StopRule::Higher;
  if (rule == "lower") return StopRule::Lower;
  if (rule == "no_increase") return StopRule::NoIncrease;
  if (rule == "no_decrease") return StopRule::NoDecrease;
  throw std::invalid_argument("unknown early-stopping rule '" + rule +
                              "'; known rules are 'higher', 'lower', 'no_increase', 'no_decrease'");
}

EarlyStoppingSpec early_stopping_spec(const Spec& s) {
  EarlyStoppingSpec es;
  es.rule = stop_rule(s.str("rule"));
  es.metric = s.str("metric_name");
  es.threshold = s.num_or("threshold", 0);
  es.max_steps_without = s.int_or("max_steps_without", 0);
  es.min_steps = s.int_or("min_steps", 0);
  es.min_delta = s.num_or("min_delta", 0);
  es.every_secs = s.num_or("run_every_secs", -1);
  es.every_steps = s.int_or("run_every_steps", -1);
  es.eval_dir = s.str("eval_dir");
  es.restore_best = s.flag_or("restore_best", false);
  es.checkpoint_dir = s.str_or("model_dir", "");
  es.keep_checkpoint_max = static_cast<int>(s.int_or("keep_checkpoint_max", 5));
  es.follow_evaluator = s.flag_or("follow_evaluator", false);
  return es;
}

std::vector<std::pair<std::int64_t, double>> read_metric_series(const std::string& dir,
                                                                const std::string& metric) {
  namespace fs = std::filesystem;
  std::map<std::int64_t, std::map<std::string, double>> by_step;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return {};
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("events.out.tfevents.", 0) == 0) files.push_back(e.path().string());
  }
  std::sort(files.begin(), files.end());
  for (const auto& f : files)
    for (const auto& ev : read_scalar_events(f)) by_step[ev.step][ev.tag] = ev.value;
  std::vector<std::pair<std::int64_t, double>> out;
  for (const auto& kv : by_step) {
    auto it = kv.second.find(metric);
    if (it == kv.second.end())
      throw std::runtime_error("early stopping: metric '" + metric +
                               "' not found in the evaluation at step " + std::to_string(kv.first) +
                               " in " + dir);
    out.emplace_back(kv.first, it->second);
  }
  return out;
}

EarlyStoppingHook::EarlyStoppingHook(EarlyStoppingSpec spec, Services& svc)
    : spec_(std::move(spec)), timer_(spec_.every_secs, spec_.every_steps), svc_(svc) {}

EarlyStoppingHook::EarlyStoppingHook(const Spec& s, HookEnv& env)
    : EarlyStoppingHook(early_stopping_spec(s), env.services()) {}

std::string EarlyStoppingHook::constructor() const { return "early_stopping"; }

void EarlyStoppingHook::attach(EvalRecords* records) {
  in_memory_ = records;
  records->observe(this);
}

void EarlyStoppingHook::begin(Session& s) {
  if (spec_.follow_evaluator && in_memory_ == nullptr) {
    for (Hook* h : s.hooks()) {
      if (EvalRecords* records = h->evaluation_records()) {
        attach(records);
        break;
      }
    }
    if (in_memory_ == nullptr && spec_.restore_best)
      throw std::invalid_argument(
          "restore_best = TRUE needs a hook_in_memory_evaluator() of the same estimator in the "
          "same train() call");
  }
  timer_.reset();
  series_.clear();
  pending_stop_ = false;
  stopped_ = false;
  has_best_ = false;
}

void EarlyStoppingHook::after_run(RunContext& ctx) {
  if (pending_stop_) {
    ctx.request_stop();
    pending_stop_ = false;
    return;
  }
  if (stopped_) return;
  if (in_memory_ != nullptr) return;  // results arrive through on_evaluation()
  const std::int64_t step = ctx.session->global_step();
  if (!timer_.should_trigger(step, timer_.by_time() ? svc_.now() : 0.0)) return;
  timer_.update(step, svc_.now(), nullptr, nullptr);
  series_ = read_metric_series(spec_.eval_dir, spec_.metric);
  if (should_stop()) stop(step, &ctx);
}

void EarlyStoppingHook::on_evaluation(const EvalRecord& record, Session& s, RunContext* ctx) {
  double value = NAN;
  bool found = false;
  for (const auto& kv : record.metrics)
    if (kv.first == spec_.metric) {
      value = kv.second;
      found = true;
    }
  if (!found) {
    std::string names;
    for (const auto& kv : record.metrics) names += (names.empty() ? "" : ", ") + kv.first;
    // The bad argument is this hook's, not that of the evaluator calling it.
    blame_self(s);
    throw std::invalid_argument("`metric_name`: metric '" + spec_.metric +
                                "' is not among the evaluation's metrics (" + names +
                                "); give one of these to this early-stopping hook");
  }
  series_.emplace_back(record.step, value);
  if (spec_.restore_best && improves(value)) {
    snapshot(s.estimator(), best_state_);
    best_value_ = value;
    best_step_ = record.step;
    has_best_ = true;
  }
  if (!stopped_ && should_stop()) stop(record.step, ctx);
}

void EarlyStoppingHook::end(Session& s) {
  if (!spec_.restore_best || !has_best_) return;
  Estimator& est = s.estimator();
  const std::int64_t step = est.global_step();
  restore(est, best_state_, "the best evaluation's weights");
  est.set_global_step(step);
  CheckpointManager manager(spec_.checkpoint_dir, "model.ckpt", spec_.keep_checkpoint_max);
  CheckpointData data;
  snapshot(est, data);
  manager.save(data);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%g", best_value_);
  svc_.message("Restored the weights of the best evaluation (global step " +
               std::to_string(best_step_) + ", " + spec_.metric + " = " + buf +
               ") and saved them at global step " + std::to_string(step) + ".");
}

bool EarlyStoppingHook::lower_is_better() const {
  return spec_.rule == StopRule::NoDecrease || spec_.rule == StopRule::Lower;
}

bool EarlyStoppingHook::improves(double v) const {
  if (!has_best_) return true;
  return lower_is_better() ? v < best_value_ - spec_.min_delta : v > best_value_ + spec_.min_delta;
}

void EarlyStoppingHook::blame_self(Session& s) const { s.blame_hook(this, "on_evaluation"); }

bool EarlyStoppingHook::should_stop() {
  char buf[400];
  if (spec_.rule == StopRule::Higher || spec_.rule == StopRule::Lower) {
    const bool higher = spec_.rule == StopRule::Higher;
    for (const auto& sv : series_) {
      if (sv.first < spec_.min_steps) continue;
      if (higher ? sv.second > spec_.threshold : sv.second < spec_.threshold) {
        std::snprintf(buf, sizeof buf,
                      "At step %lld, metric \"%s\" has value %g which is %s the configured "
                      "threshold (%g) for early stopping.",
                      static_cast<long long>(sv.first), spec_.metric.c_str(), sv.second,
                      higher ? "greater than" : "less than", spec_.threshold);
        svc_.message(buf);
        return true;
      }
    }
    return false;
  }
  const bool decrease = spec_.rule == StopRule::NoDecrease;
  bool have = false;
  double best = 0;
  std::int64_t best_step = 0;
  for (const auto& sv : series_) {
    if (sv.first < spec_.min_steps) continue;
    if (!have ||
        (decrease ? sv.second < best - spec_.min_delta : sv.second > best + spec_.min_delta)) {
      have = true;
      best = sv.second;
      best_step = sv.first;
    }
    if (sv.first - best_step >= spec_.max_steps_without) {
      std::snprintf(buf, sizeof buf,
                    "No %s in metric \"%s\" for %lld steps, which is greater than or equal to "
                    "max steps (%lld) configured for early stopping.",
                    decrease ? "decrease" : "increase", spec_.metric.c_str(),
                    static_cast<long long>(sv.first - best_step),
                    static_cast<long long>(spec_.max_steps_without));
      svc_.message(buf);
      return true;
    }
  }
  return false;
}

void EarlyStoppingHook::stop(std::int64_t step, RunContext* ctx) {
  svc_.message("Requesting early stopping at global step " + std::to_string(step));
  stopped_ = true;
  if (ctx)
    ctx->request_stop();
  else
    pending_stop_ = true;
}

}  // namespace cppestimators
