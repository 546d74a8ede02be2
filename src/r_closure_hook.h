// A hook whose callbacks are R closures (session_run_hook()). Absent
// callbacks cost nothing; present ones cost one R call each, and a step
// allocates only what it hands to R: the calls of before_run(context) and of
// after_run(context, values) without fetches are built once, with run
// values that never change (marked immutable, so R copies them before any
// change); fetches are compiled once (FetchPlan) and their values built
// fresh each step. The run values are a plain named list (results,
// options, run_metadata): `values$results` needs no S3 dispatch.
// An R error in a callback unwinds through here as a C++ exception (Rcpp's
// LongjumpException, resumed at the R boundary), so the engine's state
// stays consistent; the R layer names the hook and phase from
// Session::current_hook() / current_phase().
#pragma once
#include <Rcpp.h>

#include <csetjmp>
#include <cstring>
#include <string>

#include <cppestimators/session/hook.h>
#include <cppestimators/session/session.h>

#include "r_fetch.h"
#include "r_utils.h"

namespace cppestimators {

namespace detail {
struct EvalCall {
  SEXP call;
};
inline SEXP eval_call_in_global(void* data) {
  return Rf_eval(static_cast<EvalCall*>(data)->call, R_GlobalEnv);
}
struct JumpBack {
  std::jmp_buf buf;
};
inline void jump_back(void* data, Rboolean jump) {
  if (jump) std::longjmp(static_cast<JumpBack*>(data)->buf, 1);
}
}  // namespace detail

// Evaluates `call` in the global environment under R's unwind protection
// with a continuation token made once by the caller (what Rcpp_fast_eval()
// does, without a new token per call).
inline SEXP eval_unwind_protected(SEXP call, SEXP token) {
  detail::JumpBack jump;
  detail::EvalCall data{call};
  if (setjmp(jump.buf)) {
    R_PreserveObject(token);  // released by Rcpp when it resumes the jump
    throw Rcpp::LongjumpException(token);
  }
  return R_UnwindProtect(detail::eval_call_in_global, &data, detail::jump_back, &jump, token);
}

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
    Rcpp::List values =
        Rcpp::List::create(Rcpp::Named("results") = R_NilValue, Rcpp::Named("options") = R_NilValue,
                           Rcpp::Named("run_metadata") = R_NilValue);
    MARK_NOT_MUTABLE(values);
    no_results_ = values;
    token_ = R_MakeUnwindCont();
    if (present(before_run_)) before_call_ = immutable_call(before_run_, r_context_);
    if (present(after_run_)) after_call_ = immutable_call(after_run_, r_context_, no_results_);
  }
  std::string constructor() const override { return "session_run_hook"; }

  void begin(Session&) override {
    if (present(begin_)) call_r(begin_, {});
  }
  void after_create_session(Session&) override {
    if (present(after_create_session_)) call_r(after_create_session_, {r_session_, R_NilValue});
  }
  void before_run(RunContext& ctx) override {
    fetching_ = false;
    if (!present(before_run_)) return;
    Rcpp::Shield<SEXP> res(eval_unwind_protected(before_call_, token_));
    if (Rf_isNull(res)) return;
    if (!Rf_inherits(res, "cppestimators_session_run_args")) {
      Rcpp::CharacterVector cls = Rcpp::Function("class")(static_cast<SEXP>(res));
      throw std::invalid_argument(
          "`before_run` must return NULL or session_run_args(), not an object of class '" +
          Rcpp::as<std::string>(cls[0]) + "'");
    }
    SEXP fetches = first_fetches(res);
    if (fetches == nullptr) {  // not as session_run_args() makes them
      looked_up_ = Rcpp::List(static_cast<SEXP>(res))["fetches"];
      fetches = looked_up_;
    }
    if (Rf_isNull(fetches)) return;
    plan_.prepare(*ctx.session, fetches);
    fetching_ = true;
  }
  void after_run(RunContext& ctx) override {
    if (!present(after_run_)) return;
    if (!fetching_) {
      eval_unwind_protected(after_call_, token_);
      return;
    }
    Rcpp::Shield<SEXP> results(plan_.resolve(*ctx.session));
    Rcpp::Shield<SEXP> values(Rf_shallow_duplicate(no_results_));
    SET_VECTOR_ELT(values, 0, results);
    Rcpp::Shield<SEXP> call(Rf_lang3(after_run_, r_context_, values));
    eval_unwind_protected(call, token_);
  }
  void end(Session&) override {
    if (present(end_)) call_r(end_, {r_session_});
  }

 private:
  static bool present(const Rcpp::RObject& f) { return !f.isNULL(); }
  static Rcpp::RObject immutable_call(SEXP fn, SEXP a) {
    Rcpp::RObject call(Rf_lang2(fn, a));
    MARK_NOT_MUTABLE(call);
    return call;
  }
  static Rcpp::RObject immutable_call(SEXP fn, SEXP a, SEXP b) {
    Rcpp::RObject call(Rf_lang3(fn, a, b));
    MARK_NOT_MUTABLE(call);
    return call;
  }
  // The `fetches` of session_run_args() when it is their first element, as
  // session_run_args() makes them; nullptr otherwise.
  static SEXP first_fetches(SEXP args) {
    if (TYPEOF(args) != VECSXP || XLENGTH(args) == 0) return nullptr;
    SEXP names = Rf_getAttrib(args, R_NamesSymbol);
    if (TYPEOF(names) != STRSXP || std::strcmp(CHAR(STRING_ELT(names, 0)), "fetches") != 0)
      return nullptr;
    return VECTOR_ELT(args, 0);
  }

  Rcpp::RObject begin_, after_create_session_, before_run_, after_run_, end_;
  Rcpp::RObject r_session_, r_context_;
  Rcpp::RObject no_results_;  // run values without fetches, immutable
  Rcpp::RObject token_;       // the continuation token of every call
  Rcpp::RObject before_call_, after_call_;
  Rcpp::RObject looked_up_;  // fetches found by name in another structure
  FetchPlan plan_;
  bool fetching_ = false;  // before_run() asked for tensors this step
};

}  // namespace cppestimators
