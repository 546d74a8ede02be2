// Rows read from a file or a query, owned by the engine: a Chunk holds up to
// `capacity` rows of typed columns, refilled in place by a streaming source
// (CSV, TFRecord) so that a steady stream allocates nothing once its buffers
// have grown to the chunk's size. view() exposes a column as the ColumnView
// the feature columns read, so a chunk can be bound like the caller's data.
//
// Layout, per column:
// - Double, Integer, Logical: `doubles` or `ints`, n * width values,
//   column-major as R stores a matrix (width > 1: a fixed-length feature of
//   several values per row);
// - String: the texts back to back in `text`, row i (value j) spanning
//   text[offsets[k]] .. text[offsets[k + 1]) with k = i + j * n, and
//   `present[k]` 0 for a missing value;
// - a variable-length feature (`ragged`): row i holds the values
//   row_splits[i] .. row_splits[i + 1] of the typed buffer above (width 1).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "column.h"

namespace cppestimators {

struct ChunkColumn {
  std::string key;
  ColumnType type = ColumnType::Double;  // Double, Integer, Logical or String
  int width = 1;
  bool ragged = false;
  std::vector<double> doubles;
  std::vector<int> ints;
  std::vector<char> text;
  std::vector<std::int64_t> offsets;     // String: values + 1 entries
  std::vector<unsigned char> present;    // String: 1 = a value, 0 = missing
  std::vector<std::int64_t> row_splits;  // ragged: n + 1 entries

  // Empties the column, keeping its buffers' capacity.
  void clear();
  // inline, as text_at(): called per value by the sources and transforms
  void push_text(std::string_view s, bool is_present) {
    text.insert(text.end(), s.begin(), s.end());
    offsets.push_back(static_cast<std::int64_t>(text.size()));
    present.push_back(is_present ? 1 : 0);
  }
  std::string_view text_at(std::int64_t k) const {
    const std::size_t a = static_cast<std::size_t>(offsets[static_cast<std::size_t>(k)]);
    const std::size_t b = static_cast<std::size_t>(offsets[static_cast<std::size_t>(k) + 1]);
    return std::string_view(text.data() + a, b - a);
  }
};

struct Chunk {
  std::int64_t n = 0;
  std::vector<ChunkColumn> columns;

  void clear();
  const ChunkColumn* find(const std::string& key) const;

  // A view of column `c` for the feature columns (a ragged one read row by
  // row); valid until the chunk is refilled.
  ColumnView view(const ChunkColumn& c) const;
};

}  // namespace cppestimators
