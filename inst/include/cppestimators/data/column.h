// Typed, read-only views of the caller's columns. The engine reads R's
// vectors in place — doubles, integers, logicals, factors (codes + levels)
// and character vectors (through an accessor the glue supplies, so that the
// engine needs no R headers) — and never copies them. Matrices hold several
// values per row, column-major, as R stores them. Two more shapes are read in
// place: a ragged column (a list column of tokens, ids or weights, or a
// variable-length feature of a stream) holds any number of values per row,
// read row by row through an accessor; a sparse column (a dgCMatrix) holds
// `width` numbers per row of which only the non-zeros are stored, by column
// (compressed sparse columns, as the Matrix package stores them).
#pragma once
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

namespace cppestimators {

enum class ColumnType { Double, Integer, Logical, Factor, String };

// The type's name in messages ("double", "a factor", ...).
const char* column_type_name(ColumnType t);

// R's missing integer (also used for logicals and factor codes).
constexpr int kNaInteger = std::numeric_limits<int>::min();

// Reads element i of a character vector; returns false for a missing value.
using StringReader = bool (*)(const void* vector, std::int64_t i, std::string_view* out);
// Reads elements offset + rows[r] of a character vector for r < count: the
// text, or ok[r] = 0 for a missing value. Reading a batch at once lets the
// reader overlap the memory accesses of scattered strings.
using StringBatchReader = void (*)(const void* vector, std::int64_t offset, const int* rows,
                                   int count, std::string_view* out, unsigned char* ok);

// The values of one row of a ragged column: `count` values of `type` at
// begin, begin + 1, ... of `doubles`, `ints` or (String) of the vector
// `strings`, read through the column's `read_string`.
struct RaggedRow {
  ColumnType type = ColumnType::String;
  std::int64_t begin = 0, count = 0;
  const double* doubles = nullptr;
  const int* ints = nullptr;
  const void* strings = nullptr;
};
// Value k of a ragged row of numbers (NaN for a missing integer).
inline double ragged_number(const RaggedRow& r, std::int64_t k) {
  if (r.type == ColumnType::Double) return r.doubles[r.begin + k];
  const int v = r.ints[r.begin + k];
  return v == std::numeric_limits<int>::min() ? std::nan("") : static_cast<double>(v);
}

// Fills `out` with row `row` of the ragged column `source`.
using RaggedReader = void (*)(const void* source, std::int64_t row, RaggedRow* out);

struct ColumnView {
  std::string key;
  ColumnType type = ColumnType::Double;
  std::int64_t n = 0;               // rows
  int width = 1;                    // values per row (matrix columns)
  const double* doubles = nullptr;  // Double
  const int* ints = nullptr;        // Integer, Logical, Factor (1-based codes)
  std::vector<std::string> levels;  // Factor
  const void* strings = nullptr;    // String: the vector, read through `read_string`
  StringReader read_string = nullptr;
  StringBatchReader read_strings = nullptr;  // optional
  // The caller has already checked these values for a numeric column (none
  // missing, all finite within float32's range): column_numeric() need not
  // scan them again.
  bool checked = false;
  // Ragged: `type` is the values' type (String, Integer or Double), width 1.
  const void* ragged = nullptr;
  RaggedReader read_row = nullptr;
  // Sparse (type Double, `width` columns): column j's non-zeros are
  // csc_x[k] at rows csc_i[k] for k in [csc_p[j], csc_p[j + 1]).
  const int* csc_p = nullptr;
  const int* csc_i = nullptr;
  const double* csc_x = nullptr;

  bool is_ragged() const { return ragged != nullptr; }
  bool is_sparse() const { return csc_p != nullptr; }
  // Row `row` of a ragged column.
  RaggedRow row_values(std::int64_t row) const {
    RaggedRow r;
    read_row(ragged, row, &r);
    return r;
  }
  // The text of value k of a ragged row of strings; false when missing.
  bool ragged_text(const RaggedRow& r, std::int64_t k, std::string_view* out) const {
    return read_string(r.strings, r.begin + k, out);
  }

  // inline, as the accessors below: called per value by the feature columns
  std::int64_t index(std::int64_t row, int j) const {
    return row + static_cast<std::int64_t>(j) * n;
  }
  bool numeric() const {
    return type == ColumnType::Double || type == ColumnType::Integer || type == ColumnType::Logical;
  }
  bool text() const { return type == ColumnType::String || type == ColumnType::Factor; }
  bool missing(std::int64_t row, int j = 0) const {
    const std::int64_t i = index(row, j);
    switch (type) {
      case ColumnType::Double:
        return std::isnan(doubles[i]);
      case ColumnType::String: {
        std::string_view s;
        return !read_string(strings, i, &s);
      }
      default:
        return ints[i] == kNaInteger;
    }
  }
  // A numeric value (Double, Integer, Logical); NaN when missing.
  double number(std::int64_t row, int j = 0) const {
    const std::int64_t i = index(row, j);
    if (type == ColumnType::Double) return doubles[i];
    const int v = ints[i];
    return v == kNaInteger ? std::nan("") : static_cast<double>(v);
  }
  // The text of a String or Factor value; false when missing.
  bool text_at(std::int64_t row, int j, std::string_view* out) const {
    const std::int64_t i = index(row, j);
    if (type == ColumnType::String) return read_string(strings, i, out);
    const int code = ints[i];
    if (code == kNaInteger || code < 1 || code > static_cast<int>(levels.size())) return false;
    *out = levels[static_cast<std::size_t>(code - 1)];
    return true;
  }
};

// "feature 'x' (row 12)": rows are reported 1-based, as R users count.
std::string where(const ColumnView& c, std::int64_t row);

// What a column holds, for messages: "a list of values per row", "a sparse
// matrix" or its type's name.
std::string column_shape_name(const ColumnView& c);

// Refuses a ragged or sparse column where `user` reads one fixed value per
// cell (numeric columns refuse lists; categorical ones sparse matrices).
void require_plain(const ColumnView& c, const std::string& user, bool lists_ok, bool sparse_ok);

}  // namespace cppestimators
