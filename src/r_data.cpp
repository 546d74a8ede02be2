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

// Row `row` of a list column: its element, a character, integer, logical
// or double vector (or NULL), read in place. The elements were checked and
// any ALTREP one expanded when the column was bound (list_view()), so this
// allocates nothing and may run on any thread.
void read_r_list_row(const void* list, std::int64_t row, RaggedRow* out) {
  SEXP x = VECTOR_ELT(static_cast<SEXP>(const_cast<void*>(list)), static_cast<R_xlen_t>(row));
  out->begin = 0;
  out->count = Rf_isNull(x) ? 0 : static_cast<std::int64_t>(Rf_xlength(x));
  switch (TYPEOF(x)) {
    case STRSXP:
      out->type = ColumnType::String;
      out->strings = x;
      break;
    case REALSXP:
      out->type = ColumnType::Double;
      out->doubles = REAL_RO(x);
      break;
    case INTSXP:
    case LGLSXP:
      out->type = ColumnType::Integer;
      out->ints = TYPEOF(x) == INTSXP ? INTEGER_RO(x) : LOGICAL_RO(x);
      break;
    default:
      out->type = ColumnType::Integer;
      out->count = 0;
  }
}

// A list column (one vector of values per row) as a ragged view: every
// element checked once here, on R's thread.
void list_view(SEXP col, ColumnView& v) {
  const R_xlen_t n = Rf_xlength(col);
  bool text = false, numbers = false, doubles = false;
  for (R_xlen_t i = 0; i < n; ++i) {
    SEXP x = VECTOR_ELT(col, i);
    switch (TYPEOF(x)) {
      case NILSXP:
        continue;
      case STRSXP:
        text = true;
        break;
      case REALSXP:
        doubles = true;
        numbers = true;
        break;
      case INTSXP:
      case LGLSXP:
        if (Rf_isFactor(x))
          Rcpp::stop("feature '" + v.key + "' (row " + std::to_string(i + 1) +
                     ") holds a factor: a list column holds character or integer vectors");
        numbers = true;
        break;
      default:
        Rcpp::stop("feature '" + v.key + "' (row " + std::to_string(i + 1) + ") holds " +
                   std::string(Rf_type2char(TYPEOF(x))) +
                   ": a list column holds character, integer or double vectors (one per row)");
    }
    if (text && numbers)
      Rcpp::stop("feature '" + v.key +
                 "' mixes character and numeric rows: a list column holds one type of values");
    if (ALTREP(x)) DATAPTR(x);  // expanded now, so that reading it later allocates nothing
  }
  v.type = text ? ColumnType::String : doubles ? ColumnType::Double : ColumnType::Integer;
  v.ragged = col;
  v.read_row = &read_r_list_row;
  v.read_string = &read_r_string;
  v.width = 1;
  v.n = n;
}

// A dgCMatrix as a sparse view of its slots, read in place.
void sparse_view(SEXP col, ColumnView& v, R_xlen_t* rows) {
  SEXP dim = R_do_slot(col, Rf_install("Dim"));
  SEXP p = R_do_slot(col, Rf_install("p")), i = R_do_slot(col, Rf_install("i")),
       x = R_do_slot(col, Rf_install("x"));
  if (TYPEOF(p) != INTSXP || TYPEOF(i) != INTSXP || TYPEOF(x) != REALSXP || Rf_xlength(dim) != 2)
    Rcpp::stop("feature '" + v.key + "' is a malformed dgCMatrix");
  *rows = INTEGER(dim)[0];
  v.width = INTEGER(dim)[1];
  v.type = ColumnType::Double;
  v.csc_p = INTEGER_RO(p);
  v.csc_i = INTEGER_RO(i);
  v.csc_x = REAL_RO(x);
  if (Rf_xlength(p) != static_cast<R_xlen_t>(v.width) + 1 ||
      Rf_xlength(i) < static_cast<R_xlen_t>(v.csc_p[v.width]) ||
      Rf_xlength(x) < static_cast<R_xlen_t>(v.csc_p[v.width]))
    Rcpp::stop("feature '" + v.key + "' is a malformed dgCMatrix");
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
    v.checked = has_checked && LOGICAL(checked)[i] == TRUE;
    if (Rf_isS4(col) && Rf_inherits(col, "dgCMatrix")) {
      sparse_view(col, v, &rows);
      v.n = rows;
    } else if (TYPEOF(col) == VECSXP) {
      list_view(col, v);
      rows = static_cast<R_xlen_t>(v.n);
    } else {
      v.width = shape_of(col, v.key, &rows);
      v.n = rows;
    }
    switch (v.is_sparse() || v.is_ragged() ? NILSXP : TYPEOF(col)) {
      case NILSXP:
        break;
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
                   "' must be numeric, logical, a factor, character, a list column or a sparse "
                   "matrix, not of R type " +
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
