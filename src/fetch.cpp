#include "fetch.h"

#include <string>
#include <vector>

namespace cppestimators {

namespace {
bool is_handle(SEXP x) { return Rf_inherits(x, "cppestimators_tensor"); }

std::string handle_name(SEXP x) {
  Rcpp::List h(x);
  return Rcpp::as<std::string>(h["name"]);
}
}  // namespace

SEXP tensor_to_r(const TensorValue& t) {
  if (t.shape.size() == 2) {
    const int rows = t.shape[0], cols = t.shape[1];
    Rcpp::NumericMatrix m(rows, cols);
    for (int i = 0; i < rows; ++i)
      for (int j = 0; j < cols; ++j) m(i, j) = t.data[static_cast<std::size_t>(i) * cols + j];
    return m;
  }
  if (t.shape.size() > 2) {  // an array with the same indices (R's order is column-major)
    const std::size_t rank = t.shape.size();
    Rcpp::NumericVector out(t.data.size());
    std::vector<std::size_t> index(rank, 0);
    for (std::size_t i = 0; i < t.data.size(); ++i) {  // i: the row-major position
      std::size_t at = 0;
      for (std::size_t d = rank; d-- > 0;)
        at = at * static_cast<std::size_t>(t.shape[d]) + index[d];
      out[static_cast<R_xlen_t>(at)] = t.data[i];
      for (std::size_t d = rank; d-- > 0;) {
        if (++index[d] < static_cast<std::size_t>(t.shape[d])) break;
        index[d] = 0;
      }
    }
    Rcpp::IntegerVector dim(t.shape.begin(), t.shape.end());
    out.attr("dim") = dim;
    return out;
  }
  return Rcpp::NumericVector(t.data.begin(), t.data.end());
}

SEXP fetch_tensor(const Session& s, const std::string& name) {
  TensorValue v;
  if (!read_tensor(s, name, v))
    Rcpp::stop("unknown tensor '" + name + "'; known names are " + known_tensor_names());
  return tensor_to_r(v);
}

void check_fetch_names(const Session& s, SEXP x) {
  if (Rf_isNull(x)) return;
  std::string name;
  if (is_handle(x))
    name = handle_name(x);
  else if (TYPEOF(x) == STRSXP && Rf_length(x) == 1)
    name = Rcpp::as<std::string>(x);
  else if (TYPEOF(x) == VECSXP) {
    for (R_xlen_t i = 0; i < Rf_xlength(x); ++i) check_fetch_names(s, VECTOR_ELT(x, i));
    return;
  } else {
    return;  // resolve_fetches() reports other types
  }
  if (!tensor_exists(s, name))
    Rcpp::stop("unknown tensor '" + name + "'; known names are " + known_tensor_names() +
               unknown_tensor_hint(s, tensor_base_view(name)));
}

SEXP resolve_fetches(const Session& s, SEXP x) {
  if (Rf_isNull(x)) return R_NilValue;
  if (is_handle(x)) return fetch_tensor(s, handle_name(x));
  if (TYPEOF(x) == STRSXP && Rf_length(x) == 1) return fetch_tensor(s, Rcpp::as<std::string>(x));
  if (TYPEOF(x) == VECSXP) {
    const R_xlen_t n = Rf_xlength(x);
    Rcpp::List out(n);
    for (R_xlen_t i = 0; i < n; ++i) out[i] = resolve_fetches(s, VECTOR_ELT(x, i));
    SEXP nm = Rf_getAttrib(x, R_NamesSymbol);
    if (!Rf_isNull(nm)) out.attr("names") = nm;
    return out;
  }
  Rcpp::stop("cannot fetch an object of type '" + std::string(Rf_type2char(TYPEOF(x))) +
             "': expected a tensor handle, a tensor name or a list of them");
}

}  // namespace cppestimators
