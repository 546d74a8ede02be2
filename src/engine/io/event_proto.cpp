#include <cppestimators/io/event_proto.h>

#include <cppestimators/io/little_endian.h>

namespace cppestimators {
namespace event_detail {

namespace {

// Encoded size of one Summary.Value {tag, simple_value}.
std::size_t value_size(const std::string& tag) {
  std::size_t n = 5;  // key + fixed32 simple_value
  if (!tag.empty()) n += 1 + varint_size(tag.size()) + tag.size();
  return n;
}

// Parses one Summary.Value; `has_simple` tells whether the oneof ends up holding simple_value.
bool parse_value(WireReader r, std::string& tag, float& simple, bool& has_simple) {
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
      simple = detail::float_from_bits(bits);
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

}  // namespace

void append_scalar_event(std::string& out, double wall_time, std::int64_t step,
                         const std::vector<std::pair<std::string, float>>& values) {
  if (detail::double_bits(wall_time) != 0) {
    put_varint(out, tag_key(1, kFixed64));
    detail::put_f64(out, wall_time);
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
    detail::put_f32(out, kv.second);
  }
}

void append_file_version_event(std::string& out, double wall_time) {
  if (detail::double_bits(wall_time) != 0) {
    put_varint(out, tag_key(1, kFixed64));
    detail::put_f64(out, wall_time);
  }
  put_string_field(out, 3, "brain.Event:2");
}

bool parse_event(WireReader r, std::vector<ScalarEvent>& out) {
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
      wall_time = detail::double_from_bits(bits);
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

std::string encode_scalar_event(double wall_time, std::int64_t step,
                                const std::vector<std::pair<std::string, float>>& values) {
  std::string out;
  event_detail::append_scalar_event(out, wall_time, step, values);
  return out;
}

std::string encode_file_version_event(double wall_time) {
  std::string out;
  event_detail::append_file_version_event(out, wall_time);
  return out;
}

}  // namespace cppestimators
