// What a session reads from a streaming dataset: batches of rows, cut from a
// window of up to `window_rows` rows read from a RowStream. The window is
// refilled as the batches reach its end (the rows not yet used move to its
// front, so that a batch crosses the chunks of the source), and the session
// rebinds its feature columns to it: the views of data() point into the
// window, with the response as doubles (a label vocabulary applied) and the
// weight column's values.
//
// Batching follows tf.data: without dataset_batch(), the session's batch
// size cuts the rows of every pass into batches that cross passes (a repeat
// before batching); with it, each pass of the rows ends in a partial batch
// (dropped with drop_remainder), and the transforms after it count batches:
// skip, take and repeat them, in order.
//
// Memory: three chunks of the window's size (the window, the one being
// filled, the one read), whatever the size of the data.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "batch_plan.h"
#include "chunk.h"
#include "dataset.h"
#include "row_stream.h"

namespace cppestimators {

// Which columns of the stream the session reads.
struct FeedColumns {
  std::vector<std::string> features;  // the feature columns' keys; empty: every column
  std::string response;               // "": none
  bool has_vocabulary = false;        // map a text response through `vocabulary`
  std::vector<std::string> vocabulary;
  std::string weight_key;  // "": none
  bool views = true;       // false: only read rows (no views, response or weights)
};

class StreamFeed {
 public:
  // The plan's batch transforms are built here (data/registry.h's
  // make_batch_op()).
  StreamFeed(std::unique_ptr<RowStream> rows, BatchPlan plan, int default_batch_size,
             std::int64_t window_rows, FeedColumns columns);

  int batch_size() const { return batch_; }
  std::int64_t window_capacity() const { return window_; }
  const Dataset& data() const { return data_; }
  const Chunk& window() const { return win_; }

  // Reads the first window (the session binds its columns to it).
  void prime();

  // The next batch: returns its rows (0: the end of the data), which are
  // rows offset() .. offset() + rows - 1 of the window.
  int next_batch();
  std::int64_t offset() const { return cur_off_; }
  // Whether the window changed since the last call (true once per refill).
  // inline: asked once per step by the session
  bool take_refilled() {
    const bool r = refilled_;
    refilled_ = false;
    return r;
  }
  // Rows of the current pass before the window's first row (for messages).
  std::int64_t window_first_row() const { return first_row_; }

  // Starts every pass again (a new session over the same feed).
  void rewind();

 private:
  // The stages before a batch transform, as the BatchSource it pulls from.
  class Upstream;

  // The next batch after the first k batch transforms.
  bool pull(std::size_t k);

  // Rewinds the base and the first k batch transforms.
  void rewind_level(std::size_t k);

  std::int64_t available() const { return win_.n - pos_; }

  bool base_next();

  // Moves the unused rows to the front of a new window and reads rows after
  // them up to its capacity.
  void refill();

  std::string row_name(std::int64_t i) const;

  void rebuild_views();

  void numbers_from(const ChunkColumn& c, std::vector<double>& out, const std::string& what);

  void labels_from(const ChunkColumn& c);

  std::unique_ptr<RowStream> rows_;
  BatchPlan plan_;
  FeedColumns cols_;
  int batch_ = 1;
  std::int64_t window_ = 1;
  std::vector<std::unique_ptr<BatchOp>> ops_;  // the plan's batch transforms, in order
  std::unordered_map<std::string, double> vocab_;
  std::string key_;
  Chunk win_, next_, in_;
  Dataset data_;
  std::vector<double> labels_, weights_;
  std::int64_t pos_ = 0, first_row_ = 0, cur_off_ = 0;
  int cur_rows_ = 0;
  bool ended_ = false, primed_ = false, refilled_ = false;
};

}  // namespace cppestimators
