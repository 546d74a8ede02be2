// Small helpers of the R boundary: reading optional fields of spec lists and
// calling R closures (with Rcpp's unwind protection, so an R error unwinds
// the C++ stack as an exception).
#pragma once
#include <Rcpp.h>

#include <initializer_list>
#include <vector>

namespace cppestimators {

inline double num_or(const Rcpp::List& l, const char* name, double dflt) {
  if (!l.containsElementNamed(name) || Rf_isNull(l[name])) return dflt;
  return Rcpp::as<double>(l[name]);
}

inline bool flag_or(const Rcpp::List& l, const char* name, bool dflt) {
  if (!l.containsElementNamed(name) || Rf_isNull(l[name])) return dflt;
  return Rcpp::as<bool>(l[name]);
}

// fn(args...) evaluated in the global environment.
inline SEXP call_r(SEXP fn, std::initializer_list<SEXP> args) {
  std::vector<SEXP> v(args);
  Rcpp::Shield<SEXP> fn_(fn);
  SEXP l = R_NilValue;
  for (auto it = v.rbegin(); it != v.rend(); ++it) l = Rf_cons(*it, l);
  Rcpp::Shield<SEXP> argl(l);
  Rcpp::Shield<SEXP> call(Rf_lcons(fn_, argl));
  return Rcpp::Rcpp_fast_eval(call, R_GlobalEnv);
}

}  // namespace cppestimators
