// The R boundary for an input's columns: per-call checks and reads of R
// vectors, one pass in C++ instead of a loop over the columns in R.
#include "r_data.h"
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>

// Per-call checks of an input's columns, one pass in C++ instead of a loop
// over the columns in R (see R/data_input.R and R/input_fn.R).

// Whether the list `kept` holds the very vectors (the same objects, not
// copies) that are elements at[i] (1-based) of the list `features`: the
// feature block cache's key, compared without building a list of them.
// [[Rcpp::export(rng = false)]]
bool cpp_same_vectors(SEXP kept, SEXP features, SEXP at) {
  if (TYPEOF(kept) != VECSXP || TYPEOF(features) != VECSXP || TYPEOF(at) != INTSXP ||
      XLENGTH(kept) != XLENGTH(at))
    return false;
  const int* pos = INTEGER(at);
  const R_xlen_t n = XLENGTH(features);
  for (R_xlen_t i = 0; i < XLENGTH(at); ++i) {
    if (pos[i] == NA_INTEGER || pos[i] < 1 || pos[i] > n) return false;
    if (VECTOR_ELT(kept, i) != VECTOR_ELT(features, pos[i] - 1)) return false;
  }
  return true;
}

// Whether any element of the list is an R object (has a class attribute).
// [[Rcpp::export(rng = false)]]
bool cpp_any_object(SEXP columns) {
  for (R_xlen_t i = 0; i < Rf_xlength(columns); ++i)
    if (OBJECT(VECTOR_ELT(columns, i))) return true;
  return false;
}

// The 1-based positions of the elements that carry a class other than a
// factor's (Date, integer64, AsIs, a class the package does not know...):
// the ones read_columns() (R/column_reading.R) looks at, by class, before
// anything reads them by their storage type. None for plain data: one pass
// over the list's headers.
// [[Rcpp::export(rng = false)]]
Rcpp::IntegerVector cpp_classed_columns(SEXP columns) {
  std::vector<int> at;
  for (R_xlen_t i = 0; i < Rf_xlength(columns); ++i) {
    SEXP x = VECTOR_ELT(columns, i);
    if (OBJECT(x) && !Rf_isFactor(x)) at.push_back(static_cast<int>(i + 1));
  }
  return Rcpp::IntegerVector(at.begin(), at.end());
}

// A bit64::integer64 vector (64-bit integers kept in the bits of a double
// vector) as the numbers it holds: list(values = <double>) when each is
// exact as a double (at most 2^53 in magnitude; NA stays NA), else
// list(row = <the first that is not, 1-based>, value = <its digits>).
// Its dimensions, if any, are kept.
// [[Rcpp::export(rng = false)]]
Rcpp::List cpp_integer64_as_double(SEXP x) {
  if (TYPEOF(x) != REALSXP) Rcpp::stop("internal: an integer64 vector is stored as doubles");
  const R_xlen_t n = Rf_xlength(x);
  const double* bits = REAL(x);
  constexpr std::int64_t exact = std::int64_t{1} << 53;
  constexpr std::int64_t na = std::numeric_limits<std::int64_t>::min();
  Rcpp::NumericVector out(n);
  for (R_xlen_t i = 0; i < n; ++i) {
    std::int64_t v;
    std::memcpy(&v, bits + i, sizeof v);
    if (v == na) {
      out[i] = NA_REAL;
    } else if (v > exact || v < -exact) {
      return Rcpp::List::create(Rcpp::Named("row") = static_cast<double>(i + 1),
                                Rcpp::Named("value") = std::to_string(v));
    } else {
      out[i] = static_cast<double>(v);
    }
  }
  SEXP dim = Rf_getAttrib(x, R_DimSymbol);
  if (!Rf_isNull(dim)) Rf_setAttrib(out, R_DimSymbol, dim);
  return Rcpp::List::create(Rcpp::Named("values") = out);
}

// The standard deviation (n - 1 in the denominator, NAs left out) of each
// element that is a double or integer vector without a class or
// dimensions; NA for the others and for fewer than 2 values. One pass per
// vector (Welford's updates), nothing allocated but the result: what the
// scale check of a first training reads (warn_scales(), R/session.R),
// where stats::sd() made temporaries of each column's size.
// [[Rcpp::export(rng = false)]]
Rcpp::NumericVector cpp_column_sds(SEXP columns) {
  const R_xlen_t k = Rf_xlength(columns);
  Rcpp::NumericVector out(k, NA_REAL);
  for (R_xlen_t j = 0; j < k; ++j) {
    SEXP x = VECTOR_ELT(columns, j);
    if (OBJECT(x) || !Rf_isNull(Rf_getAttrib(x, R_DimSymbol))) continue;
    const bool dbl = TYPEOF(x) == REALSXP;
    if (!dbl && TYPEOF(x) != INTSXP) continue;
    const R_xlen_t n = Rf_xlength(x);
    const double* d = dbl ? REAL(x) : nullptr;
    const int* iv = dbl ? nullptr : INTEGER(x);
    double mean = 0, m2 = 0, count = 0;
    for (R_xlen_t i = 0; i < n; ++i) {
      double v;
      if (dbl) {
        v = d[i];
        if (std::isnan(v)) continue;
      } else {
        if (iv[i] == NA_INTEGER) continue;
        v = static_cast<double>(iv[i]);
      }
      count += 1;
      const double delta = v - mean;
      mean += delta / count;
      m2 += delta * (v - mean);
    }
    if (count >= 2) out[j] = std::sqrt(m2 / (count - 1));
  }
  return out;
}

// The type of each element as the check of new data names it (feature_type()
// in R/data_input.R): "categorical" (character), "logical" or "numeric"
// (integer or double) for vectors without a class; NA for the others (classed
// vectors and other types), which R classifies itself.
// [[Rcpp::export(rng = false)]]
Rcpp::CharacterVector cpp_feature_types(SEXP columns) {
  const R_xlen_t n = Rf_xlength(columns);
  Rcpp::CharacterVector out(n);
  Rcpp::String categorical("categorical"), logical("logical"), numeric("numeric");
  for (R_xlen_t i = 0; i < n; ++i) {
    SEXP x = VECTOR_ELT(columns, i);
    SEXP type = NA_STRING;
    if (!OBJECT(x)) {
      switch (TYPEOF(x)) {
        case STRSXP:
          type = categorical.get_sexp();
          break;
        case LGLSXP:
          type = logical.get_sexp();
          break;
        case INTSXP:
        case REALSXP:
          type = numeric.get_sexp();
          break;
        default:
          break;
      }
    }
    SET_STRING_ELT(out, i, type);
  }
  return out;
}

// NROW() of each element: its first dimension, or its length; NA for a data
// frame (whose rows R counts).
// [[Rcpp::export(rng = false)]]
Rcpp::NumericVector cpp_column_rows(SEXP columns) {
  const R_xlen_t n = Rf_xlength(columns);
  Rcpp::NumericVector out(n);
  for (R_xlen_t i = 0; i < n; ++i) {
    SEXP x = VECTOR_ELT(columns, i);
    if (OBJECT(x) && (Rf_inherits(x, "data.frame") || Rf_isS4(x))) {
      out[i] = NA_REAL;  // (R's NROW() counts them: a sparse matrix's rows are in its Dim slot)
      continue;
    }
    SEXP dim = Rf_getAttrib(x, R_DimSymbol);
    out[i] = Rf_xlength(dim) > 0 ? static_cast<double>(INTEGER(dim)[0])
                                 : static_cast<double>(Rf_xlength(x));
  }
  return out;
}

// The rows of a double matrix as a list of vectors, as
// lapply(seq_len(nrow(m)), function(i) m[i, ]) makes them (named by the
// column names, if any), without a call of R per row.
// [[Rcpp::export(rng = false)]]
Rcpp::List cpp_matrix_rows(Rcpp::NumericMatrix m) {
  const int rows = m.nrow(), cols = m.ncol();
  SEXP dimnames = Rf_getAttrib(m, R_DimNamesSymbol);
  SEXP names = Rf_isNull(dimnames) ? R_NilValue : VECTOR_ELT(dimnames, 1);
  Rcpp::List out(rows);
  const double* x = m.begin();
  for (int i = 0; i < rows; ++i) {
    Rcpp::NumericVector row(cols);
    for (int j = 0; j < cols; ++j) row[j] = x[static_cast<std::size_t>(j) * rows + i];
    if (!Rf_isNull(names)) row.attr("names") = names;
    out[i] = row;
  }
  return out;
}

// The mean and standard deviation (1/n) of each column of a sparse matrix
// from its compressed columns (`p`, `x` slots of a dgCMatrix with `n`
// rows), zeros included, without a copy of its values.
// [[Rcpp::export(rng = false)]]
Rcpp::List cpp_sparse_column_moments(Rcpp::IntegerVector p, Rcpp::NumericVector x, double n) {
  const R_xlen_t width = p.size() - 1;
  if (width < 0 || !(n > 0)) Rcpp::stop("internal: a sparse matrix without columns or rows");
  Rcpp::NumericVector mean(width), sd(width);
  for (R_xlen_t j = 0; j < width; ++j) {
    double s = 0.0, s2 = 0.0;
    for (int k = p[j]; k < p[j + 1]; ++k) {
      s += x[k];
      s2 += x[k] * x[k];
    }
    const double m = s / n;
    mean[j] = m;
    sd[j] = std::sqrt(std::max(0.0, s2 / n - m * m));
  }
  return Rcpp::List::create(Rcpp::Named("mean") = mean, Rcpp::Named("sd") = sd);
}
