// The protobuf wire format, as much as event files need, without a protobuf
// library: keys, varints and length-delimited fields for writing, and a
// bounds-checked reader that can skip any field. Fixed-width values use the
// little-endian codec (little_endian.h).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "little_endian.h"

namespace cppestimators {
namespace event_detail {

// Protobuf wire types.
constexpr int kVarint = 0, kFixed64 = 1, kLengthDelimited = 2, kStartGroup = 3, kEndGroup = 4,
              kFixed32 = 5;

constexpr std::uint32_t tag_key(int field, int wire) {
  return (static_cast<std::uint32_t>(field) << 3) | static_cast<std::uint32_t>(wire);
}

// inline: called per value by the event and Example encoders
inline std::size_t varint_size(std::uint64_t v) {
  std::size_t n = 1;
  while (v >= 0x80u) {
    v >>= 7;
    ++n;
  }
  return n;
}

// inline: called per value by the event and Example encoders
inline void put_varint(std::string& out, std::uint64_t v) {
  while (v >= 0x80u) {
    out.push_back(static_cast<char>((v & 0x7Fu) | 0x80u));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

void put_string_field(std::string& out, int field, const std::string& s);

// Bounds-checked protobuf reader over [p, end). Every method returns false on malformed input.
// The constructor, the accessors and the reads of one value stay inline:
// the Example parser makes a sub-reader per field and reads per value.
class WireReader {
 public:
  WireReader(const unsigned char* p, const unsigned char* end) : p_(p), end_(end) {}
  bool done() const { return p_ >= end_; }
  // The bytes not read yet.
  const unsigned char* begin() const { return p_; }
  std::size_t size() const { return static_cast<std::size_t>(end_ - p_); }

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
    v = detail::load_u32(p_);
    p_ += 4;
    return true;
  }
  bool fixed64(std::uint64_t& v) {
    if (end_ - p_ < 8) return false;
    v = detail::load_u64(p_);
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
  bool string(std::string& s);
  // Skips the value of a field whose key was just read, including (deprecated) groups.
  bool skip(int field, int wire, int depth = 0);

 private:
  const unsigned char* p_;
  const unsigned char* end_;
};

}  // namespace event_detail
}  // namespace cppestimators
