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
#include <cstdint>

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
  virtual bool main_thread_only() const;
};

// Makes `dst` an empty chunk with `src`'s columns (keys, types, widths,
// raggedness), keeping dst's buffers when the schema is already the same.
void shape_like(const Chunk& src, Chunk& dst);

// Whether two chunks have the same schema.
bool same_schema(const Chunk& a, const Chunk& b);

// Appends rows [from, from + count) of `src` to `dst` (same schema, checked
// by the caller with same_schema() or shape_like()).
void append_rows(const Chunk& src, std::int64_t from, std::int64_t count, Chunk& dst);

}  // namespace cppestimators
