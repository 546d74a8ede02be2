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
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "chunk.h"
#include "row_stream.h"

namespace cppestimators {

namespace detail {

// A queue of at most `capacity` slot numbers, in a ring (no allocation once
// sized).
class SlotRing {
 public:
  void reset(std::size_t capacity);
  bool empty() const { return size_ == 0; }
  void push(std::size_t x);
  std::size_t pop();

 private:
  std::vector<std::size_t> v_;
  std::size_t head_ = 0, size_ = 0;
};

}  // namespace detail

class PrefetchStream : public RowStream {
 public:
  PrefetchStream(std::unique_ptr<RowStream> in, int depth);
  ~PrefetchStream() override;
  PrefetchStream(const PrefetchStream&) = delete;
  PrefetchStream& operator=(const PrefetchStream&) = delete;

  std::int64_t read(Chunk& out, std::int64_t max_rows) override;

  void rewind() override;

  bool main_thread_only() const override;

 private:
  // Gives out up to max_rows rows of the chunk handed over before.
  std::int64_t give_leftover(Chunk& out, std::int64_t max_rows);

  void release(std::size_t slot);

  void start(std::int64_t rows);

  // Stops and joins the thread; every slot is free again.
  void stop();

  // The thread: fills free slots until the pass ends, an error or stop().
  void work();

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
