// String fingerprints bit-identical to TensorFlow's: Fingerprint64 reproduces
// FarmHash's Fingerprint64 (farmhashna::Hash64), FingerprintCat64 is the
// combiner sparse_cross uses, hash_bucket is string_to_hash_bucket_fast.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>

namespace cppestimators {

namespace fp_detail {

// Words are read little-endian, as FarmHash does on x86-64 and ARM. A
// big-endian host would need byte swaps in load64/load32.
#if defined(__BYTE_ORDER__) && defined(__ORDER_LITTLE_ENDIAN__)
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "fingerprint.h assumes a little-endian host");
#endif

using u64 = std::uint64_t;
using u32 = std::uint32_t;

constexpr u64 k0 = 0xc3a5c85c97cb3127ULL;
constexpr u64 k1 = 0xb492b66fbe98f273ULL;
constexpr u64 k2 = 0x9ae16a3b2f90404fULL;

// Unaligned loads through memcpy.
inline u64 load64(const char* p) {
  u64 v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
inline u32 load32(const char* p) {
  u32 v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

inline u64 rotr(u64 v, int shift) { return (v >> shift) | (v << (64 - shift)); }
inline u64 shift_mix(u64 v) { return v ^ (v >> 47); }

// Murmur-style mix of two words with a given multiplier.
inline u64 mix16(u64 u, u64 v, u64 mul) {
  u64 a = (u ^ v) * mul;
  a ^= a >> 47;
  u64 b = (v ^ a) * mul;
  b ^= b >> 47;
  return b * mul;
}

inline u64 hash_0_to_16(const char* s, std::size_t len) {
  if (len >= 8) {
    const u64 mul = k2 + len * 2;
    const u64 a = load64(s) + k2;
    const u64 b = load64(s + len - 8);
    const u64 c = rotr(b, 37) * mul + a;
    const u64 d = (rotr(a, 25) + b) * mul;
    return mix16(c, d, mul);
  }
  if (len >= 4) {
    const u64 mul = k2 + len * 2;
    const u64 a = load32(s);
    return mix16(len + (a << 3), load32(s + len - 4), mul);
  }
  if (len > 0) {
    // First, middle and last byte (unsigned), combined in 32-bit arithmetic.
    const u32 a = static_cast<unsigned char>(s[0]);
    const u32 b = static_cast<unsigned char>(s[len >> 1]);
    const u32 c = static_cast<unsigned char>(s[len - 1]);
    const u32 y = a + (b << 8);
    const u32 z = static_cast<u32>(len) + (c << 2);
    return shift_mix(y * k2 ^ z * k0) * k2;
  }
  return k2;
}

inline u64 hash_17_to_32(const char* s, std::size_t len) {
  const u64 mul = k2 + len * 2;
  const u64 a = load64(s) * k1;
  const u64 b = load64(s + 8);
  const u64 c = load64(s + len - 8) * mul;
  const u64 d = load64(s + len - 16) * k2;
  return mix16(rotr(a + b, 43) + rotr(c, 30) + d, a + rotr(b + k2, 18) + c, mul);
}

inline u64 hash_33_to_64(const char* s, std::size_t len) {
  const u64 mul = k2 + len * 2;
  const u64 a = load64(s) * k2;
  const u64 b = load64(s + 8);
  const u64 c = load64(s + len - 8) * mul;
  const u64 d = load64(s + len - 16) * k2;
  const u64 y = rotr(a + b, 43) + rotr(c, 30) + d;
  const u64 z = mix16(y, a + rotr(b + k2, 18) + c, mul);
  const u64 e = load64(s + 16) * mul;
  const u64 f = load64(s + 24);
  const u64 g = (y + load64(s + len - 32)) * mul;
  const u64 h = (z + load64(s + len - 24)) * mul;
  return mix16(rotr(e + f, 43) + rotr(g, 30) + h, e + rotr(f + a, 18) + g, mul);
}

// Mixes 32 bytes at p into the seed pair (a, b).
inline std::pair<u64, u64> mix32(const char* p, u64 a, u64 b) {
  const u64 w = load64(p), x = load64(p + 8), y = load64(p + 16), z = load64(p + 24);
  a += w;
  b = rotr(b + a + z, 21);
  const u64 c = a;
  a += x + y;
  b += rotr(a, 44);
  return {a + z, b + c};
}

// Inputs longer than 64 bytes: a 56-byte state over 64-byte blocks, then the
// last 64 bytes (which may overlap the previous block) with a state-dependent
// multiplier.
inline u64 hash_over_64(const char* s, std::size_t len) {
  constexpr u64 seed = 81;
  u64 x = seed * k2 + load64(s);
  u64 y = seed * k1 + 113;
  u64 z = shift_mix(y * k2 + 113) * k2;
  std::pair<u64, u64> v{0, 0}, w{0, 0};

  const char* end = s + ((len - 1) / 64) * 64;
  const char* last64 = end + ((len - 1) & 63) - 63;
  do {
    x = rotr(x + y + v.first + load64(s + 8), 37) * k1;
    y = rotr(y + v.second + load64(s + 48), 42) * k1;
    x ^= w.second;
    y += v.first + load64(s + 40);
    z = rotr(z + w.first, 33) * k1;
    v = mix32(s, v.second * k1, x + w.first);
    w = mix32(s + 32, z + w.second, y + load64(s + 16));
    std::swap(z, x);
    s += 64;
  } while (s != end);

  const u64 mul = k1 + ((z & 0xff) << 1);
  s = last64;
  w.first += (len - 1) & 63;
  v.first += w.first;
  w.first += v.first;
  x = rotr(x + y + v.first + load64(s + 8), 37) * mul;
  y = rotr(y + v.second + load64(s + 48), 42) * mul;
  x ^= w.second * 9;
  y += v.first * 9 + load64(s + 40);
  z = rotr(z + w.first, 33) * mul;
  v = mix32(s, v.second * mul, x + w.first);
  w = mix32(s + 32, z + w.second, y + load64(s + 16));
  std::swap(z, x);
  return mix16(mix16(v.first, w.first, mul) + shift_mix(y) * k0 + z,
               mix16(v.second, w.second, mul) + x, mul);
}

}  // namespace fp_detail

// FarmHash Fingerprint64 (farmhashna::Hash64), as TensorFlow's Fingerprint64.
inline std::uint64_t fingerprint64(const char* s, std::size_t len) {
  using namespace fp_detail;
  if (len <= 16) return hash_0_to_16(s, len);
  if (len <= 32) return hash_17_to_32(s, len);
  if (len <= 64) return hash_33_to_64(s, len);
  return hash_over_64(s, len);
}

inline std::uint64_t fingerprint64(std::string_view s) { return fingerprint64(s.data(), s.size()); }

// TensorFlow's FingerprintCat64: order-dependent combination of two
// fingerprints (sparse_cross's hashed crosses).
inline std::uint64_t fingerprint_cat64(std::uint64_t fp1, std::uint64_t fp2) {
  constexpr std::uint64_t kMul = 0xc6a4a7935bd1e995ULL;
  std::uint64_t r = fp1 ^ kMul;
  r ^= fp_detail::shift_mix(fp2 * kMul) * kMul;
  r *= kMul;
  r = fp_detail::shift_mix(r) * kMul;
  return fp_detail::shift_mix(r);
}

// Decimal text of an integer, as TensorFlow's as_string: "-12", "0", "42".
inline std::string int64_decimal(std::int64_t v) { return std::to_string(v); }

// string_to_hash_bucket_fast: Fingerprint64 modulo num_buckets (num_buckets > 0).
inline std::int64_t hash_bucket(const char* s, std::size_t len, std::int64_t num_buckets) {
  return static_cast<std::int64_t>(fingerprint64(s, len) % static_cast<std::uint64_t>(num_buckets));
}

}  // namespace cppestimators
