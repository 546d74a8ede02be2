#include "r_hooks.h"

#include <cppestimators/hooks/checkpoint_saver.h>
#include <cppestimators/hooks/eval_records.h>
#include <cppestimators/io/checkpoint.h>

#include "r_fetch.h"
#include "r_closure_hook.h"
#include "r_data.h"
#include "r_utils.h"

namespace cppestimators {

namespace {

// A checkpoint listener made of R closures (any may be NULL).
class RCheckpointListener : public CheckpointListener {
 public:
  RCheckpointListener(const Spec& spec, const RHookEnv& env)
      : begin_(env.host(spec, "begin")),
        before_(env.host(spec, "before_save")),
        after_(env.host(spec, "after_save")),
        end_(env.host(spec, "end")),
        session_(env.r_session()) {}
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

}  // namespace

Spec RHookEnv::spec(SEXP r_spec) { return spec_from_r(r_spec, host_); }

Rcpp::RObject RHookEnv::host(const Spec& spec, const std::string& field) const {
  if (!spec.has_handle(field)) return R_NilValue;
  return host_.at(spec.handle(field));
}

// hook_logging_tensor(formatter = function(values, elapsed) -> string).
TensorFormatter RHookEnv::formatter(const Spec& spec, const std::string& field) {
  Rcpp::RObject f = host(spec, field);
  if (f.isNULL()) return nullptr;
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

// An in-memory evaluation: an R function() returning named metrics (its
// global_step is the session's own and is dropped).
EvaluationFn RHookEnv::evaluation(const Spec& spec, const std::string& field) {
  Rcpp::RObject fn = host(spec, field);
  if (fn.isNULL()) return HookEnv::evaluation(spec, field);
  return [fn](Session&) {
    Rcpp::RObject value = call_r(fn, {});
    // NULL: the user interrupted the evaluation; the training stops in order
    if (value.isNULL()) throw Interrupted();
    Rcpp::NumericVector res(value);
    Rcpp::CharacterVector nm = res.names();
    MetricList out;
    for (R_xlen_t i = 0; i < res.size(); ++i)
      if (std::string(nm[i]) != "global_step") out.emplace_back(std::string(nm[i]), res[i]);
    return out;
  };
}

std::unique_ptr<CheckpointListener> RHookEnv::checkpoint_listener(const Spec& spec) {
  return std::make_unique<RCheckpointListener>(spec, *this);
}

std::unique_ptr<Hook> RHookEnv::custom_hook(const Spec& spec) {
  return std::make_unique<RClosureHook>(host(spec, "begin"), host(spec, "after_create_session"),
                                        host(spec, "before_run"), host(spec, "after_run"),
                                        host(spec, "end"), r_session_, r_context_);
}

Rcpp::List evaluation_results(const std::vector<Hook*>& hooks) {
  Rcpp::List out;
  for (Hook* h : hooks) {
    const EvalRecords* records = h->evaluation_records();
    if (records == nullptr) continue;
    Rcpp::NumericVector steps;
    Rcpp::List metrics;
    for (const auto& r : records->records()) {
      steps.push_back(static_cast<double>(r.step));
      Rcpp::NumericVector m(r.metrics.size());
      Rcpp::CharacterVector nm(r.metrics.size());
      for (std::size_t i = 0; i < r.metrics.size(); ++i) {
        m[static_cast<R_xlen_t>(i)] = r.metrics[i].second;
        nm[static_cast<R_xlen_t>(i)] = r.metrics[i].first;
      }
      m.attr("names") = nm;
      metrics.push_back(m);
    }
    out.push_back(Rcpp::List::create(Rcpp::Named("name") = records->name(),
                                     Rcpp::Named("steps") = steps,
                                     Rcpp::Named("metrics") = metrics));
  }
  return out;
}

}  // namespace cppestimators
