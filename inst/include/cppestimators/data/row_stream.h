// A stream of rows read chunk by chunk: the interface every streaming source
// (CSV, TFRecord, a database query) and every row transform (skip, take,
// repeat, shuffle) implements, so that they chain as tf.data's datasets do.
// A stream yields chunks of one schema (the same columns, in the same order,
// with the same types and widths) until a pass ends; rewind() starts a new
// pass (a shuffle reshuffles, a source reads its files again).
//
// Also here: copying rows between chunks of one schema (append_rows), which
// the transforms and the session's window use.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "chunk.h"

namespace cppestimators {

class RowStream {
 public:
  virtual ~RowStream() = default;
  // Refills `out` (from row 0; its buffers are reused) with the next rows of
  // this pass, at most max_rows (>= 1); returns how many (0: the pass ended,
  // and out.n == 0). After the end, read() keeps returning 0 until rewind().
  virtual std::int64_t read(Chunk& out, std::int64_t max_rows) = 0;
  // Starts a new pass from the first row.
  virtual void rewind() = 0;
  // Whether read() must run on R's main thread (a source that calls R):
  // then nothing reads ahead on a background thread.
  virtual bool main_thread_only() const { return false; }
};

// Makes `dst` an empty chunk with `src`'s columns (keys, types, widths,
// raggedness), keeping dst's buffers when the schema is already the same.
inline void shape_like(const Chunk& src, Chunk& dst) {
  bool same = dst.columns.size() == src.columns.size();
  for (std::size_t j = 0; same && j < src.columns.size(); ++j) {
    const ChunkColumn &a = src.columns[j], &b = dst.columns[j];
    same = a.key == b.key && a.type == b.type && a.width == b.width && a.ragged == b.ragged;
  }
  if (!same) {
    dst.columns.resize(src.columns.size());
    for (std::size_t j = 0; j < src.columns.size(); ++j) {
      ChunkColumn& c = dst.columns[j];
      c.key = src.columns[j].key;
      c.type = src.columns[j].type;
      c.width = src.columns[j].width;
      c.ragged = src.columns[j].ragged;
    }
  }
  dst.clear();
}

// Whether two chunks have the same schema.
inline bool same_schema(const Chunk& a, const Chunk& b) {
  if (a.columns.size() != b.columns.size()) return false;
  for (std::size_t j = 0; j < a.columns.size(); ++j) {
    const ChunkColumn &x = a.columns[j], &y = b.columns[j];
    if (x.key != y.key || x.type != y.type || x.width != y.width || x.ragged != y.ragged)
      return false;
  }
  return true;
}

namespace detail {

// Appends values [a, b) of column `s`'s typed buffer (element indices) to `d`.
inline void append_values(const ChunkColumn& s, std::int64_t a, std::int64_t b, ChunkColumn& d) {
  if (b <= a) return;
  const std::size_t ua = static_cast<std::size_t>(a), ub = static_cast<std::size_t>(b);
  switch (s.type) {
    case ColumnType::Double:
      d.doubles.insert(d.doubles.end(), s.doubles.begin() + static_cast<std::ptrdiff_t>(ua),
                       s.doubles.begin() + static_cast<std::ptrdiff_t>(ub));
      break;
    case ColumnType::String:
      for (std::size_t k = ua; k < ub; ++k)
        d.push_text(s.text_at(static_cast<std::int64_t>(k)), s.present[k] != 0);
      break;
    default:
      d.ints.insert(d.ints.end(), s.ints.begin() + static_cast<std::ptrdiff_t>(ua),
                    s.ints.begin() + static_cast<std::ptrdiff_t>(ub));
  }
}

// Moves the values of a column-major numeric buffer of `n` rows and `w`
// values per row so that it holds `n + extra` rows (the new rows of each
// value left unset), from the last value to the first.
template <class T>
void widen_rows(std::vector<T>& v, std::int64_t n, std::int64_t extra, int w) {
  v.resize(static_cast<std::size_t>((n + extra) * w));
  for (int j = w - 1; j >= 1; --j)
    std::memmove(v.data() + static_cast<std::size_t>(j * (n + extra)),
                 v.data() + static_cast<std::size_t>(j * n),
                 static_cast<std::size_t>(n) * sizeof(T));
}

}  // namespace detail

// Appends rows [from, from + count) of `src` to `dst` (same schema, checked
// by the caller with same_schema() or shape_like()).
inline void append_rows(const Chunk& src, std::int64_t from, std::int64_t count, Chunk& dst) {
  if (count <= 0) return;
  if (from < 0 || from + count > src.n)
    throw std::logic_error("internal: append_rows out of range");
  const std::int64_t n = dst.n, sn = src.n;
  for (std::size_t j = 0; j < src.columns.size(); ++j) {
    const ChunkColumn& s = src.columns[j];
    ChunkColumn& d = dst.columns[j];
    if (s.ragged) {
      const std::int64_t a = s.row_splits[static_cast<std::size_t>(from)];
      const std::int64_t b = s.row_splits[static_cast<std::size_t>(from + count)];
      detail::append_values(s, a, b, d);
      const std::int64_t base = d.row_splits.back() - a;
      for (std::int64_t i = from + 1; i <= from + count; ++i)
        d.row_splits.push_back(base + s.row_splits[static_cast<std::size_t>(i)]);
      continue;
    }
    const int w = s.width;
    if (w == 1) {
      detail::append_values(s, from, from + count, d);
      continue;
    }
    if (s.type == ColumnType::String) {
      // column-major text: rebuild the column with the new rows in place
      ChunkColumn out;
      out.key = d.key;
      out.type = d.type;
      out.width = w;
      out.clear();
      for (int k = 0; k < w; ++k) {
        detail::append_values(d, static_cast<std::int64_t>(k) * n,
                              static_cast<std::int64_t>(k) * n + n, out);
        detail::append_values(s, static_cast<std::int64_t>(k) * sn + from,
                              static_cast<std::int64_t>(k) * sn + from + count, out);
      }
      std::swap(d.text, out.text);
      std::swap(d.offsets, out.offsets);
      std::swap(d.present, out.present);
      continue;
    }
    if (s.type == ColumnType::Double) {
      detail::widen_rows(d.doubles, n, count, w);
      for (int k = 0; k < w; ++k)
        std::memcpy(d.doubles.data() + static_cast<std::size_t>(k * (n + count) + n),
                    s.doubles.data() + static_cast<std::size_t>(k * sn + from),
                    static_cast<std::size_t>(count) * sizeof(double));
    } else {
      detail::widen_rows(d.ints, n, count, w);
      for (int k = 0; k < w; ++k)
        std::memcpy(d.ints.data() + static_cast<std::size_t>(k * (n + count) + n),
                    s.ints.data() + static_cast<std::size_t>(k * sn + from),
                    static_cast<std::size_t>(count) * sizeof(int));
    }
  }
  dst.n = n + count;
}

}  // namespace cppestimators
