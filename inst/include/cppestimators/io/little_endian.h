// The one little-endian codec of io/: fixed-width integers and IEEE 754
// floats, written and read byte by byte so that files are portable between
// hosts. Used by the checkpoint format and by TFRecord/protobuf framing of
// event files.
//
// - put_*   append to a std::string;
// - store_* write into a buffer the caller has sized;
// - load_*  read from a buffer the caller has bounds-checked;
// - LittleEndianReader reads with bounds checks and throws TruncatedInput
//   naming the field that ran past the end.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>

namespace cppestimators {
namespace detail {

static_assert(std::numeric_limits<float>::is_iec559 && sizeof(float) == 4,
              "io/ stores IEEE 754 binary32 floats");
static_assert(std::numeric_limits<double>::is_iec559 && sizeof(double) == 8,
              "io/ stores IEEE 754 binary64 doubles");

// The codec's one-liners (bit patterns, store_/put_/load_) stay inline:
// they are called per value by the checkpoint and event codecs.

// --- bit patterns (memcpy, without implementation-defined casts) --------------

inline std::uint32_t float_bits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
inline std::uint64_t double_bits(double d) {
  std::uint64_t u;
  std::memcpy(&u, &d, 8);
  return u;
}
inline float float_from_bits(std::uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
inline double double_from_bits(std::uint64_t u) {
  double d;
  std::memcpy(&d, &u, 8);
  return d;
}
inline std::int64_t int64_from_bits(std::uint64_t u) {
  std::int64_t v;
  std::memcpy(&v, &u, 8);  // two's complement
  return v;
}

// --- writing --------------------------------------------------------------------

inline void store_u32(char* p, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<char>((v >> (8 * i)) & 0xFFu);
}
inline void store_u64(char* p, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<char>((v >> (8 * i)) & 0xFFu);
}

inline void put_u32(std::string& out, std::uint32_t v) {
  char b[4];
  store_u32(b, v);
  out.append(b, 4);
}
inline void put_u64(std::string& out, std::uint64_t v) {
  char b[8];
  store_u64(b, v);
  out.append(b, 8);
}
inline void put_i64(std::string& out, std::int64_t v) {
  put_u64(out, static_cast<std::uint64_t>(v));
}
inline void put_f32(std::string& out, float v) { put_u32(out, float_bits(v)); }
inline void put_f64(std::string& out, double v) { put_u64(out, double_bits(v)); }

// --- reading, unchecked: `p` must have 4 (8) readable bytes ---------------------

inline std::uint32_t load_u32(const void* p) {
  const auto* b = static_cast<const unsigned char*>(p);
  std::uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | b[i];
  return v;
}
inline std::uint64_t load_u64(const void* p) {
  const auto* b = static_cast<const unsigned char*>(p);
  std::uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | b[i];
  return v;
}
inline std::int64_t load_i64(const void* p) { return int64_from_bits(load_u64(p)); }
inline float load_f32(const void* p) { return float_from_bits(load_u32(p)); }

// --- reading, bounds-checked ------------------------------------------------------

// Thrown by LittleEndianReader when `field` does not fit in what remains.
// Callers usually catch it and rethrow with their own wording and file name.
class TruncatedInput : public std::runtime_error {
 public:
  explicit TruncatedInput(const std::string& field);
  const std::string& field() const { return field_; }

 private:
  std::string field_;
};

// Reads [pos, size) of a buffer it does not own. Every read checks that its
// bytes remain first, so a damaged length cannot make it read out of bounds.
class LittleEndianReader {
 public:
  LittleEndianReader(const char* data, std::size_t size, std::size_t pos = 0);

  // The accessors and reads below stay inline: called per value (a
  // checkpoint's dims and floats).

  std::size_t pos() const { return pos_; }
  std::size_t remaining() const { return size_ - pos_; }
  bool done() const { return pos_ >= size_; }

  // Whether `count` items of `width` bytes remain (no overflow: the
  // remainder is divided, the count never multiplied).
  bool fits(std::uint64_t count, std::size_t width) const { return count <= remaining() / width; }
  // Throws TruncatedInput(field) unless they do.
  void need(std::uint64_t count, std::size_t width, const char* field) const {
    if (!fits(count, width)) throw TruncatedInput(field);
  }
  void need(std::uint64_t count, std::size_t width, const std::string& field) const {
    if (!fits(count, width)) throw TruncatedInput(field);
  }

  std::uint32_t u32(const char* field) { return load_u32(take(4, field)); }
  std::uint64_t u64(const char* field) { return load_u64(take(8, field)); }
  std::int64_t i64(const char* field) { return load_i64(take(8, field)); }
  float f32(const char* field) { return load_f32(take(4, field)); }
  // Assigns the next n bytes to *out.
  void bytes(std::size_t n, std::string* out, const char* field) { out->assign(take(n, field), n); }

 private:
  const char* take(std::size_t n, const char* field) {
    need(n, 1, field);
    const char* p = data_ + pos_;
    pos_ += n;
    return p;
  }

  const char* data_;
  std::size_t size_;
  std::size_t pos_;
};

}  // namespace detail
}  // namespace cppestimators
