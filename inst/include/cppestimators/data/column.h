// Typed, read-only views of the caller's columns. The engine reads R's
// vectors in place — doubles, integers, logicals, factors (codes + levels)
// and character vectors (through an accessor the glue supplies, so that the
// engine needs no R headers) — and never copies them. Matrices hold several
// values per row, column-major, as R stores them.
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

}  // namespace cppestimators
