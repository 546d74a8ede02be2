// dataset_prefetch(): reads a RowStream ahead on one background thread, so
// that parsing the next chunks overlaps the work done with the current one.
// The thread fills up to `depth` chunks (a bounded queue) while the reader
// holds another: read() hands the next filled chunk over by swapping it with
// the caller's, whose buffers the thread then refills, so that nothing is
// copied or allocated in a steady stream.
//
// The size of the chunks is the max_rows of the first read() of a pass; a
// later read() asking for fewer rows gets them from the chunk handed over,
// the rest kept for the next reads. An exception thrown by the input on the
// thread is rethrown by read() once the rows read before it are given out.
// rewind() stops the thread and starts it again at the next read(); the
// destructor stops it even if the reader stopped reading before the end.
// An input that must be read on the main thread is read directly.
#pragma once
#include <algorithm>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <utility>
#include <vector>

#include "row_stream.h"

namespace cppestimators {

namespace detail {

// A queue of at most `capacity` slot numbers, in a ring (no allocation once
// sized).
class SlotRing {
 public:
  void reset(std::size_t capacity) {
    v_.assign(capacity, 0);
    head_ = size_ = 0;
  }
  bool empty() const { return size_ == 0; }
  void push(std::size_t x) {
    if (size_ == v_.size()) throw std::logic_error("internal: slot queue full");
    v_[(head_ + size_++) % v_.size()] = x;
  }
  std::size_t pop() {
    const std::size_t x = v_[head_];
    head_ = (head_ + 1) % v_.size();
    --size_;
    return x;
  }

 private:
  std::vector<std::size_t> v_;
  std::size_t head_ = 0, size_ = 0;
};

}  // namespace detail

class PrefetchStream : public RowStream {
 public:
  PrefetchStream(std::unique_ptr<RowStream> in, int depth)
      : in_(std::move(in)), slots_(static_cast<std::size_t>(std::max(depth, 1))) {
    if (depth < 1) throw std::invalid_argument("`buffer_size` must be >= 1");
    full_.reset(slots_.size());
    free_.reset(slots_.size());
  }
  ~PrefetchStream() override { stop(); }
  PrefetchStream(const PrefetchStream&) = delete;
  PrefetchStream& operator=(const PrefetchStream&) = delete;

  std::int64_t read(Chunk& out, std::int64_t max_rows) override {
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

  void rewind() override {
    stop();
    in_->rewind();
    cur_.n = 0;
    cur_pos_ = 0;
    ended_ = false;
  }

  bool main_thread_only() const override { return in_->main_thread_only(); }

 private:
  // Gives out up to max_rows rows of the chunk handed over before.
  std::int64_t give_leftover(Chunk& out, std::int64_t max_rows) {
    const std::int64_t k = std::min(max_rows, cur_.n - cur_pos_);
    shape_like(cur_, out);
    append_rows(cur_, cur_pos_, k, out);
    cur_pos_ += k;
    return k;
  }

  void release(std::size_t slot) {
    {
      std::lock_guard<std::mutex> lock(m_);
      free_.push(slot);
    }
    has_room_.notify_one();
  }

  void start(std::int64_t rows) {
    chunk_rows_ = rows;
    full_.reset(slots_.size());
    free_.reset(slots_.size());
    for (std::size_t i = 0; i < slots_.size(); ++i) free_.push(i);
    stopping_ = false;
    done_ = false;
    error_ = nullptr;
    worker_ = std::thread([this] { work(); });
  }

  // Stops and joins the thread; every slot is free again.
  void stop() {
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

  // The thread: fills free slots until the pass ends, an error or stop().
  void work() {
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

  std::unique_ptr<RowStream> in_;
  std::vector<Chunk> slots_;  // the queue's chunks
  detail::SlotRing full_;     // filled slots, in order (guarded by m_)
  detail::SlotRing free_;     // slots the thread may fill (guarded by m_)
  std::mutex m_;
  std::condition_variable has_data_, has_room_;
  bool stopping_ = false, done_ = false;  // guarded by m_
  std::exception_ptr error_;              // guarded by m_
  std::thread worker_;
  std::int64_t chunk_rows_ = 0;

  Chunk cur_;  // a chunk handed over of which rows are left, from cur_pos_
  std::int64_t cur_pos_ = 0;
  bool ended_ = false;         // the pass has ended: read() gives 0
  std::exception_ptr failed_;  // the pass failed: read() rethrows it
};

}  // namespace cppestimators
