// A hook whose callbacks are R closures (session_run_hook()). Absent
// callbacks cost nothing; present ones cost one R call each. An R error in a
// callback unwinds through here as a C++ exception (Rcpp's unwind
// protection), so the engine's state stays consistent; the R layer names the
// hook and phase from Session::current_hook / current_phase.
#pragma once
#include <Rcpp.h>

#include <cppestimators/hooks/hook.h>

#include "fetch.h"
#include "r_utils.h"

namespace cppestimators {

class RClosureHook : public Hook {
 public:
  // The five callbacks (each a function or NULL), the R session and the run
  // context handed to them.
  RClosureHook(Rcpp::RObject begin, Rcpp::RObject after_create_session, Rcpp::RObject before_run,
               Rcpp::RObject after_run, Rcpp::RObject end, SEXP r_session, SEXP r_context)
      : begin_(begin),
        after_create_session_(after_create_session),
        before_run_(before_run),
        after_run_(after_run),
        end_(end),
        r_session_(r_session),
        r_context_(r_context) {
    values_template_ =
        Rcpp::List::create(Rcpp::Named("results") = R_NilValue, Rcpp::Named("options") = R_NilValue,
                           Rcpp::Named("run_metadata") = R_NilValue);
    values_template_.attr("class") = "cppestimators_session_run_values";
  }
  std::string kind() const override { return "session_run_hook"; }

  void begin(Session&) override {
    if (present(begin_)) call_r(begin_, {});
  }
  void after_create_session(Session&) override {
    if (present(after_create_session_)) call_r(after_create_session_, {r_session_, R_NilValue});
  }
  void before_run(RunContext& ctx) override {
    fetches_ = R_NilValue;
    if (!present(before_run_)) return;
    Rcpp::RObject res = call_r(before_run_, {r_context_});
    if (res.isNULL()) return;
    if (!Rf_inherits(res, "cppestimators_session_run_args")) {
      Rcpp::CharacterVector cls = Rcpp::Function("class")(res);
      throw std::invalid_argument(
          "`before_run` must return NULL or session_run_args(), not an object of class '" +
          Rcpp::as<std::string>(cls[0]) + "'");
    }
    fetches_ = Rcpp::List(res)["fetches"];
    check_fetch_names(*ctx.session, fetches_);
  }
  void after_run(RunContext& ctx) override {
    if (!present(after_run_)) return;
    Rcpp::List values(values_template_.size());
    values[0] = resolve_fetches(*ctx.session, fetches_);
    values.attr("names") = values_template_.attr("names");
    values.attr("class") = values_template_.attr("class");
    call_r(after_run_, {r_context_, values});
  }
  void end(Session&) override {
    if (present(end_)) call_r(end_, {r_session_});
  }

 private:
  static bool present(const Rcpp::RObject& f) { return !f.isNULL(); }
  Rcpp::RObject begin_, after_create_session_, before_run_, after_run_, end_;
  Rcpp::RObject r_session_, r_context_;
  Rcpp::RObject fetches_;
  Rcpp::List values_template_;  // names and class of run values, built once
};

}  // namespace cppestimators
