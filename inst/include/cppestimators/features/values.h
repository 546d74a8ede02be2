// Reading categorical inputs: whole numbers from double, integer or logical
// columns, and text from character or factor columns. TF treats -1 (ints)
// and "" (strings) in dense input as missing; R's NA is missing too. The
// cell readers are inline: the gather loops call them once per value.
#pragma once
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "../data/column.h"

namespace cppestimators {

// Refuses a double column holding values that are not whole numbers.
void require_whole(const ColumnView& c, const std::string& user);

// What a cell of a categorical input holds: a value, TF's marker of a
// missing value in dense input (-1 for integers, "" for strings; it yields no
// id), or R's NA (which each column treats by its own rule).
enum class Cell { Value, Empty, NA };

// The integer at (row, j).
inline Cell int_cell(const ColumnView& c, std::int64_t row, int j, std::int64_t* out) {
  const std::int64_t i = c.index(row, j);
  if (c.type == ColumnType::Double) {
    const double v = c.doubles[i];
    if (std::isnan(v)) return Cell::NA;
    *out = static_cast<std::int64_t>(v);
  } else {
    const int v = c.ints[i];
    if (v == kNaInteger) return Cell::NA;
    *out = v;
  }
  return *out == -1 ? Cell::Empty : Cell::Value;
}

// Value k of a ragged row of numbers, as int_cell() reads a cell.
inline Cell ragged_int_cell(const RaggedRow& r, std::int64_t k, std::int64_t* out) {
  if (r.type == ColumnType::Double) {
    const double v = r.doubles[r.begin + k];
    if (std::isnan(v)) return Cell::NA;
    *out = static_cast<std::int64_t>(v);
  } else {
    const int v = r.ints[r.begin + k];
    if (v == kNaInteger) return Cell::NA;
    *out = v;
  }
  return *out == -1 ? Cell::Empty : Cell::Value;
}

// Calls f(row, cell, value) for every integer value of column c (its cells,
// or each row's values of a ragged column), in row order within a cell
// column.
template <class F>
void each_int_cell(const ColumnView& c, F f) {
  if (c.is_ragged()) {
    for (std::int64_t row = 0; row < c.n; ++row) {
      const RaggedRow r = c.row_values(row);
      for (std::int64_t k = 0; k < r.count; ++k) {
        std::int64_t v = 0;
        const Cell cell = ragged_int_cell(r, k, &v);
        f(row, cell, v);
      }
    }
    return;
  }
  for (int j = 0; j < c.width; ++j)
    for (std::int64_t row = 0; row < c.n; ++row) {
      std::int64_t v = 0;
      const Cell cell = int_cell(c, row, j, &v);
      f(row, cell, v);
    }
}

// The integer at (row, j); false when there is none (NA or -1).
inline bool int_at(const ColumnView& c, std::int64_t row, int j, std::int64_t* out) {
  return int_cell(c, row, j, out) == Cell::Value;
}

// The text at (row, j); false when missing (NA or "").
inline bool text_at(const ColumnView& c, std::int64_t row, int j, std::string_view* out) {
  return c.text_at(row, j, out) && !out->empty();
}

// The text values of one value column of a batch, read at once (a String
// column through its batch reader when it has one). Buffers grow to the
// largest batch once.
class TextBatch {
 public:
  void read(const ColumnView& c, const int* rows, int count, int j) {
    if (text_.size() < static_cast<std::size_t>(count)) {
      text_.resize(static_cast<std::size_t>(count));
      ok_.resize(static_cast<std::size_t>(count));
    }
    const std::int64_t offset = static_cast<std::int64_t>(j) * c.n;
    if (c.type == ColumnType::String && c.read_strings != nullptr) {
      c.read_strings(c.strings, offset, rows, count, text_.data(), ok_.data());
      return;
    }
    for (int r = 0; r < count; ++r)
      ok_[static_cast<std::size_t>(r)] = c.text_at(rows[r], j, &text_[static_cast<std::size_t>(r)]);
  }
  // The text of row r.
  Cell cell(int r, std::string_view* out) const {
    if (!ok_[static_cast<std::size_t>(r)]) return Cell::NA;
    *out = text_[static_cast<std::size_t>(r)];
    return out->empty() ? Cell::Empty : Cell::Value;
  }
  // The text of row r, false when missing; `keep_empty`: "" counts as a value.
  bool get(int r, std::string_view* out, bool keep_empty = false) const {
    const Cell c = cell(r, out);
    return c == Cell::Value || (keep_empty && c == Cell::Empty);
  }

 private:
  std::vector<std::string_view> text_;
  std::vector<unsigned char> ok_;
};

// The kind of input a categorical column reads, for its type checks; a
// column of the wrong type is an error naming `user`.
enum class InputKind { Text, Integer };

void require_input(const ColumnView& c, InputKind kind, const std::string& user);

}  // namespace cppestimators
