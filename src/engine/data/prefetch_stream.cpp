#include <cppestimators/data/prefetch_stream.h>

#include <algorithm>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <utility>
#include <vector>

#include <cppestimators/data/chunk.h>
#include <cppestimators/data/row_stream.h>

namespace cppestimators {

namespace detail {

void SlotRing::reset(std::size_t capacity) {
  v_.assign(capacity, 0);
  head_ = size_ = 0;
}

void SlotRing::push(std::size_t x) {
  if (size_ == v_.size()) throw std::logic_error("internal: slot queue full");
  v_[(head_ + size_++) % v_.size()] = x;
}

std::size_t SlotRing::pop() {
  const std::size_t x = v_[head_];
  head_ = (head_ + 1) % v_.size();
  --size_;
  return x;
}

}  // namespace detail

PrefetchStream::PrefetchStream(std::unique_ptr<RowStream> in, int depth)
    : in_(std::move(in)), slots_(static_cast<std::size_t>(std::max(depth, 1))) {
  if (depth < 1) throw std::invalid_argument("`buffer_size` must be >= 1");
  full_.reset(slots_.size());
  free_.reset(slots_.size());
}

PrefetchStream::~PrefetchStream() { stop(); }

std::int64_t PrefetchStream::read(Chunk& out, std::int64_t max_rows) {
  if (in_->main_thread_only()) return in_->read(out, max_rows);
  if (max_rows < 1) throw std::invalid_argument("internal: read() of fewer than 1 row");
  if (cur_pos_ < cur_.n) return give_leftover(out, max_rows);
  if (failed_) std::rethrow_exception(failed_);
  if (ended_) {
    out.clear();
    return 0;
  }
  if (!worker_.joinable()) start(max_rows);
  std::size_t slot;
  {
    std::unique_lock<std::mutex> lock(m_);
    has_data_.wait(lock, [&] { return !full_.empty() || error_ || done_; });
    if (full_.empty()) {
      // the thread has stopped: on an error (the end comes as a chunk)
      failed_ = error_;
      lock.unlock();
      worker_.join();
      ended_ = true;
      if (failed_) std::rethrow_exception(failed_);
      out.clear();
      return 0;
    }
    slot = full_.pop();
  }
  Chunk& got = slots_[slot];
  std::int64_t n = got.n;
  if (n == 0) {
    std::swap(out, got);  // the end of the pass, with the input's columns
    out.clear();
    ended_ = true;
    worker_.join();  // it stops after the end
  } else if (n <= max_rows) {
    std::swap(out, got);
  } else {
    std::swap(cur_, got);
    cur_pos_ = 0;
    n = give_leftover(out, max_rows);
  }
  release(slot);
  return n;
}

void PrefetchStream::rewind() {
  stop();
  in_->rewind();
  cur_.n = 0;
  cur_pos_ = 0;
  ended_ = false;
}

bool PrefetchStream::main_thread_only() const { return in_->main_thread_only(); }

std::int64_t PrefetchStream::give_leftover(Chunk& out, std::int64_t max_rows) {
  const std::int64_t k = std::min(max_rows, cur_.n - cur_pos_);
  shape_like(cur_, out);
  append_rows(cur_, cur_pos_, k, out);
  cur_pos_ += k;
  return k;
}

void PrefetchStream::release(std::size_t slot) {
  {
    std::lock_guard<std::mutex> lock(m_);
    free_.push(slot);
  }
  has_room_.notify_one();
}

void PrefetchStream::start(std::int64_t rows) {
  chunk_rows_ = rows;
  full_.reset(slots_.size());
  free_.reset(slots_.size());
  for (std::size_t i = 0; i < slots_.size(); ++i) free_.push(i);
  stopping_ = false;
  done_ = false;
  error_ = nullptr;
  worker_ = std::thread([this] { work(); });
}

void PrefetchStream::stop() {
  if (worker_.joinable()) {
    {
      std::lock_guard<std::mutex> lock(m_);
      stopping_ = true;
    }
    has_room_.notify_all();
    worker_.join();
  }
  full_.reset(slots_.size());
  free_.reset(slots_.size());
  error_ = nullptr;
  failed_ = nullptr;
  done_ = false;
  stopping_ = false;
}

void PrefetchStream::work() {
  try {
    for (;;) {
      std::size_t slot;
      {
        std::unique_lock<std::mutex> lock(m_);
        has_room_.wait(lock, [&] { return stopping_ || !free_.empty(); });
        if (stopping_) return;
        slot = free_.pop();
      }
      const std::int64_t got = in_->read(slots_[slot], chunk_rows_);
      {
        std::lock_guard<std::mutex> lock(m_);
        full_.push(slot);
        if (got == 0) done_ = true;
      }
      has_data_.notify_one();
      if (got == 0) return;
    }
  } catch (...) {
    {
      std::lock_guard<std::mutex> lock(m_);
      error_ = std::current_exception();
      done_ = true;
    }
    has_data_.notify_one();
  }
}

}  // namespace cppestimators
