#include "hook_factory.h"

#include <cppestimators/hooks/checkpoint_saver.h>
#include <cppestimators/hooks/early_stopping.h>
#include <cppestimators/hooks/in_memory_evaluator.h>
#include <cppestimators/hooks/global_step_waiter.h>
#include <cppestimators/hooks/history_saver.h>
#include <cppestimators/hooks/logging_tensor.h>
#include <cppestimators/hooks/nan_tensor.h>
#include <cppestimators/hooks/progress_bar.h>
#include <cppestimators/hooks/step_counter.h>
#include <cppestimators/hooks/stop_at_step.h>
#include <cppestimators/hooks/summary_saver.h>
#include <cppestimators/io/checkpoint.h>

#include "fetch.h"
#include "r_closure_hook.h"
#include "r_utils.h"

namespace cppestimators {

namespace {

// A checkpoint listener made of R closures (any may be NULL).
class RCheckpointListener : public CheckpointListener {
 public:
  RCheckpointListener(const Rcpp::List& spec, SEXP r_session)
      : begin_(spec["begin"]), before_(spec["before_save"]), after_(spec["after_save"]),
        end_(spec["end"]), session_(r_session) {}
  void begin() override {
    if (!begin_.isNULL()) call_r(begin_, {});
  }
  void before_save(Session&, std::int64_t step) override {
    if (!before_.isNULL()) call_r(before_, {session_, Rcpp::wrap(static_cast<double>(step))});
  }
  bool after_save(Session&, std::int64_t step) override {
    if (after_.isNULL()) return false;
    Rcpp::RObject res = call_r(after_, {session_, Rcpp::wrap(static_cast<double>(step))});
    return TYPEOF(res) == LGLSXP && Rf_length(res) == 1 && LOGICAL(res)[0] == TRUE;
  }
  void end(Session&, std::int64_t step) override {
    if (!end_.isNULL()) call_r(end_, {session_, Rcpp::wrap(static_cast<double>(step))});
  }

 private:
  Rcpp::RObject begin_, before_, after_, end_, session_;
};

// An R formatter for hook_logging_tensor(): function(values, elapsed) -> string.
LoggingTensorHook::Formatter r_formatter(SEXP fn) {
  if (Rf_isNull(fn)) return nullptr;
  Rcpp::RObject f(fn);
  return [f](const std::vector<std::string>& tags, const std::vector<TensorValue>& values,
             double elapsed) {
    Rcpp::List vals(values.size());
    for (std::size_t i = 0; i < values.size(); ++i) vals[i] = tensor_to_r(values[i]);
    vals.attr("names") = Rcpp::wrap(tags);
    Rcpp::RObject res = call_r(f, {vals, Rcpp::wrap(elapsed)});
    if (TYPEOF(res) != STRSXP || Rf_length(res) != 1)
      throw std::invalid_argument("hook_logging_tensor(): `formatter` must return one string");
    return Rcpp::as<std::string>(res);
  };
}

std::vector<std::string> strings(const Rcpp::List& l, const char* name) {
  return Rcpp::as<std::vector<std::string>>(l[name]);
}

}  // namespace

std::unique_ptr<Hook> make_hook(const Rcpp::List& spec, Services& svc, SummaryWriters& writers,
                                SEXP r_session, SEXP r_context) {
  const auto sink_for = [&](const char* field) -> EventFileSink* {
    if (!spec.containsElementNamed(field) || Rf_isNull(spec[field])) return nullptr;
    return writers.get(Rcpp::as<std::string>(spec[field]));
  };
  const std::string type = Rcpp::as<std::string>(spec["type"]);
  const auto i64 = [&](const char* name, double dflt) {
    return static_cast<std::int64_t>(num_or(spec, name, dflt));
  };
  if (type == "progress_bar")
    return std::make_unique<ProgressBarHook>(Rcpp::as<std::string>(spec["label"]),
                                             i64("total", -1), svc, num_or(spec, "draw", 1) != 0);
  if (type == "history_saver") return std::make_unique<HistorySaverHook>(i64("every_n_step", 10));
  if (type == "stop_at_step")
    return std::make_unique<StopAtStepHook>(i64("num_steps", -1), i64("last_step", -1));
  if (type == "stop_after_steps") return std::make_unique<StopAfterStepsHook>(i64("steps", 1));
  if (type == "r_closure") return std::make_unique<RClosureHook>(spec, r_session, r_context);
  if (type == "logging_tensor")
    return std::make_unique<LoggingTensorHook>(
        strings(spec, "tags"), strings(spec, "names"), i64("every_n_iter", -1),
        num_or(spec, "every_n_secs", -1), flag_or(spec, "at_end", false),
        r_formatter(spec.containsElementNamed("formatter") ? SEXP(spec["formatter"]) : R_NilValue),
        svc);
  if (type == "nan_tensor")
    return std::make_unique<NanTensorHook>(Rcpp::as<std::string>(spec["loss_tensor"]),
                                           flag_or(spec, "fail_on_nan_loss", true), svc);
  if (type == "step_counter")
    return std::make_unique<StepCounterHook>(i64("every_n_steps", -1),
                                             num_or(spec, "every_n_secs", -1), svc,
                                             flag_or(spec, "verbose", true),
                                             sink_for("output_dir"));
  if (type == "summary_saver") {
    std::vector<std::string> tensors;
    if (spec.containsElementNamed("tensors") && !Rf_isNull(spec["tensors"]))
      tensors = strings(spec, "tensors");
    return std::make_unique<SummarySaverHook>(i64("save_steps", -1), num_or(spec, "save_secs", -1),
                                              tensors, sink_for("output_dir"), svc);
  }
  if (type == "checkpoint_saver") {
    std::vector<std::unique_ptr<CheckpointListener>> listeners;
    if (spec.containsElementNamed("listeners") && !Rf_isNull(spec["listeners"])) {
      Rcpp::List ls = spec["listeners"];
      for (R_xlen_t i = 0; i < ls.size(); ++i)
        listeners.push_back(std::make_unique<RCheckpointListener>(ls[i], r_session));
    }
    return std::make_unique<CheckpointSaverHook>(
        Rcpp::as<std::string>(spec["checkpoint_dir"]), num_or(spec, "save_secs", -1),
        i64("save_steps", -1), Rcpp::as<std::string>(spec["checkpoint_basename"]),
        static_cast<int>(num_or(spec, "keep_checkpoint_max", 5)), std::move(listeners), svc,
        flag_or(spec, "verbose", true));
  }
  if (type == "global_step_waiter") {
    std::string dir = Rf_isNull(spec["model_dir"]) ? "" : Rcpp::as<std::string>(spec["model_dir"]);
    auto read_step = [dir]() -> std::int64_t {
      if (dir.empty()) return -1;
      const std::string path = latest_checkpoint(dir);
      if (path.empty()) return -1;
      return read_checkpoint_file(path).global_step;
    };
    return std::make_unique<GlobalStepWaiterHook>(i64("wait_until_step", 0), read_step, svc);
  }
  if (type == "in_memory_evaluator") {
    Rcpp::RObject fn(spec["evaluate"]);
    auto evaluate = [fn](Session&) {
      Rcpp::NumericVector res(call_r(fn, {}));
      Rcpp::CharacterVector nm = res.names();
      MetricList out;
      for (R_xlen_t i = 0; i < res.size(); ++i)
        if (std::string(nm[i]) != "global_step") out.emplace_back(std::string(nm[i]), res[i]);
      return out;
    };
    return std::make_unique<InMemoryEvaluatorHook>(i64("every_n_iter", 100), evaluate);
  }
  if (type == "early_stopping") {
    EarlyStoppingSpec es;
    const std::string rule = Rcpp::as<std::string>(spec["rule"]);
    es.rule = rule == "higher"        ? StopRule::Higher
              : rule == "lower"       ? StopRule::Lower
              : rule == "no_increase" ? StopRule::NoIncrease
                                      : StopRule::NoDecrease;
    es.metric = Rcpp::as<std::string>(spec["metric_name"]);
    es.threshold = num_or(spec, "threshold", 0);
    es.max_steps_without = i64("max_steps_without", 0);
    es.min_steps = i64("min_steps", 0);
    es.min_delta = num_or(spec, "min_delta", 0);
    es.every_secs = num_or(spec, "run_every_secs", -1);
    es.every_steps = i64("run_every_steps", -1);
    es.eval_dir = Rcpp::as<std::string>(spec["eval_dir"]);
    es.restore_best = flag_or(spec, "restore_best", false);
    es.checkpoint_dir = Rcpp::as<std::string>(spec["model_dir"]);
    es.keep_checkpoint_max = static_cast<int>(num_or(spec, "keep_checkpoint_max", 5));
    return std::make_unique<EarlyStoppingHook>(es, svc);
  }
  Rcpp::stop("unknown hook type '" + type + "'");
}

void wire_hooks(const Rcpp::List& specs, const std::vector<Hook*>& hooks) {
  for (R_xlen_t i = 0; i < specs.size(); ++i) {
    Rcpp::List spec = specs[i];
    if (!spec.containsElementNamed("in_memory_evaluator") || Rf_isNull(spec["in_memory_evaluator"]))
      continue;
    const int k = Rcpp::as<int>(spec["in_memory_evaluator"]) - 1;
    auto* stopper = dynamic_cast<EarlyStoppingHook*>(hooks[i]);
    auto* evaluator = k >= 0 && k < static_cast<int>(hooks.size())
                          ? dynamic_cast<InMemoryEvaluatorHook*>(hooks[k])
                          : nullptr;
    if (stopper == nullptr || evaluator == nullptr)
      Rcpp::stop("internal: early stopping hook wired to a hook that is not an in-memory evaluator");
    stopper->attach(&evaluator->records());
  }
}

// Every evaluation of the in-memory evaluators, as a data frame per hook.
Rcpp::List evaluation_results(const std::vector<Hook*>& hooks) {
  Rcpp::List out;
  for (Hook* h : hooks) {
    auto* ev = dynamic_cast<InMemoryEvaluatorHook*>(h);
    if (ev == nullptr) continue;
    const auto& recs = ev->records().records();
    Rcpp::NumericVector steps;
    Rcpp::List metrics;
    for (const auto& r : recs) {
      steps.push_back(static_cast<double>(r.step));
      Rcpp::NumericVector m;
      Rcpp::CharacterVector nm;
      for (const auto& kv : r.metrics) {
        m.push_back(kv.second);
        nm.push_back(kv.first);
      }
      m.attr("names") = nm;
      metrics.push_back(m);
    }
    out.push_back(Rcpp::List::create(Rcpp::Named("steps") = steps,
                                     Rcpp::Named("metrics") = metrics));
  }
  return out;
}

}  // namespace cppestimators

// The global step of the latest checkpoint in `dir`, or -1 when it has none
// (train() waits for a hook_global_step_waiter() before taking its lock).
// [[Rcpp::export(rng = false)]]
double cpp_checkpoint_global_step(std::string dir) {
  const std::string path = cppestimators::latest_checkpoint(dir);
  if (path.empty()) return -1;
  return static_cast<double>(cppestimators::read_checkpoint_file(path).global_step);
}
