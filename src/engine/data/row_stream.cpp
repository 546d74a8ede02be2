#include <cppestimators/data/row_stream.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <utility>
#include <vector>

#include <cppestimators/data/chunk.h>
#include <cppestimators/data/column.h>

namespace cppestimators {

namespace {

// Appends values [a, b) of column `s`'s typed buffer (element indices) to `d`.
void append_values(const ChunkColumn& s, std::int64_t a, std::int64_t b, ChunkColumn& d) {
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

}  // namespace

bool RowStream::main_thread_only() const { return false; }

void shape_like(const Chunk& src, Chunk& dst) {
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

bool same_schema(const Chunk& a, const Chunk& b) {
  if (a.columns.size() != b.columns.size()) return false;
  for (std::size_t j = 0; j < a.columns.size(); ++j) {
    const ChunkColumn &x = a.columns[j], &y = b.columns[j];
    if (x.key != y.key || x.type != y.type || x.width != y.width || x.ragged != y.ragged)
      return false;
  }
  return true;
}

void append_rows(const Chunk& src, std::int64_t from, std::int64_t count, Chunk& dst) {
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
      append_values(s, a, b, d);
      const std::int64_t base = d.row_splits.back() - a;
      for (std::int64_t i = from + 1; i <= from + count; ++i)
        d.row_splits.push_back(base + s.row_splits[static_cast<std::size_t>(i)]);
      continue;
    }
    const int w = s.width;
    if (w == 1) {
      append_values(s, from, from + count, d);
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
        append_values(d, static_cast<std::int64_t>(k) * n, static_cast<std::int64_t>(k) * n + n,
                      out);
        append_values(s, static_cast<std::int64_t>(k) * sn + from,
                      static_cast<std::int64_t>(k) * sn + from + count, out);
      }
      std::swap(d.text, out.text);
      std::swap(d.offsets, out.offsets);
      std::swap(d.present, out.present);
      continue;
    }
    if (s.type == ColumnType::Double) {
      widen_rows(d.doubles, n, count, w);
      for (int k = 0; k < w; ++k)
        std::memcpy(d.doubles.data() + static_cast<std::size_t>(k * (n + count) + n),
                    s.doubles.data() + static_cast<std::size_t>(k * sn + from),
                    static_cast<std::size_t>(count) * sizeof(double));
    } else {
      widen_rows(d.ints, n, count, w);
      for (int k = 0; k < w; ++k)
        std::memcpy(d.ints.data() + static_cast<std::size_t>(k * (n + count) + n),
                    s.ints.data() + static_cast<std::size_t>(k * sn + from),
                    static_cast<std::size_t>(count) * sizeof(int));
    }
  }
  dst.n = n + count;
}

}  // namespace cppestimators
