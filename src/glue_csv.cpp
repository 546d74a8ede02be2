// The R boundary for the streaming CSV reader: a reader built from a record
// spec, read chunk by chunk into lists of R vectors.
#include <Rcpp.h>

#include <cppestimators/data/csv_reader.h>

#include <memory>

#include "r_stream.h"

using cppestimators::Chunk;
using cppestimators::ChunkColumn;
using cppestimators::ColumnType;
using cppestimators::csv_reader_from_r;
using cppestimators::CsvReader;
using cppestimators::CsvType;

namespace {

struct CsvBox {
  std::unique_ptr<CsvReader> reader;
  Chunk chunk;
};

CsvType csv_type_of(const std::string& t) {
  if (t == "double") return CsvType::Double;
  if (t == "integer") return CsvType::Integer;
  if (t == "logical") return CsvType::Logical;
  if (t == "character") return CsvType::String;
  if (t == "skip") return CsvType::Skip;
  Rcpp::stop("internal: unknown CSV column type '%s'", t);
}

}  // namespace

std::unique_ptr<CsvReader> cppestimators::csv_reader_from_r(
    Rcpp::CharacterVector files, Rcpp::CharacterVector names, Rcpp::CharacterVector types,
    Rcpp::List defaults, Rcpp::CharacterVector na, double skip, std::string delim, bool header,
    int threads, double block_size) {
  CsvOptions opt;
  opt.na = Rcpp::as<std::vector<std::string>>(na);
  if (delim.size() != 1) Rcpp::stop("internal: the delimiter must be one character");
  opt.delim = delim[0];
  opt.header = header;
  opt.skip = static_cast<std::int64_t>(skip);
  opt.threads = threads;
  opt.block_size = static_cast<std::size_t>(block_size);
  for (R_xlen_t j = 0; j < types.size(); ++j) {
    CsvColumnSpec c;
    c.name = Rcpp::as<std::string>(names[j]);
    c.type = csv_type_of(Rcpp::as<std::string>(types[j]));
    SEXP d = defaults[j];
    c.has_default = !Rf_isNull(d);
    if (c.has_default) {
      switch (c.type) {
        case CsvType::Double:
          c.double_default = REAL(d)[0];
          break;
        case CsvType::Integer:
          c.int_default = INTEGER(d)[0];
          break;
        case CsvType::Logical:
          c.int_default = LOGICAL(d)[0];
          break;
        case CsvType::String:
          c.string_default_missing = STRING_ELT(d, 0) == NA_STRING;
          if (!c.string_default_missing) c.string_default = CHAR(STRING_ELT(d, 0));
          break;
        default:
          break;
      }
    }
    opt.columns.push_back(std::move(c));
  }
  return std::make_unique<CsvReader>(Rcpp::as<std::vector<std::string>>(files), std::move(opt));
}

// `names` may be empty strings (taken from the first file's header);
// `defaults` a list of length-1 vectors, NULL for a column without one;
// `na` the texts of a missing value.
// [[Rcpp::export(rng = false)]]
SEXP cpp_csv_reader_new(Rcpp::CharacterVector files, Rcpp::CharacterVector names,
                        Rcpp::CharacterVector types, Rcpp::List defaults, Rcpp::CharacterVector na,
                        double skip, std::string delim, bool header, int threads,
                        double block_size) {
  auto box = std::make_unique<CsvBox>();
  box->reader = csv_reader_from_r(files, names, types, defaults, na, skip, delim, header, threads,
                                  block_size);
  return Rcpp::XPtr<CsvBox>(box.release(), true);
}

// The next chunk of up to `max_rows` rows as a named list of vectors, or
// NULL after the last row.
// [[Rcpp::export(rng = false)]]
SEXP cpp_csv_reader_next(SEXP reader, double max_rows) {
  Rcpp::XPtr<CsvBox> box(reader);
  if (!box->reader->next(box->chunk, static_cast<std::int64_t>(max_rows))) return R_NilValue;
  const Chunk& ch = box->chunk;
  const R_xlen_t n = static_cast<R_xlen_t>(ch.n);
  Rcpp::List out(ch.columns.size());
  Rcpp::CharacterVector keys(ch.columns.size());
  for (std::size_t j = 0; j < ch.columns.size(); ++j) {
    const ChunkColumn& c = ch.columns[j];
    keys[static_cast<R_xlen_t>(j)] = c.key;
    SEXP v = R_NilValue;
    switch (c.type) {
      case ColumnType::Double:
        v = PROTECT(Rf_allocVector(REALSXP, n));
        std::copy(c.doubles.begin(), c.doubles.begin() + n, REAL(v));
        break;
      case ColumnType::Integer:
        v = PROTECT(Rf_allocVector(INTSXP, n));
        std::copy(c.ints.begin(), c.ints.begin() + n, INTEGER(v));
        break;
      case ColumnType::Logical:
        v = PROTECT(Rf_allocVector(LGLSXP, n));
        std::copy(c.ints.begin(), c.ints.begin() + n, LOGICAL(v));
        break;
      default: {
        v = PROTECT(Rf_allocVector(STRSXP, n));
        for (R_xlen_t i = 0; i < n; ++i) {
          if (!c.present[static_cast<std::size_t>(i)]) {
            SET_STRING_ELT(v, i, NA_STRING);
            continue;
          }
          const std::string_view s = c.text_at(i);
          SET_STRING_ELT(v, i, Rf_mkCharLenCE(s.data(), static_cast<int>(s.size()), CE_UTF8));
        }
      }
    }
    out[static_cast<R_xlen_t>(j)] = v;
    UNPROTECT(1);
  }
  out.attr("names") = keys;
  return out;
}

// Rows counted without building R vectors (for timing the parser alone).
// [[Rcpp::export(rng = false)]]
double cpp_csv_reader_count(SEXP reader, double max_rows) {
  Rcpp::XPtr<CsvBox> box(reader);
  double rows = 0;
  while (box->reader->next(box->chunk, static_cast<std::int64_t>(max_rows)))
    rows += static_cast<double>(box->chunk.n);
  return rows;
}

// [[Rcpp::export(rng = false)]]
void cpp_csv_reader_rewind(SEXP reader) {
  Rcpp::XPtr<CsvBox> box(reader);
  box->reader->rewind();
}
