// The R boundary for TFRecord files of tf.train.Example records: writing a
// data frame, and a streaming reader that returns chunks as lists of columns.
#include <Rcpp.h>

#include <cppestimators/data/chunk.h>
#include <cppestimators/io/atomic_file.h>
#include <cppestimators/io/example_proto.h>
#include <cppestimators/data/example_reader.h>
#include <cppestimators/io/tfrecord.h>

#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "r_stream.h"

using cppestimators::Chunk;
using cppestimators::ExampleEncoder;
using cppestimators::ExampleReader;
using cppestimators::FeatureKind;
using cppestimators::FeatureSpec;
namespace event_detail = cppestimators::event_detail;
using cppestimators::example_spec_from_r;
using cppestimators::write_file_atomic;

namespace {

// Appends the values of an atomic R vector `x` (all of them) to the encoder;
// `levels`: a factor's levels. False when `x` holds a missing value.
bool add_values(ExampleEncoder& enc, const std::string& key, SEXP x, R_xlen_t from, R_xlen_t to,
                bool list_element) {
  const bool factor = Rf_isFactor(x);
  switch (TYPEOF(x)) {
    case REALSXP: {
      const double* v = REAL(x);
      for (R_xlen_t i = from; i < to; ++i)
        if (std::isnan(v[i])) return false;
      enc.begin_feature(key, FeatureKind::Float);
      for (R_xlen_t i = from; i < to; ++i) enc.add_float(static_cast<float>(v[i]));
      return true;
    }
    case INTSXP:
    case LGLSXP: {
      const int* v = TYPEOF(x) == INTSXP ? INTEGER(x) : LOGICAL(x);
      for (R_xlen_t i = from; i < to; ++i)
        if (v[i] == NA_INTEGER) return false;
      if (factor) {
        SEXP levels = Rf_getAttrib(x, R_LevelsSymbol);
        enc.begin_feature(key, FeatureKind::Bytes);
        for (R_xlen_t i = from; i < to; ++i) {
          SEXP s = STRING_ELT(levels, v[i] - 1);
          enc.add_bytes(std::string_view(CHAR(s), static_cast<std::size_t>(LENGTH(s))));
        }
      } else {
        enc.begin_feature(key, FeatureKind::Int64);
        for (R_xlen_t i = from; i < to; ++i) enc.add_int64(v[i]);
      }
      return true;
    }
    case STRSXP: {
      for (R_xlen_t i = from; i < to; ++i)
        if (STRING_ELT(x, i) == NA_STRING) return false;
      enc.begin_feature(key, FeatureKind::Bytes);
      for (R_xlen_t i = from; i < to; ++i) {
        SEXP s = STRING_ELT(x, i);
        const char* c = Rf_translateCharUTF8(s);
        enc.add_bytes(std::string_view(c, std::strlen(c)));
      }
      return true;
    }
    default:
      Rcpp::stop("column '" + key + "' is of an unsupported type");
  }
}

struct ReaderBox {
  std::unique_ptr<ExampleReader> reader;
  Chunk chunk;
};

FeatureSpec feature_spec_from_r(Rcpp::List f) {
  FeatureSpec s;
  s.key = Rcpp::as<std::string>(f["key"]);
  const std::string kind = Rcpp::as<std::string>(f["kind"]);
  s.kind = kind == "float"   ? FeatureKind::Float
           : kind == "int64" ? FeatureKind::Int64
                             : FeatureKind::Bytes;
  s.var_len = Rcpp::as<bool>(f["var_len"]);
  s.width = Rcpp::as<int>(f["width"]);
  SEXP def = f["default"];
  if (!Rf_isNull(def)) {
    s.has_default = true;
    if (s.kind == FeatureKind::Float) s.default_floats = Rcpp::as<std::vector<double>>(def);
    if (s.kind == FeatureKind::Int64) {
      const std::vector<double> d = Rcpp::as<std::vector<double>>(def);
      for (double v : d) s.default_ints.push_back(static_cast<std::int64_t>(v));
    }
    if (s.kind == FeatureKind::Bytes) s.default_bytes = Rcpp::as<std::vector<std::string>>(def);
  }
  return s;
}

}  // namespace

// Column c of the chunk as an R vector (a matrix for width > 1, a list for ragged).
SEXP cppestimators::chunk_column_to_r(const Chunk& chunk, const ChunkColumn& c) {
  const R_xlen_t n = static_cast<R_xlen_t>(chunk.n);
  const auto values = [&](std::int64_t a, std::int64_t b) -> SEXP {
    const R_xlen_t m = static_cast<R_xlen_t>(b - a);
    if (c.type == ColumnType::Double) {
      Rcpp::NumericVector v(m);
      for (R_xlen_t i = 0; i < m; ++i) v[i] = c.doubles[static_cast<std::size_t>(a + i)];
      return v;
    }
    if (c.type == ColumnType::Logical) {
      Rcpp::LogicalVector v(m);
      for (R_xlen_t i = 0; i < m; ++i) v[i] = c.ints[static_cast<std::size_t>(a + i)];
      return v;
    }
    if (c.type == ColumnType::Integer) {
      Rcpp::IntegerVector v(m);
      for (R_xlen_t i = 0; i < m; ++i) v[i] = c.ints[static_cast<std::size_t>(a + i)];
      return v;
    }
    Rcpp::CharacterVector v(m);
    for (R_xlen_t i = 0; i < m; ++i) {
      const std::int64_t k = a + i;
      if (!c.present[static_cast<std::size_t>(k)]) {
        v[i] = NA_STRING;
      } else {
        const std::string_view s = c.text_at(k);
        v[i] = Rf_mkCharLenCE(s.data(), static_cast<int>(s.size()), CE_UTF8);
      }
    }
    return v;
  };
  if (c.ragged) {
    Rcpp::List out(n);
    for (R_xlen_t i = 0; i < n; ++i)
      out[i] = values(c.row_splits[static_cast<std::size_t>(i)],
                      c.row_splits[static_cast<std::size_t>(i) + 1]);
    return out;
  }
  Rcpp::RObject v = values(0, static_cast<std::int64_t>(n) * c.width);
  if (c.width > 1) v.attr("dim") = Rcpp::IntegerVector::create(static_cast<int>(n), c.width);
  return v;
}

// Writes the rows of `data` (a list of equally long columns: atomic vectors,
// or lists of atomic vectors for variable-length features) to `path` as
// tf.train.Example records, atomically. A missing value leaves its feature
// out of that record.
// [[Rcpp::export(rng = false)]]
void cpp_write_tfrecord(Rcpp::List data, std::string path) {
  const Rcpp::CharacterVector names = data.names();
  const R_xlen_t ncol = data.size();
  const R_xlen_t n = ncol == 0 ? 0 : Rf_xlength(data[0]);
  std::vector<std::string> keys;
  for (R_xlen_t j = 0; j < ncol; ++j) keys.emplace_back(Rcpp::as<std::string>(names[j]));
  ExampleEncoder enc;
  std::string out;
  for (R_xlen_t i = 0; i < n; ++i) {
    enc.begin();
    for (R_xlen_t j = 0; j < ncol; ++j) {
      SEXP col = data[j];
      const std::string& key = keys[static_cast<std::size_t>(j)];
      bool ok;
      if (TYPEOF(col) == VECSXP) {
        SEXP x = VECTOR_ELT(col, i);
        if (Rf_isNull(x)) {
          ok = false;  // NULL: the feature is left out of the record
        } else if (Rf_xlength(x) == 0) {
          // An empty vector: the feature with no values, of the vector's kind.
          const FeatureKind kind = TYPEOF(x) == REALSXP                    ? FeatureKind::Float
                                   : TYPEOF(x) == STRSXP || Rf_isFactor(x) ? FeatureKind::Bytes
                                                                           : FeatureKind::Int64;
          enc.begin_feature(key, kind);
          ok = true;
        } else {
          ok = add_values(enc, key, x, 0, Rf_xlength(x), true);
          if (!ok)
            Rcpp::stop("column '" + key + "', row " + std::to_string(i + 1) +
                       ": a list element holds a missing value");
        }
      } else {
        ok = add_values(enc, key, col, i, i + 1, false);
      }
      if (ok) enc.end_feature();
    }
    const std::string& example = enc.finish();
    const std::size_t start = event_detail::begin_record(out);
    out.append(example);
    event_detail::end_record(out, start);
  }
  write_file_atomic(path, out);
}

std::vector<FeatureSpec> cppestimators::example_spec_from_r(Rcpp::List spec) {
  std::vector<FeatureSpec> s;
  for (R_xlen_t i = 0; i < spec.size(); ++i) s.push_back(feature_spec_from_r(spec[i]));
  return s;
}

// A reader of `files` with the parse spec `spec` (a list of lists: key,
// kind "float"/"int64"/"string", var_len, width, default).
// [[Rcpp::export(rng = false)]]
SEXP cpp_tfrecord_reader(std::vector<std::string> files, Rcpp::List spec) {
  auto box = std::make_unique<ReaderBox>();
  box->reader = std::make_unique<ExampleReader>(std::move(files), example_spec_from_r(spec));
  return Rcpp::XPtr<ReaderBox>(box.release(), true);
}

// The next chunk of at most `n` records, as a named list of columns (0 rows at the end).
// [[Rcpp::export(rng = false)]]
Rcpp::List cpp_tfrecord_read(SEXP reader, double n) {
  Rcpp::XPtr<ReaderBox> box(reader);
  if (box.get() == nullptr || !box->reader) Rcpp::stop("this reader is closed");
  box->reader->read(box->chunk, static_cast<std::int64_t>(n));
  const Chunk& chunk = box->chunk;
  Rcpp::List out(chunk.columns.size());
  Rcpp::CharacterVector names(chunk.columns.size());
  for (std::size_t f = 0; f < chunk.columns.size(); ++f) {
    out[static_cast<R_xlen_t>(f)] = chunk_column_to_r(chunk, chunk.columns[f]);
    names[static_cast<R_xlen_t>(f)] = chunk.columns[f].key;
  }
  out.attr("names") = names;
  out.attr("n") = static_cast<double>(chunk.n);
  return out;
}
