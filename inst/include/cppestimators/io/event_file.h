// TensorBoard event files: TFRecord framing around hand-encoded `Event` protobufs, written and
// read without a protobuf library.
//
// A file is a sequence of records, each
//   uint64 length (LE) | uint32 masked CRC-32C of the 8 length bytes (LE) | data |
//   uint32 masked CRC-32C of data (LE)
// where data is a serialized tensorflow.Event:
//   Event         { double wall_time = 1; int64 step = 2; string file_version = 3;
//                   Summary summary = 5; }
//   Summary       { repeated Value value = 1; }
//   Summary.Value { string tag = 1; oneof value { float simple_value = 2; ... } }
// The first record of a file is an Event carrying wall_time and file_version "brain.Event:2".
// Fields with default values are omitted as in proto3, except simple_value, which is a oneof
// member and therefore always present.
#pragma once
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <stdexcept>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "crc32c.h"

namespace cppestimators {

static_assert(std::numeric_limits<float>::is_iec559 && std::numeric_limits<double>::is_iec559,
              "event files store IEEE-754 floats and doubles");

// One Summary.Value with a simple_value, together with its Event's step and wall time.
struct ScalarEvent {
  std::int64_t step;
  std::string tag;
  double value;
  double wall_time;
};

namespace event_detail {

// Protobuf wire types.
constexpr int kVarint = 0, kFixed64 = 1, kLengthDelimited = 2, kStartGroup = 3, kEndGroup = 4,
              kFixed32 = 5;

constexpr std::uint32_t tag_key(int field, int wire) {
  return (static_cast<std::uint32_t>(field) << 3) | static_cast<std::uint32_t>(wire);
}

inline std::size_t varint_size(std::uint64_t v) {
  std::size_t n = 1;
  while (v >= 0x80u) {
    v >>= 7;
    ++n;
  }
  return n;
}

inline void put_varint(std::string& out, std::uint64_t v) {
  while (v >= 0x80u) {
    out.push_back(static_cast<char>((v & 0x7Fu) | 0x80u));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

inline void put_fixed32(std::string& out, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xFFu));
}

inline void put_fixed64(std::string& out, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xFFu));
}

inline void store_fixed32(char* p, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<char>((v >> (8 * i)) & 0xFFu);
}

inline void store_fixed64(char* p, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<char>((v >> (8 * i)) & 0xFFu);
}

inline std::uint32_t load_fixed32(const unsigned char* p) {
  std::uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

inline std::uint64_t load_fixed64(const unsigned char* p) {
  std::uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

inline std::uint64_t double_bits(double d) {
  std::uint64_t u;
  std::memcpy(&u, &d, sizeof u);
  return u;
}

inline std::uint32_t float_bits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

inline void put_string_field(std::string& out, int field, const std::string& s) {
  put_varint(out, tag_key(field, kLengthDelimited));
  put_varint(out, s.size());
  out.append(s);
}

// Encoded size of one Summary.Value {tag, simple_value}.
inline std::size_t value_size(const std::string& tag) {
  std::size_t n = 5;  // key + fixed32 simple_value
  if (!tag.empty()) n += 1 + varint_size(tag.size()) + tag.size();
  return n;
}

// Appends Event{wall_time, step, summary} to `out`. Nested lengths are computed up front, so
// the message is written in one pass without temporaries.
inline void append_scalar_event(std::string& out, double wall_time, std::int64_t step,
                                const std::vector<std::pair<std::string, float>>& values) {
  if (double_bits(wall_time) != 0) {
    put_varint(out, tag_key(1, kFixed64));
    put_fixed64(out, double_bits(wall_time));
  }
  if (step != 0) {
    put_varint(out, tag_key(2, kVarint));
    put_varint(out, static_cast<std::uint64_t>(step));  // negative: 10-byte two's complement
  }
  std::size_t summary_size = 0;
  for (const auto& kv : values) {
    const std::size_t vs = value_size(kv.first);
    summary_size += 1 + varint_size(vs) + vs;
  }
  put_varint(out, tag_key(5, kLengthDelimited));
  put_varint(out, summary_size);
  for (const auto& kv : values) {
    put_varint(out, tag_key(1, kLengthDelimited));
    put_varint(out, value_size(kv.first));
    if (!kv.first.empty()) put_string_field(out, 1, kv.first);
    put_varint(out, tag_key(2, kFixed32));
    put_fixed32(out, float_bits(kv.second));
  }
}

inline void append_file_version_event(std::string& out, double wall_time) {
  if (double_bits(wall_time) != 0) {
    put_varint(out, tag_key(1, kFixed64));
    put_fixed64(out, double_bits(wall_time));
  }
  put_string_field(out, 3, "brain.Event:2");
}

// Reserves the 12-byte record header at the end of `out`; returns its position.
inline std::size_t begin_record(std::string& out) {
  const std::size_t start = out.size();
  out.append(12, '\0');
  return start;
}

// Fills in the header reserved by begin_record() and appends the data CRC.
inline void end_record(std::string& out, std::size_t start) {
  const std::size_t data_start = start + 12;
  const std::uint64_t len = out.size() - data_start;
  char* header = &out[start];
  store_fixed64(header, len);
  store_fixed32(header + 8, mask_crc(crc32c(header, 8)));
  const std::uint32_t data_crc = mask_crc(crc32c(out.data() + data_start, len));
  put_fixed32(out, data_crc);
}

// Bounds-checked protobuf reader over [p, end). Every method returns false on malformed input.
class WireReader {
 public:
  WireReader(const unsigned char* p, const unsigned char* end) : p_(p), end_(end) {}
  bool done() const { return p_ >= end_; }

  bool varint(std::uint64_t& v) {
    v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (p_ >= end_) return false;
      const unsigned char b = *p_++;
      v |= static_cast<std::uint64_t>(b & 0x7Fu) << shift;
      if (!(b & 0x80u)) return true;
    }
    return false;  // more than 10 bytes
  }
  bool key(int& field, int& wire) {
    std::uint64_t k;
    if (!varint(k) || (k >> 3) == 0 || (k >> 3) > 0x1FFFFFFFu) return false;
    field = static_cast<int>(k >> 3);
    wire = static_cast<int>(k & 7u);
    return true;
  }
  bool fixed32(std::uint32_t& v) {
    if (end_ - p_ < 4) return false;
    v = load_fixed32(p_);
    p_ += 4;
    return true;
  }
  bool fixed64(std::uint64_t& v) {
    if (end_ - p_ < 8) return false;
    v = load_fixed64(p_);
    p_ += 8;
    return true;
  }
  // A length-delimited payload as a sub-reader.
  bool bytes(WireReader& sub) {
    std::uint64_t n;
    if (!varint(n) || n > static_cast<std::uint64_t>(end_ - p_)) return false;
    sub = WireReader(p_, p_ + n);
    p_ += n;
    return true;
  }
  bool string(std::string& s) {
    WireReader sub(nullptr, nullptr);
    if (!bytes(sub)) return false;
    s.assign(reinterpret_cast<const char*>(sub.p_), static_cast<std::size_t>(sub.end_ - sub.p_));
    return true;
  }
  // Skips the value of a field whose key was just read, including (deprecated) groups.
  bool skip(int field, int wire, int depth = 0) {
    std::uint64_t u64;
    std::uint32_t u32;
    WireReader sub(nullptr, nullptr);
    switch (wire) {
      case kVarint: return varint(u64);
      case kFixed64: return fixed64(u64);
      case kLengthDelimited: return bytes(sub);
      case kFixed32: return fixed32(u32);
      case kStartGroup: {
        if (depth > 64) return false;
        for (;;) {
          int f, w;
          if (!key(f, w)) return false;
          if (w == kEndGroup) return f == field;
          if (!skip(f, w, depth + 1)) return false;
        }
      }
      default: return false;  // unmatched end group or wire types 6, 7
    }
  }

 private:
  const unsigned char* p_;
  const unsigned char* end_;
};

// Parses one Summary.Value; `has_simple` tells whether the oneof ends up holding simple_value.
inline bool parse_value(WireReader r, std::string& tag, float& simple, bool& has_simple) {
  tag.clear();
  has_simple = false;
  while (!r.done()) {
    int field, wire;
    if (!r.key(field, wire)) return false;
    if (field == 1 && wire == kLengthDelimited) {
      if (!r.string(tag)) return false;
    } else if (field == 2 && wire == kFixed32) {
      std::uint32_t bits;
      if (!r.fixed32(bits)) return false;
      std::memcpy(&simple, &bits, sizeof simple);
      has_simple = true;
    } else {
      // Another member of the `value` oneof (histogram 3, image 4, histo 5, audio 6, tensor 8)
      // replaces an earlier simple_value.
      if (field == 3 || field == 4 || field == 5 || field == 6 || field == 8) has_simple = false;
      if (!r.skip(field, wire)) return false;
    }
  }
  return true;
}

// Parses one Event, appending a ScalarEvent per simple_value. Summary fields may appear several
// times (protobuf merges them) and before or after wall_time and step.
inline bool parse_event(WireReader r, std::vector<ScalarEvent>& out) {
  const std::size_t first = out.size();
  double wall_time = 0.0;
  std::int64_t step = 0;
  std::string tag;
  while (!r.done()) {
    int field, wire;
    if (!r.key(field, wire)) return false;
    if (field == 1 && wire == kFixed64) {
      std::uint64_t bits;
      if (!r.fixed64(bits)) return false;
      std::memcpy(&wall_time, &bits, sizeof wall_time);
    } else if (field == 2 && wire == kVarint) {
      std::uint64_t v;
      if (!r.varint(v)) return false;
      step = static_cast<std::int64_t>(v);
    } else if (field == 5 && wire == kLengthDelimited) {
      WireReader summary(nullptr, nullptr);
      if (!r.bytes(summary)) return false;
      while (!summary.done()) {
        int f, w;
        if (!summary.key(f, w)) return false;
        if (f == 1 && w == kLengthDelimited) {
          WireReader value(nullptr, nullptr);
          float simple = 0.0f;
          bool has_simple = false;
          if (!summary.bytes(value) || !parse_value(value, tag, simple, has_simple)) return false;
          if (has_simple) out.push_back(ScalarEvent{0, tag, static_cast<double>(simple), 0.0});
        } else if (!summary.skip(f, w)) {
          return false;
        }
      }
    } else if (!r.skip(field, wire)) {
      return false;
    }
  }
  for (std::size_t i = first; i < out.size(); ++i) {
    out[i].step = step;
    out[i].wall_time = wall_time;
  }
  return true;
}

}  // namespace event_detail

// Serialized Event{wall_time, step, summary{value{tag, simple_value}...}}.
inline std::string encode_scalar_event(double wall_time, std::int64_t step,
                                       const std::vector<std::pair<std::string, float>>& values) {
  std::string out;
  event_detail::append_scalar_event(out, wall_time, step, values);
  return out;
}

// Serialized Event{wall_time, file_version: "brain.Event:2"}, the first record of every file.
inline std::string encode_file_version_event(double wall_time) {
  std::string out;
  event_detail::append_file_version_event(out, wall_time);
  return out;
}

// `data` wrapped in TFRecord framing (length, masked length CRC, data, masked data CRC).
inline std::string frame_record(const std::string& data) {
  std::string out;
  out.reserve(data.size() + 16);
  const std::size_t start = event_detail::begin_record(out);
  out.append(data);
  event_detail::end_record(out, start);
  return out;
}

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
    file_ = std::fopen(path_.c_str(), "wb");
    if (!file_) throw std::runtime_error(path_ + ": cannot open event file for writing");

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
    const bool ok = std::fwrite(buffer_.data(), 1, size, file_) == size;
    buffer_.clear();  // keeps the capacity
    if (!ok || std::fflush(file_) != 0) throw std::runtime_error(path_ + ": write error");
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
inline std::vector<ScalarEvent> read_scalar_events(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) throw std::runtime_error(path + ": cannot open event file");
  std::string bytes;
  std::vector<char> chunk(1 << 16);
  std::size_t n;
  while ((n = std::fread(chunk.data(), 1, chunk.size(), f)) > 0) bytes.append(chunk.data(), n);
  const bool failed = std::ferror(f) != 0;
  std::fclose(f);
  if (failed) throw std::runtime_error(path + ": read error");

  auto fail = [&path](const char* what, std::size_t offset) {
    return std::runtime_error(path + ": " + what + " at offset " + std::to_string(offset));
  };
  std::vector<ScalarEvent> out;
  const auto* data = reinterpret_cast<const unsigned char*>(bytes.data());
  const std::size_t size = bytes.size();
  std::size_t pos = 0;
  while (pos < size) {
    if (size - pos < 12) throw fail("truncated record", pos);
    const std::uint64_t len = event_detail::load_fixed64(data + pos);
    if (unmask_crc(event_detail::load_fixed32(data + pos + 8)) != crc32c(data + pos, 8))
      throw fail("bad length CRC", pos);
    if (len > size - pos - 12 || size - pos - 12 - len < 4) throw fail("truncated record", pos);
    const unsigned char* payload = data + pos + 12;
    const std::size_t payload_len = static_cast<std::size_t>(len);
    if (unmask_crc(event_detail::load_fixed32(payload + payload_len)) !=
        crc32c(payload, payload_len))
      throw fail("bad record CRC", pos);
    if (!event_detail::parse_event(event_detail::WireReader(payload, payload + payload_len), out))
      throw fail("malformed Event", pos);
    pos += 12 + payload_len + 4;
  }
  return out;
}

}  // namespace cppestimators
