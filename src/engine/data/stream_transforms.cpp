#include <cppestimators/data/stream_transforms.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>

#include <cppestimators/data/chunk.h>
#include <cppestimators/data/row_stream.h>

namespace cppestimators {

SkipStream::SkipStream(std::unique_ptr<RowStream> in, std::int64_t count)
    : in_(std::move(in)), count_(count) {
  if (count < 0) throw std::invalid_argument("`count` must be >= 0");
}

std::int64_t SkipStream::read(Chunk& out, std::int64_t max_rows) {
  while (left_ > 0) {
    const std::int64_t got =
        in_->read(out, std::min(left_, std::max(max_rows, std::int64_t{65536})));
    if (got == 0) return 0;
    left_ -= got;
  }
  return in_->read(out, max_rows);
}

void SkipStream::rewind() {
  in_->rewind();
  left_ = count_;
}

bool SkipStream::main_thread_only() const { return in_->main_thread_only(); }

TakeStream::TakeStream(std::unique_ptr<RowStream> in, std::int64_t count)
    : in_(std::move(in)), count_(count) {
  if (count < 0) throw std::invalid_argument("`count` must be >= 0");
}

std::int64_t TakeStream::read(Chunk& out, std::int64_t max_rows) {
  if (left_ == 0) {
    if (out.columns.empty()) in_->read(out, 1);  // no row, but the columns
    out.clear();
    return 0;
  }
  const std::int64_t got = in_->read(out, std::min(max_rows, left_));
  left_ -= got;
  return got;
}

void TakeStream::rewind() {
  in_->rewind();
  left_ = count_;
}

bool TakeStream::main_thread_only() const { return in_->main_thread_only(); }

RepeatStream::RepeatStream(std::unique_ptr<RowStream> in, std::int64_t count)
    : in_(std::move(in)), count_(count) {}

std::int64_t RepeatStream::read(Chunk& out, std::int64_t max_rows) {
  for (;;) {
    if (count_ >= 0 && pass_ >= count_) {
      if (out.columns.empty()) in_->read(out, 1);  // no row, but the columns
      out.clear();
      return 0;
    }
    const std::int64_t got = in_->read(out, max_rows);
    if (got > 0) {
      rows_in_pass_ += got;
      return got;
    }
    if (rows_in_pass_ == 0) {  // an empty input: nothing to repeat
      pass_ = count_ < 0 ? 0 : count_;
      if (count_ < 0) count_ = 0;
      out.clear();
      return 0;
    }
    ++pass_;
    rows_in_pass_ = 0;
    if (count_ < 0 || pass_ < count_) in_->rewind();
  }
}

void RepeatStream::rewind() {
  in_->rewind();
  pass_ = 0;
  rows_in_pass_ = 0;
  count_ = original_;
}

bool RepeatStream::main_thread_only() const { return in_->main_thread_only(); }

ShardStream::ShardStream(std::unique_ptr<RowStream> in, std::int64_t num_shards, std::int64_t index)
    : in_(std::move(in)), shards_(num_shards), index_(index) {
  if (num_shards < 1) throw std::invalid_argument("`num_shards` must be >= 1");
  if (index < 0 || index >= num_shards)
    throw std::invalid_argument("`index` must be in [0, num_shards - 1], not " +
                                std::to_string(index));
}

std::int64_t ShardStream::read(Chunk& out, std::int64_t max_rows) {
  for (;;) {
    // max_rows x shards rows of the input hold at most max_rows of this shard
    const std::int64_t want = std::min<std::int64_t>(max_rows, (std::int64_t{1} << 40) / shards_);
    const std::int64_t got = in_->read(buf_, std::max<std::int64_t>(1, want) * shards_);
    shape_like(buf_, out);
    if (got == 0) return 0;  // (the columns kept: the chunk says what the rows would be)
    // the first row of this shard in the chunk, then every shards_-th
    std::int64_t r = ((index_ - pos_) % shards_ + shards_) % shards_;
    for (; r < got; r += shards_) append_rows(buf_, r, 1, out);
    pos_ += got;
    if (out.n > 0) return out.n;
  }
}

void ShardStream::rewind() {
  in_->rewind();
  pos_ = 0;
}

bool ShardStream::main_thread_only() const { return in_->main_thread_only(); }

}  // namespace cppestimators
