#include "fetch.h"

#include <string>

namespace cppestimators {

std::string tensor_base_name(const std::string& name) {
  if (name.size() > 2 && name.compare(name.size() - 2, 2, ":0") == 0)
    return name.substr(0, name.size() - 2);
  return name;
}

namespace {

// rows x cols row-major floats -> R vector (cols == 1) or matrix.
SEXP as_r(const float* data, int rows, int cols, bool matrix = false) {
  if (cols == 1 && !matrix) {
    Rcpp::NumericVector v(rows);
    for (int i = 0; i < rows; ++i) v[i] = data[i];
    return v;
  }
  Rcpp::NumericMatrix m(rows, cols);
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) m(i, j) = data[static_cast<std::size_t>(i) * cols + j];
  return m;
}

bool is_handle(SEXP x) { return Rf_inherits(x, "cppestimators_tensor"); }

std::string handle_name(SEXP x) {
  Rcpp::List h(x);
  return Rcpp::as<std::string>(h["name"]);
}

}  // namespace

SEXP fetch_tensor(const Session& s, const std::string& full_name) {
  const std::string name = tensor_base_name(full_name);
  const Head& head = s.head();
  const int rows = s.rows();
  if (name == "loss") return Rcpp::wrap(s.loss());
  if (name == "global_step") return Rcpp::wrap(static_cast<double>(s.global_step()));
  if (name == "learning_rate") return Rcpp::wrap(s.learning_rate());
  if (name == "per_example_loss")
    return as_r(s.per_example_losses(), rows, head.per_example_dim());
  if (name == "average_loss") {
    const int m = rows * head.per_example_dim();
    return Rcpp::wrap(m > 0 ? s.loss() / m : 0.0);
  }
  if (name == "logits") return as_r(s.logits(), rows, head.logits_dim());
  if (name == "labels") {
    if (s.mode() == Mode::Predict) Rcpp::stop("tensor 'labels' does not exist when predicting");
    return as_r(s.labels(), rows, head.label_dim());
  }
  if (name == "predictions") {
    const std::string key = head.kind() == HeadKind::Regression ? "predictions"
                            : head.kind() == HeadKind::Binary   ? "logistic"
                                                                : "probabilities";
    const int w = head.key_width(key);
    Rcpp::NumericVector tmp(static_cast<R_xlen_t>(rows) * w);
    head.predict(key, s.logits(), rows, tmp.begin());
    if (w == 1) return tmp;
    Rcpp::NumericMatrix m(rows, w);
    for (int i = 0; i < rows; ++i)
      for (int j = 0; j < w; ++j) m(i, j) = tmp[static_cast<R_xlen_t>(i) * w + j];
    return m;
  }
  if (const VariableRef* v = s.estimator().find_variable(name)) {
    if (v->shape.size() == 2) return as_r(v->data, v->shape[0], v->shape[1], true);
    Rcpp::NumericVector out(v->size);
    for (std::size_t i = 0; i < v->size; ++i) out[i] = v->data[i];
    return out;
  }
  Rcpp::stop("unknown tensor '" + full_name +
             "'; known names are loss, per_example_loss, average_loss, global_step, "
             "learning_rate, logits, predictions, labels and the variables of variable_names()");
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
  Rcpp::RObject obj(x);
  Rcpp::CharacterVector cls = Rcpp::Function("class")(obj);
  Rcpp::stop("cannot fetch an object of class '" + Rcpp::as<std::string>(cls[0]) +
             "': expected a tensor handle, a tensor name or a list of them");
}

}  // namespace cppestimators
