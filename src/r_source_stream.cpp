// A streaming source whose rows come from R: a function next_chunk(n) that
// returns a data frame (or a list of equal-length columns) of at most n
// rows, NULL or no rows at the end of a pass, and rewind(), which starts a
// new pass (R/sql_dataset.R builds them over a DBI query). Columns are
// taken by position, named by the schema.
//
// The schema (column names and types) is fixed by the source description,
// so every chunk has the same columns whatever R returns: a chunk's column
// is taken by position and converted to the schema's type when every value
// converts exactly (an integer or logical column where doubles are
// expected, whole doubles where integers are, 0/1 where logicals are, a
// factor's labels where text is, a column of NAs anywhere); otherwise the
// read fails naming the column, the expected and the given type. Values are
// copied into the chunk's buffers, which are reused from chunk to chunk.
//
// An optional close() releases what R holds for the stream (a query's
// result) when the stream is destroyed, which happens on R's main thread.
// The R functions are kept alive by the pipeline's `host` (the stream holds
// them unprotected); an R error
// raised by a callback unwinds the C++ stack as an exception (Rcpp's
// unwind protection) and reaches R as that error.
#include <Rcpp.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "r_stream.h"
#include "r_utils.h"

using cppestimators::call_r;
using cppestimators::Chunk;
using cppestimators::ChunkColumn;
using cppestimators::column_type_name;
using cppestimators::ColumnType;
using cppestimators::kNaInteger;
using cppestimators::RowStream;

namespace {

// The R type names of the schema (R/sql_dataset.R, csv_types; "list_"
// and a type: a list column, one vector of that type per row).
ColumnType column_type_of(std::string name) {
  if (name.rfind("list_", 0) == 0) name = name.substr(5);
  if (name == "double") return ColumnType::Double;
  if (name == "integer") return ColumnType::Integer;
  if (name == "logical") return ColumnType::Logical;
  if (name == "character") return ColumnType::String;
  Rcpp::stop("internal: unknown column type '%s' of an R source", name);
}

// What an R column is, for messages: its class for classed vectors
// (factor, Date, ...), else its type.
std::string r_kind(SEXP x) {
  SEXP cls = Rf_getAttrib(x, R_ClassSymbol);
  if (TYPEOF(cls) == STRSXP && Rf_xlength(cls) > 0) return CHAR(STRING_ELT(cls, 0));
  return Rf_type2char(TYPEOF(x));
}

bool is_na_at(SEXP x, R_xlen_t i) {
  switch (TYPEOF(x)) {
    case REALSXP:
      return std::isnan(REAL(x)[i]);
    case INTSXP:
      return INTEGER(x)[i] == NA_INTEGER;
    case LGLSXP:
      return LOGICAL(x)[i] == NA_LOGICAL;
    case STRSXP:
      return STRING_ELT(x, i) == NA_STRING;
    default:
      return false;
  }
}

bool all_na(SEXP x, R_xlen_t n) {
  if (!Rf_isVectorAtomic(x)) return false;
  for (R_xlen_t i = 0; i < n; ++i)
    if (!is_na_at(x, i)) return false;
  return true;
}

std::string format_number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.15g", v);
  return buf;
}

class RSourceStream : public RowStream {
 public:
  RSourceStream(SEXP next_chunk, SEXP rewind, SEXP close, std::vector<std::string> names,
                std::vector<ColumnType> types, std::vector<bool> ragged)
      : next_(next_chunk),
        rewind_(rewind),
        close_(close),
        names_(std::move(names)),
        types_(std::move(types)),
        ragged_(std::move(ragged)) {}
  // Calls close() (when given): a stream dropped before the end of its pass
  // releases what R holds for it now rather than when R collects it. Not
  // while an exception unwinds (an R error may be on its way back to R),
  // and in a top-level context, so that an R error in close() stays there.
  ~RSourceStream() override {
    if (close_ != R_NilValue && std::uncaught_exceptions() == 0) R_ToplevelExec(call_close, close_);
  }

  std::int64_t read(Chunk& out, std::int64_t max_rows) override {
    shape(out);
    if (ended_) return 0;
    Rcpp::Shield<SEXP> n(Rf_ScalarReal(static_cast<double>(max_rows)));
    Rcpp::Shield<SEXP> df(call_r(next_, {n}));
    const std::int64_t rows = chunk_rows(df, max_rows);
    if (rows == 0) {
      ended_ = true;
      return 0;
    }
    for (std::size_t j = 0; j < types_.size(); ++j)
      fill(VECTOR_ELT(df, static_cast<R_xlen_t>(j)), static_cast<R_xlen_t>(rows), out.columns[j]);
    out.n = rows;
    first_row_ += rows;
    return rows;
  }

  void rewind() override {
    Rcpp::Shield<SEXP> ignored(call_r(rewind_, {}));
    ended_ = false;
    first_row_ = 0;
  }

  bool main_thread_only() const override { return true; }

 private:
  // Gives `out` the schema's columns (keeping its buffers when it has them)
  // and empties it.
  void shape(Chunk& out) const {
    bool same = out.columns.size() == types_.size();
    for (std::size_t j = 0; same && j < types_.size(); ++j) {
      const ChunkColumn& c = out.columns[j];
      same = c.key == names_[j] && c.type == types_[j] && c.width == 1 && c.ragged == ragged_[j];
    }
    if (!same) {
      out.columns.resize(types_.size());
      for (std::size_t j = 0; j < types_.size(); ++j) {
        ChunkColumn& c = out.columns[j];
        c.key = names_[j];
        c.type = types_[j];
        c.width = 1;
        c.ragged = ragged_[j];
      }
    }
    out.clear();
  }

  // The rows of what next_chunk() returned (0 at the end), after checking
  // that it is a list of the schema's number of columns of one length.
  std::int64_t chunk_rows(SEXP df, std::int64_t max_rows) const {
    if (Rf_isNull(df)) return 0;
    if (TYPEOF(df) != VECSXP)
      Rcpp::stop("the dataset's next_chunk() must return a data frame or NULL, not %s", r_kind(df));
    const R_xlen_t cols = Rf_xlength(df);
    if (cols == 0) return 0;
    if (cols != static_cast<R_xlen_t>(types_.size()))
      Rcpp::stop("a chunk of the dataset has %d columns where its schema has %d (%s)",
                 static_cast<int>(cols), static_cast<int>(types_.size()), schema_names());
    const R_xlen_t rows = Rf_xlength(VECTOR_ELT(df, 0));
    for (R_xlen_t j = 1; j < cols; ++j)
      if (Rf_xlength(VECTOR_ELT(df, j)) != rows)
        Rcpp::stop("a chunk of the dataset has columns of different lengths ('%s': %d, '%s': %d)",
                   names_[0], static_cast<long long>(rows), names_[static_cast<std::size_t>(j)],
                   static_cast<long long>(Rf_xlength(VECTOR_ELT(df, j))));
    if (rows > max_rows)
      Rcpp::stop("the dataset's next_chunk(%d) returned %d rows", static_cast<long long>(max_rows),
                 static_cast<long long>(rows));
    return rows;
  }

  std::string schema_names() const {
    std::string s;
    for (std::size_t j = 0; j < names_.size(); ++j) s += (j ? ", " : "") + names_[j];
    return s;
  }

  [[noreturn]] void type_error(const ChunkColumn& c, SEXP x, const std::string& why) const {
    Rcpp::stop("column '%s' of the dataset: expected %s, got %s%s", c.key, column_type_name(c.type),
               r_kind(x), why);
  }
  [[noreturn]] void value_error(const ChunkColumn& c, SEXP x, const std::string& what,
                                const std::string& value, R_xlen_t i) const {
    type_error(c, x,
               " with " + what + " (" + value + " at row " +
                   format_number(static_cast<double>(first_row_ + i + 1)) + ")");
  }

  // Copies R column `x` (n values) into chunk column `c`, converting it to
  // c's type.
  void fill(SEXP x, R_xlen_t n, ChunkColumn& c) {
    if (c.ragged) {
      fill_ragged(x, n, c);
      return;
    }
    // (the R functions behind a source read their columns by class first,
    // R/column_reading.R; a classed vector that still arrives here would be
    // read by its storage type, so it is refused)
    const bool factor = Rf_isFactor(x);
    if (OBJECT(x) && !factor)
      Rcpp::stop(
          "column '%s' of the dataset is a %s: a dataset holds numbers, logicals and text; "
          "convert it (e.g. to a number or a string) before it is read",
          c.key, r_kind(x));
    if (!factor && all_na(x, n)) {
      fill_missing(n, c);
      return;
    }
    const int type = TYPEOF(x);
    switch (c.type) {
      case ColumnType::Double:
        if (factor || (type != REALSXP && type != INTSXP && type != LGLSXP)) type_error(c, x, "");
        c.doubles.resize(static_cast<std::size_t>(n));
        if (type == REALSXP) {
          const double* v = REAL(x);
          std::copy(v, v + n, c.doubles.begin());
        } else {
          const int* v = type == INTSXP ? INTEGER(x) : LOGICAL(x);
          for (R_xlen_t i = 0; i < n; ++i)
            c.doubles[static_cast<std::size_t>(i)] =
                v[i] == NA_INTEGER ? NA_REAL : static_cast<double>(v[i]);
        }
        return;
      case ColumnType::Integer:
      case ColumnType::Logical:
        fill_ints(x, n, factor, c);
        return;
      default:
        fill_text(x, n, factor, c);
    }
  }

  // A list column: each row's vector appended to the typed buffer (a NULL
  // or empty vector: a row without values), its end in row_splits.
  void fill_ragged(SEXP x, R_xlen_t n, ChunkColumn& c) {
    if (TYPEOF(x) != VECSXP || OBJECT(x))
      type_error(c, x, " (a list column: one vector of values per row)");
    for (R_xlen_t i = 0; i < n; ++i) {
      SEXP e = VECTOR_ELT(x, i);
      const R_xlen_t m = Rf_isNull(e) ? 0 : Rf_xlength(e);
      const bool factor = Rf_isFactor(e);
      const int type = TYPEOF(e);
      if (m > 0) {
        if (c.type == ColumnType::String) {
          if (!factor && type != STRSXP) value_error(c, x, "a row that is not text", r_kind(e), i);
          fill_text(e, m, factor, c);
        } else if (factor || (type != REALSXP && type != INTSXP && type != LGLSXP)) {
          value_error(c, x, "a row that is not numbers", r_kind(e), i);
        } else if (c.type == ColumnType::Double) {
          for (R_xlen_t k = 0; k < m; ++k) {
            double d = NA_REAL;
            if (type == REALSXP) {
              d = REAL(e)[k];
            } else {
              const int w = type == INTSXP ? INTEGER(e)[k] : LOGICAL(e)[k];
              if (w != NA_INTEGER) d = w;
            }
            c.doubles.push_back(d);
          }
        } else {
          for (R_xlen_t k = 0; k < m; ++k) {
            int v = kNaInteger;
            if (type == REALSXP) {
              const double d = REAL(e)[k];
              if (!std::isnan(d)) {
                if (d != std::floor(d) || !(d > -2147483648.0 && d < 2147483648.0))
                  value_error(c, x, "values that are not integers", format_number(d), i);
                v = static_cast<int>(d);
              }
            } else {
              const int w = type == INTSXP ? INTEGER(e)[k] : LOGICAL(e)[k];
              if (w != NA_INTEGER) v = w;
            }
            c.ints.push_back(v);
          }
        }
      }
      c.row_splits.push_back(c.row_splits.back() + static_cast<std::int64_t>(m));
    }
  }

  void fill_missing(R_xlen_t n, ChunkColumn& c) {
    const std::size_t m = static_cast<std::size_t>(n);
    if (c.type == ColumnType::Double) {
      c.doubles.assign(m, NA_REAL);
    } else if (c.type == ColumnType::String) {
      for (std::size_t i = 0; i < m; ++i) c.push_text(std::string_view(), false);
    } else {
      c.ints.assign(m, kNaInteger);
    }
  }

  void fill_ints(SEXP x, R_xlen_t n, bool factor, ChunkColumn& c) {
    const int type = TYPEOF(x);
    const bool logical = c.type == ColumnType::Logical;
    if (factor || (type != REALSXP && type != INTSXP && type != LGLSXP)) type_error(c, x, "");
    c.ints.resize(static_cast<std::size_t>(n));
    if (type == REALSXP) {
      const double* v = REAL(x);
      for (R_xlen_t i = 0; i < n; ++i) {
        const double d = v[i];
        int& o = c.ints[static_cast<std::size_t>(i)];
        if (std::isnan(d)) {
          o = kNaInteger;
        } else if (logical ? (d != 0 && d != 1)
                           : (d != std::floor(d) || !(d > -2147483648.0 && d < 2147483648.0))) {
          value_error(c, x, logical ? "values other than 0 and 1" : "values that are not integers",
                      format_number(d), i);
        } else {
          o = static_cast<int>(d);
        }
      }
      return;
    }
    const int* v = type == INTSXP ? INTEGER(x) : LOGICAL(x);
    if (logical && type == INTSXP)
      for (R_xlen_t i = 0; i < n; ++i)
        if (v[i] != NA_INTEGER && v[i] != 0 && v[i] != 1)
          value_error(c, x, "values other than 0 and 1", std::to_string(v[i]), i);
    std::copy(v, v + n, c.ints.begin());
  }

  void fill_text(SEXP x, R_xlen_t n, bool factor, ChunkColumn& c) {
    if (!factor && TYPEOF(x) != STRSXP) type_error(c, x, "");
    const void* vmax = vmaxget();  // Rf_translateCharUTF8's conversions, freed below
    if (factor) {
      SEXP levels = Rf_getAttrib(x, R_LevelsSymbol);
      const R_xlen_t k = TYPEOF(levels) == STRSXP ? Rf_xlength(levels) : 0;
      levels_.clear();
      for (R_xlen_t l = 0; l < k; ++l) levels_.push_back(utf8(c, x, STRING_ELT(levels, l), l));
      const int* v = INTEGER(x);
      for (R_xlen_t i = 0; i < n; ++i) {
        if (v[i] == NA_INTEGER || v[i] < 1 || v[i] > k) {
          c.push_text(std::string_view(), false);
        } else {
          c.push_text(levels_[static_cast<std::size_t>(v[i] - 1)], true);
        }
      }
    } else {
      for (R_xlen_t i = 0; i < n; ++i) {
        SEXP s = STRING_ELT(x, i);
        if (s == NA_STRING) {
          c.push_text(std::string_view(), false);
        } else {
          c.push_text(utf8(c, x, s, i), true);
        }
      }
    }
    vmaxset(vmax);
  }

  std::string_view utf8(const ChunkColumn& c, SEXP x, SEXP s, R_xlen_t i) const {
    if (Rf_getCharCE(s) == CE_BYTES)
      value_error(c, x, "strings of unknown encoding (\"bytes\")", "a string", i);
    return std::string_view(Rf_translateCharUTF8(s));
  }

  static void call_close(void* fn) {
    SEXP call = PROTECT(Rf_lang1(static_cast<SEXP>(fn)));
    Rf_eval(call, R_GlobalEnv);
    UNPROTECT(1);
  }

  SEXP next_, rewind_, close_;  // kept alive by the pipeline's host (close_: or R_NilValue)
  std::vector<std::string> names_;
  std::vector<ColumnType> types_;
  std::vector<bool> ragged_;              // per column: a list column
  std::vector<std::string_view> levels_;  // a factor's labels, reused
  std::int64_t first_row_ = 0;            // rows of this pass before the chunk being read
  bool ended_ = false;
};

}  // namespace

std::unique_ptr<RowStream> cppestimators::r_source_stream_from_r(const Rcpp::List& src,
                                                                 std::vector<Rcpp::RObject>& host) {
  Rcpp::RObject next_chunk = src["next_chunk"], rewind = src["rewind"];
  Rcpp::RObject close =
      src.containsElementNamed("close") ? Rcpp::RObject(src["close"]) : Rcpp::RObject(R_NilValue);
  if (!Rf_isFunction(next_chunk) || !Rf_isFunction(rewind) ||
      (!Rf_isNull(close) && !Rf_isFunction(close)))
    Rcpp::stop("internal: an R source needs the functions next_chunk and rewind");
  const auto names = Rcpp::as<std::vector<std::string>>(src["names"]);
  const auto type_names = Rcpp::as<std::vector<std::string>>(src["types"]);
  if (names.empty() || names.size() != type_names.size())
    Rcpp::stop("internal: an R source needs as many types as names, and one at least");
  std::vector<ColumnType> types;
  std::vector<bool> ragged;
  for (const auto& t : type_names) {
    types.push_back(column_type_of(t));
    ragged.push_back(t.rfind("list_", 0) == 0);
  }
  host.push_back(next_chunk);
  host.push_back(rewind);
  host.push_back(close);
  return std::make_unique<RSourceStream>(next_chunk, rewind, close, names, std::move(types),
                                         std::move(ragged));
}
