// dataset_shuffle(): tf.data's shuffle buffer over a RowStream. The first
// `buffer_size` rows of a pass fill a buffer; each row given out is a
// uniformly drawn slot of the buffer, whose place the next row of the input
// takes; once the input's pass has ended, the rows left are given out in a
// random order. A buffer as large as the pass shuffles it uniformly; a
// buffer of one row keeps the input's order.
//
// The draws come from Rng seeded with `seed`: each pass draws its own seed
// from that sequence when `reshuffle_each_iteration` (so every pass has its
// order, the same ones on every run), else every pass uses the first.
//
// Memory: the buffer holds `buffer_size` rows, in slots per column (numbers
// by slot, each text value in its own std::string, a variable-length value
// in its own vector), which keep their capacity: once the buffer has filled,
// a steady stream allocates nothing.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "chunk.h"
#include "rng.h"
#include "row_stream.h"

namespace cppestimators {

class ShuffleStream : public RowStream {
 public:
  ShuffleStream(std::unique_ptr<RowStream> in, std::int64_t buffer_size, std::uint64_t seed,
                bool reshuffle_each_iteration);

  std::int64_t read(Chunk& out, std::int64_t max_rows) override;

  void rewind() override;

  bool main_thread_only() const override;

 private:
  // The buffer's slots of one column.
  struct Slots {
    std::vector<double> doubles;  // fixed width: slot * width + value
    std::vector<int> ints;
    std::vector<std::string> texts;
    std::vector<unsigned char> present;
    std::vector<std::vector<double>> ragged_doubles;  // ragged: per slot
    std::vector<std::vector<int>> ragged_ints;
    std::vector<std::vector<std::string>> ragged_texts;
    std::vector<std::vector<unsigned char>> ragged_present;
    std::vector<std::int64_t> ragged_n;  // ragged: values per slot
  };

  // Whether the input has a row at in_pos_ (reading its next chunk when
  // the current one is used up).
  bool next_input();

  // Sizes the slots for the input's schema (once).
  void allocate();

  // Copies the input's row at in_pos_ into slot `slot`, and moves past it.
  void store(std::int64_t slot);

  // Appends slot `slot` to `out` as its next row; a column of several values
  // per row is appended row by row (value after value) and put in column
  // order by finish().
  void emit(std::int64_t slot, Chunk& out);

  // Puts the columns of several values per row of `out` (written row by
  // row) in the chunk's column-major order.
  void finish(Chunk& out);

  std::unique_ptr<RowStream> in_;
  std::int64_t size_;
  Rng seeds_;  // the passes' seeds
  std::uint64_t first_seed_ = 0;
  bool reshuffle_;
  Rng rng_;

  Chunk in_chunk_;  // the input's current chunk, used from in_pos_
  std::int64_t in_pos_ = 0;
  bool in_ended_ = false;
  std::int64_t read_rows_ = 1;

  Chunk schema_;  // the input's columns, without rows
  bool allocated_ = false;
  std::vector<Slots> slots_;        // per column
  std::vector<std::int64_t> live_;  // the slots in use: live_[0, filled_)
  std::int64_t filled_ = 0;

  std::vector<double> scratch_doubles_;
  std::vector<int> scratch_ints_;
  ChunkColumn scratch_text_;
};

}  // namespace cppestimators
