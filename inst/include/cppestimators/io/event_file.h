// TensorBoard event files: EventWriter appends scalar summaries to a new file, and
// read_scalar_events() reads them back, without a protobuf library. The pieces:
//   tfrecord.h       the record framing (length, CRCs) of the file
//   event_proto.h    the `Event` protobuf in each record (ScalarEvent, encode_*_event)
//   protobuf_wire.h  the protobuf wire format under it
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "event_proto.h"

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
  EventWriter(const std::string& dir, const std::string& hostname, double wall_time);

  EventWriter(const EventWriter&) = delete;
  EventWriter& operator=(const EventWriter&) = delete;

  ~EventWriter();

  // Buffers one Event with a Summary.Value per (tag, value). An empty `values` adds nothing.
  void add_scalars(std::int64_t step, const std::vector<std::pair<std::string, float>>& values,
                   double wall_time);

  void add_scalar(std::int64_t step, const std::string& tag, float value, double wall_time);

  // Writes the buffered records and fflush()es. A no-op when nothing is buffered. Throws
  // std::runtime_error naming the path on a write error (the buffered records are dropped).
  void flush();

  // Flushes when at least `every_secs` have passed since the last flush_if_due() flush (or the
  // construction); `now` is on the same clock as the constructor's `wall_time`. Returns whether
  // it flushed. If the clock went backwards, restarts the interval from `now`.
  bool flush_if_due(double now, double every_secs = 5.0);

  const std::string& path() const { return path_; }

  // Records produced so far, including the file_version record and records still buffered.
  std::size_t records_written() const { return records_; }

 private:
  static constexpr std::size_t kInitialBuffer = 64 * 1024;

  // ": <the OS's reason>" for an errno, or "" without one.
  static std::string os_reason(int err);

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
std::vector<ScalarEvent> read_scalar_events(const std::string& path,
                                            std::size_t* truncated_tail = nullptr);

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
EventTail read_scalar_events_from(const std::string& path, std::size_t offset);

}  // namespace cppestimators
