// TensorBoard event files: EventWriter appends scalar summaries to a new file, and
// read_scalar_events() reads them back, without a protobuf library. The pieces:
//   tfrecord.h       the record framing (length, CRCs) of the file
//   event_proto.h    the `Event` protobuf in each record (ScalarEvent, encode_*_event)
//   protobuf_wire.h  the protobuf wire format under it
#pragma once
#include <cerrno>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "atomic_file.h"
#include "event_proto.h"
#include "tfrecord.h"

namespace cppestimators {

// Writes scalar summaries to a new event file. Records are encoded into an in-memory buffer and
// reach the file on flush(), flush_if_due() or destruction. Not thread-safe.
class EventWriter {
 public:
  // Creates `dir` (and parents) if missing and opens
  // `dir`/events.out.tfevents.<floor(wall_time)>.<hostname> (path separators in `hostname` are
  // replaced by '_'). Unlike TensorFlow, an existing file is never overwritten or appended to:
  // the first free name among <name>, <name>.1, <name>.2, ... is used. (The existence check and
  // the open are not atomic; concurrent writers must use distinct hostnames or directories.)
  // Writes and flushes the file_version record. Throws std::runtime_error naming the path.
  EventWriter(const std::string& dir, const std::string& hostname, double wall_time)
      : last_flush_(wall_time) {
    namespace fs = std::filesystem;
    std::error_code ec;
    fs::create_directories(fs::path(dir), ec);
    if (ec) throw std::runtime_error(dir + ": cannot create directory: " + ec.message());

    std::string host = hostname;
    for (char& c : host)
      if (c == '/' || c == '\\') c = '_';
    const double secs = std::floor(wall_time);
    const long long stamp = std::fabs(secs) < 9e18 ? static_cast<long long>(secs) : 0;  // NaN: 0
    const fs::path base =
        fs::path(dir) / ("events.out.tfevents." + std::to_string(stamp) + "." + host);
    fs::path candidate = base;
    for (int n = 1; fs::exists(candidate, ec) || ec; ++n) {
      if (ec) throw std::runtime_error(candidate.string() + ": " + ec.message());
      candidate = base;
      candidate += "." + std::to_string(n);
    }
    path_ = candidate.string();
    errno = 0;
    file_ = std::fopen(path_.c_str(), "wb");
    if (!file_)
      throw std::runtime_error(path_ + ": cannot open event file for writing" + os_reason(errno));

    try {
      buffer_.reserve(kInitialBuffer);
      const std::size_t start = event_detail::begin_record(buffer_);
      event_detail::append_file_version_event(buffer_, wall_time);
      event_detail::end_record(buffer_, start);
      ++records_;
      flush();
    } catch (...) {
      std::fclose(file_);
      throw;
    }
  }

  EventWriter(const EventWriter&) = delete;
  EventWriter& operator=(const EventWriter&) = delete;

  ~EventWriter() {
    try {
      flush();
    } catch (...) {
    }
    std::fclose(file_);
  }

  // Buffers one Event with a Summary.Value per (tag, value). An empty `values` adds nothing.
  void add_scalars(std::int64_t step, const std::vector<std::pair<std::string, float>>& values,
                   double wall_time) {
    if (values.empty()) return;
    const std::size_t start = event_detail::begin_record(buffer_);
    event_detail::append_scalar_event(buffer_, wall_time, step, values);
    event_detail::end_record(buffer_, start);
    ++records_;
  }

  void add_scalar(std::int64_t step, const std::string& tag, float value, double wall_time) {
    scratch_.resize(1);
    scratch_[0].first = tag;  // reuses the string's capacity
    scratch_[0].second = value;
    add_scalars(step, scratch_, wall_time);
  }

  // Writes the buffered records and fflush()es. A no-op when nothing is buffered. Throws
  // std::runtime_error naming the path on a write error (the buffered records are dropped).
  void flush() {
    if (buffer_.empty()) return;
    const std::size_t size = buffer_.size();
    errno = 0;
    const bool ok = std::fwrite(buffer_.data(), 1, size, file_) == size;
    int err = errno;
    buffer_.clear();  // keeps the capacity
    if (ok && std::fflush(file_) == 0) return;
    if (err == 0) err = errno;
    std::clearerr(file_);
    throw std::runtime_error(path_ + ": write error" + os_reason(err));
  }

  // Flushes when at least `every_secs` have passed since the last flush_if_due() flush (or the
  // construction); `now` is on the same clock as the constructor's `wall_time`. Returns whether
  // it flushed. If the clock went backwards, restarts the interval from `now`.
  bool flush_if_due(double now, double every_secs = 5.0) {
    if (now - last_flush_ < every_secs) {
      if (now < last_flush_) last_flush_ = now;
      return false;
    }
    last_flush_ = now;
    flush();
    return true;
  }

  const std::string& path() const { return path_; }

  // Records produced so far, including the file_version record and records still buffered.
  std::size_t records_written() const { return records_; }

 private:
  static constexpr std::size_t kInitialBuffer = 64 * 1024;

  // ": <the OS's reason>" for an errno, or "" without one.
  static std::string os_reason(int err) {
    return err != 0 ? ": " + detail::errno_string(err) : std::string();
  }

  std::string path_;
  std::FILE* file_ = nullptr;
  std::string buffer_;
  std::vector<std::pair<std::string, float>> scratch_;
  std::size_t records_ = 0;
  double last_flush_;
};

// Reads every record of one event file and returns a ScalarEvent per Summary.Value holding a
// simple_value, in file order (events without a summary, e.g. file_version, yield none; values
// of other kinds such as tensors or histograms are skipped). Throws std::runtime_error naming the
// file and the byte offset of the offending record: "<path>: truncated record at offset N",
// "<path>: bad length CRC at offset N", "<path>: bad record CRC at offset N",
// "<path>: malformed Event at offset N"; or "<path>: cannot open"/"read error".
// With `truncated_tail`, an incomplete last record is skipped and its offset
// reported there (see for_each_record()).
inline std::vector<ScalarEvent> read_scalar_events(const std::string& path,
                                                   std::size_t* truncated_tail = nullptr) {
  std::string bytes;
  int err = 0;
  const detail::ReadResult r = detail::read_whole_file(path, &bytes, &err);
  if (r == detail::ReadResult::cannot_open)
    throw std::runtime_error(path + ": cannot open event file: " + detail::errno_string(err));
  if (r == detail::ReadResult::read_error)
    throw std::runtime_error(path + ": read error: " + detail::errno_string(err));
  std::vector<ScalarEvent> out;
  event_detail::for_each_record(
      bytes, path,
      [&](const unsigned char* data, std::size_t size, std::size_t offset) {
        if (!event_detail::parse_event(event_detail::WireReader(data, data + size), out))
          throw event_detail::record_error(path, "malformed Event", offset);
      },
      truncated_tail);
  return out;
}

// What read_scalar_events_from() read from a file's tail.
struct EventTail {
  std::vector<ScalarEvent> events;  // as read_scalar_events(), for the records read
  std::size_t end = 0;              // the offset after the last whole record read
  std::size_t records = 0;          // whole records read (any kind of Event)
};

// Reads the whole records of `path` from byte `offset` (the `end` of an earlier call, or 0) on,
// for following a file that is still being written: the walk stops before an incomplete last
// record (its length or data not all written yet), which the next call, from `end`, reads once
// complete. A file shorter than `offset` (replaced or truncated since) yields nothing and keeps
// `end` at `offset`. Errors as read_scalar_events() (offsets are offsets in the file), except
// that an incomplete last record is not one.
inline EventTail read_scalar_events_from(const std::string& path, std::size_t offset) {
  EventTail out;
  out.end = offset;
  errno = 0;
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f)
    throw std::runtime_error(path + ": cannot open event file: " + detail::errno_string(errno));
  std::string bytes;
  bool failed = false;
  if (offset > 0) {
    // Seek in steps a long can hold (long is 32 bits on some platforms).
    std::size_t left = offset;
    std::fseek(f, 0, SEEK_SET);
    while (left > 0 && !failed) {
      const long step = static_cast<long>(left < (1ul << 30) ? left : (1ul << 30));
      failed = std::fseek(f, step, SEEK_CUR) != 0;
      left -= static_cast<std::size_t>(step);
    }
  }
  if (!failed) {
    char buf[65536];
    std::size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) bytes.append(buf, n);
    failed = std::ferror(f) != 0;
  }
  const int err = errno;
  std::fclose(f);
  if (failed)
    throw std::runtime_error(path + ": read error: " + detail::errno_string(err ? err : EIO));
  std::size_t tail = 0;
  std::size_t end = offset;
  event_detail::for_each_record(
      bytes, path,
      [&](const unsigned char* data, std::size_t size, std::size_t at) {
        if (!event_detail::parse_event(event_detail::WireReader(data, data + size), out.events))
          throw event_detail::record_error(path, "malformed Event", at);
        ++out.records;
        end = at + 12 + size + 4;
      },
      &tail, offset);
  out.end = end;
  return out;
}

}  // namespace cppestimators
