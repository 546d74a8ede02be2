#include "r_fetch.h"

#include <cstring>
#include <string>
#include <vector>

namespace cppestimators {

namespace {
bool is_handle(SEXP x) { return Rf_inherits(x, "cppestimators_tensor"); }

std::string handle_name(SEXP x) {
  Rcpp::List h(x);
  return Rcpp::as<std::string>(h["name"]);
}

// The name of a tensor handle as R's cached string, read without copies;
// NULL when the handle has no `name` holding one string (handle_name() then
// reports it).
SEXP handle_key(SEXP h) {
  if (TYPEOF(h) != VECSXP) return nullptr;
  SEXP names = Rf_getAttrib(h, R_NamesSymbol);
  if (TYPEOF(names) != STRSXP) return nullptr;
  for (R_xlen_t i = 0; i < XLENGTH(names); ++i) {
    if (std::strcmp(CHAR(STRING_ELT(names, i)), "name") != 0) continue;
    SEXP v = VECTOR_ELT(h, i);
    if (TYPEOF(v) != STRSXP || XLENGTH(v) != 1 || STRING_ELT(v, 0) == NA_STRING) return nullptr;
    return STRING_ELT(v, 0);
  }
  return nullptr;
}

bool is_name(SEXP x) { return TYPEOF(x) == STRSXP && Rf_length(x) == 1; }

// The tensor name of a fetch (a handle or a name) as a cached R string, or
// NULL for other values.
SEXP leaf_key(SEXP x) {
  if (is_handle(x)) return handle_key(x);
  if (is_name(x)) return STRING_ELT(x, 0);
  return nullptr;
}

// Whether two names attributes hold the same strings (cached strings are
// equal exactly when they are the same object).
bool same_names(SEXP a, SEXP b) {
  if (a == b) return true;
  if (TYPEOF(a) != STRSXP || TYPEOF(b) != STRSXP || XLENGTH(a) != XLENGTH(b)) return false;
  for (R_xlen_t i = 0; i < XLENGTH(a); ++i)
    if (STRING_ELT(a, i) != STRING_ELT(b, i)) return false;
  return true;
}

[[noreturn]] void stop_unknown(const Session& s, const std::string& name) {
  Rcpp::stop("unknown tensor '" + name + "'; known names are " + known_tensor_names() +
             unknown_tensor_hint(s, tensor_base_view(name)));
}

[[noreturn]] void stop_type(int type) {
  Rcpp::stop("cannot fetch an object of type '" + std::string(Rf_type2char(type)) +
             "': expected a tensor handle, a tensor name or a list of them");
}
}  // namespace

SEXP tensor_to_r(const TensorValue& t) {
  if (t.shape.size() == 2) {
    const int rows = t.shape[0], cols = t.shape[1];
    SEXP m = Rf_allocMatrix(REALSXP, rows, cols);
    double* out = REAL(m);
    for (int i = 0; i < rows; ++i)
      for (int j = 0; j < cols; ++j)
        out[i + static_cast<std::size_t>(j) * rows] =
            t.data[static_cast<std::size_t>(i) * cols + j];
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
  SEXP v = Rf_allocVector(REALSXP, static_cast<R_xlen_t>(t.data.size()));
  if (!t.data.empty()) std::memcpy(REAL(v), t.data.data(), t.data.size() * sizeof(double));
  return v;
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
  else if (is_name(x))
    name = Rcpp::as<std::string>(x);
  else if (TYPEOF(x) == VECSXP) {
    for (R_xlen_t i = 0; i < Rf_xlength(x); ++i) check_fetch_names(s, VECTOR_ELT(x, i));
    return;
  } else {
    return;  // resolve_fetches() reports other types
  }
  if (!tensor_exists(s, name)) stop_unknown(s, name);
}

SEXP resolve_fetches(const Session& s, SEXP x) {
  if (Rf_isNull(x)) return R_NilValue;
  if (is_handle(x)) return fetch_tensor(s, handle_name(x));
  if (is_name(x)) return fetch_tensor(s, Rcpp::as<std::string>(x));
  if (TYPEOF(x) == VECSXP) {
    const R_xlen_t n = Rf_xlength(x);
    Rcpp::List out(n);
    for (R_xlen_t i = 0; i < n; ++i) out[i] = resolve_fetches(s, VECTOR_ELT(x, i));
    SEXP nm = Rf_getAttrib(x, R_NamesSymbol);
    if (!Rf_isNull(nm)) out.attr("names") = nm;
    return out;
  }
  stop_type(TYPEOF(x));
}

void FetchPlan::prepare(const Session& s, SEXP fetches) {
  if (compiled_) {
    std::size_t at = 0;
    if (matches(fetches, at) && at == nodes_.size()) return;
  }
  compiled_ = false;
  has_other_ = false;
  nodes_.clear();
  compile(s, fetches);
  // keep every names vector and key the nodes point to
  std::vector<SEXP> names, keys;
  for (const Node& n : nodes_) {
    if (n.kind == Kind::List && !Rf_isNull(n.names)) names.push_back(n.names);
    if (n.kind == Kind::Tensor) keys.push_back(n.key);
  }
  Rcpp::List kept(names.size());
  for (std::size_t i = 0; i < names.size(); ++i) kept[static_cast<R_xlen_t>(i)] = names[i];
  Rcpp::CharacterVector kept_keys(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i)
    SET_STRING_ELT(kept_keys, static_cast<R_xlen_t>(i), keys[i]);
  keep_ = Rcpp::List::create(kept, kept_keys);
  compiled_ = true;
}

bool FetchPlan::matches(SEXP x, std::size_t& at) const {
  if (at >= nodes_.size()) return false;
  const Node& n = nodes_[at++];
  switch (n.kind) {
    case Kind::Null:
      return Rf_isNull(x);
    case Kind::Tensor: {
      SEXP key = leaf_key(x);
      return key != nullptr && key == n.key;
    }
    case Kind::List: {
      if (TYPEOF(x) != VECSXP || XLENGTH(x) != n.length || is_handle(x)) return false;
      if (!same_names(Rf_getAttrib(x, R_NamesSymbol), n.names)) return false;
      for (R_xlen_t i = 0; i < n.length; ++i)
        if (!matches(VECTOR_ELT(x, i), at)) return false;
      return true;
    }
    case Kind::Other:
      return false;  // compiled again, to report it in the same place
  }
  return false;
}

// The nodes of `x` in preorder, checking tensor names in that order (the
// first unknown one is the error, as in check_fetch_names()).
void FetchPlan::compile(const Session& s, SEXP x) {
  Node n;
  if (Rf_isNull(x)) {
    nodes_.push_back(std::move(n));
    return;
  }
  if (is_handle(x) || is_name(x)) {
    n.kind = Kind::Tensor;
    n.name = is_handle(x) ? handle_name(x) : Rcpp::as<std::string>(x);
    if (!tensor_exists(s, n.name)) stop_unknown(s, n.name);
    n.key = leaf_key(x);
    // a handle whose key cannot be compared (an NA name) never matches again
    if (n.key == nullptr) n.key = NA_STRING;
    nodes_.push_back(std::move(n));
    return;
  }
  if (TYPEOF(x) == VECSXP) {
    n.kind = Kind::List;
    n.length = XLENGTH(x);
    n.names = Rf_getAttrib(x, R_NamesSymbol);
    nodes_.push_back(std::move(n));
    for (R_xlen_t i = 0; i < XLENGTH(x); ++i) compile(s, VECTOR_ELT(x, i));
    return;
  }
  n.kind = Kind::Other;
  n.type = TYPEOF(x);
  has_other_ = true;
  nodes_.push_back(std::move(n));
}

SEXP FetchPlan::resolve(const Session& s) {
  if (!compiled_) Rcpp::stop("internal: no fetches were prepared");
  if (has_other_) {
    for (const Node& n : nodes_)
      if (n.kind == Kind::Other) stop_type(n.type);
  }
  std::size_t at = 0;
  return build(s, at);
}

SEXP FetchPlan::build(const Session& s, std::size_t& at) {
  Node& n = nodes_[at++];
  switch (n.kind) {
    case Kind::Tensor:
      if (!read_tensor(s, n.name, n.value))
        Rcpp::stop("unknown tensor '" + n.name + "'; known names are " + known_tensor_names());
      return tensor_to_r(n.value);
    case Kind::List: {
      Rcpp::Shield<SEXP> out(Rf_allocVector(VECSXP, n.length));
      for (R_xlen_t i = 0; i < n.length; ++i) SET_VECTOR_ELT(out, i, build(s, at));
      if (!Rf_isNull(n.names)) Rf_setAttrib(out, R_NamesSymbol, n.names);
      return out;
    }
    default:
      return R_NilValue;
  }
}

}  // namespace cppestimators
