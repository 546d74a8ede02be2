#include "r_data.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>

namespace cppestimators {

namespace {

bool read_r_string(const void* vector, std::int64_t i, std::string_view* out) {
  SEXP c = STRING_ELT(static_cast<SEXP>(const_cast<void*>(vector)), static_cast<R_xlen_t>(i));
  if (c == NA_STRING) return false;
  *out = std::string_view(CHAR(c), static_cast<std::size_t>(LENGTH(c)));
  return true;
}

// Two passes, so that the cache misses of scattered rows and strings overlap:
// first the CHARSXP pointers of every row (prefetching their headers), then
// their text. The pointer buffer grows to the largest batch once.
void read_r_strings(const void* vector, std::int64_t offset, const int* rows, int count,
                    std::string_view* out, unsigned char* ok) {
  static std::vector<SEXP> held;
  if (held.size() < static_cast<std::size_t>(count)) held.resize(static_cast<std::size_t>(count));
  const SEXP* elts = STRING_PTR_RO(static_cast<SEXP>(const_cast<void*>(vector))) + offset;
  for (int r = 0; r < count; ++r) {
    held[static_cast<std::size_t>(r)] = elts[rows[r]];
    __builtin_prefetch(held[static_cast<std::size_t>(r)]);
  }
  for (int r = 0; r < count; ++r) {
    SEXP c = held[static_cast<std::size_t>(r)];
    ok[r] = c != NA_STRING;
    out[r] =
        ok[r] ? std::string_view(CHAR(c), static_cast<std::size_t>(LENGTH(c))) : std::string_view();
  }
}

// Rows and values per row of a vector (1), a 1-d array (1) or a matrix.
// `key`: the feature's name for the message, or "" for the response.
int shape_of(SEXP x, const std::string& key, R_xlen_t* rows) {
  SEXP dim = Rf_getAttrib(x, R_DimSymbol);
  const R_xlen_t ndim = Rf_isNull(dim) ? 0 : Rf_xlength(dim);
  if (ndim > 2)
    Rcpp::stop((key.empty() ? std::string("the response") : "feature '" + key + "'") +
               " is an array of " + std::to_string(ndim) +
               " dimensions; give a vector or a matrix");
  *rows = ndim == 0 ? Rf_xlength(x) : INTEGER(dim)[0];
  return ndim == 2 ? INTEGER(dim)[1] : 1;
}

std::vector<double> numbers_of(SEXP v) {
  const R_xlen_t n = Rf_xlength(v);
  std::vector<double> out(static_cast<std::size_t>(n));
  for (R_xlen_t i = 0; i < n; ++i) {
    if (TYPEOF(v) == REALSXP)
      out[i] = REAL(v)[i];
    else {
      const int x = TYPEOF(v) == INTSXP ? INTEGER(v)[i] : LOGICAL(v)[i];
      out[i] = x == NA_INTEGER ? R_NaN : static_cast<double>(x);
    }
  }
  return out;
}

bool is_spec(SEXP x) {
  if (TYPEOF(x) != VECSXP) return false;
  SEXP names = Rf_getAttrib(x, R_NamesSymbol);
  for (R_xlen_t i = 0; i < Rf_xlength(names); ++i)
    if (std::string(CHAR(STRING_ELT(names, i))) == "kind") return true;
  return false;
}

}  // namespace

namespace {

Spec convert_spec(SEXP x, std::vector<Rcpp::RObject>* host) {
  if (!is_spec(x)) Rcpp::stop("internal: an engine spec must be a list with a `kind`");
  Spec s;
  SEXP names = Rf_getAttrib(x, R_NamesSymbol);
  for (R_xlen_t i = 0; i < Rf_xlength(x); ++i) {
    const std::string field = CHAR(STRING_ELT(names, i));
    SEXP v = VECTOR_ELT(x, i);
    if (field == "kind") {
      s.kind = Rcpp::as<std::string>(v);
      continue;
    }
    switch (TYPEOF(v)) {
      case REALSXP:
      case INTSXP:
      case LGLSXP:
        s.nums[field] = numbers_of(v);
        break;
      case STRSXP:
        s.strs[field] = Rcpp::as<std::vector<std::string>>(v);
        break;
      case VECSXP:
        if (is_spec(v)) {
          s.lists[field].push_back(convert_spec(v, host));
        } else {
          auto& list = s.lists[field];
          for (R_xlen_t k = 0; k < Rf_xlength(v); ++k)
            list.push_back(convert_spec(VECTOR_ELT(v, k), host));
        }
        break;
      case CLOSXP:
      case BUILTINSXP:
      case SPECIALSXP:
        if (host != nullptr) {
          s.handles[field] = host->size();
          host->emplace_back(v);
        }
        break;
      default:
        break;  // NULL, environments, pointers: R-side only
    }
  }
  return s;
}

}  // namespace

Spec spec_from_r(SEXP x) { return convert_spec(x, nullptr); }

Spec spec_from_r(SEXP x, std::vector<Rcpp::RObject>& host) { return convert_spec(x, &host); }

void dataset_from_r(const Rcpp::List& features, SEXP labels, Dataset& data) {
  Rcpp::CharacterVector names = features.names();
  // a logical vector parallel to the features: which numeric ones R has
  // checked already (see feature_block() in R/feature_cache.R)
  SEXP checked = Rf_getAttrib(features, Rf_install("cppestimators_checked"));
  const bool has_checked = TYPEOF(checked) == LGLSXP && Rf_xlength(checked) == features.size();
  R_xlen_t n = -1;
  data.features.reserve(data.features.size() + static_cast<std::size_t>(features.size()));
  for (R_xlen_t i = 0; i < features.size(); ++i) {
    SEXP col = features[i];
    ColumnView v;
    v.key = std::string(names[i]);
    R_xlen_t rows = 0;
    v.width = shape_of(col, v.key, &rows);
    v.checked = has_checked && LOGICAL(checked)[i] == TRUE;
    v.n = rows;
    switch (TYPEOF(col)) {
      case REALSXP:
        v.type = ColumnType::Double;
        v.doubles = REAL_RO(col);
        break;
      case LGLSXP:
        v.type = ColumnType::Logical;
        v.ints = LOGICAL_RO(col);
        break;
      case INTSXP:
        v.ints = INTEGER_RO(col);
        if (Rf_isFactor(col)) {
          v.type = ColumnType::Factor;
          v.levels = Rcpp::as<std::vector<std::string>>(Rf_getAttrib(col, R_LevelsSymbol));
        } else {
          v.type = ColumnType::Integer;
        }
        break;
      case STRSXP:
        v.type = ColumnType::String;
        v.strings = col;
        v.read_string = &read_r_string;
        v.read_strings = &read_r_strings;
        break;
      default:
        Rcpp::stop("feature '" + v.key +
                   "' must be numeric, logical, a factor or character, not of R type " +
                   std::string(Rf_type2char(TYPEOF(col))));
    }
    if (n < 0) n = rows;
    if (rows != n)
      Rcpp::stop("feature '" + v.key + "' has " + std::to_string(rows) +
                 " rows but the first feature has " + std::to_string(n));
    data.features.push_back(std::move(v));
  }
  if (!Rf_isNull(labels)) {
    if (TYPEOF(labels) != REALSXP) Rcpp::stop("internal: labels must be double");
    R_xlen_t rows = 0;
    const int width = shape_of(labels, "", &rows);
    if (n >= 0 && rows != n)
      Rcpp::stop("the response has " + std::to_string(rows) + " rows but the features have " +
                 std::to_string(n));
    if (n < 0) n = rows;
    data.labels = REAL_RO(labels);
    data.label_width = width;
  }
  data.n = n < 0 ? 0 : n;
}

}  // namespace cppestimators

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
    if (OBJECT(x) && Rf_inherits(x, "data.frame")) {
      out[i] = NA_REAL;
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
