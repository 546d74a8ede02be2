#include <cppestimators/data/stream_transforms.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <utility>

#include <cppestimators/data/chunk.h>

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

}  // namespace cppestimators
