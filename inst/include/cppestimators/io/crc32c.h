// CRC-32C (Castagnoli polynomial, reflected 0x82F63B78), as used by
// TFRecord framing and by our checkpoint files. crc32c("123456789") is
// 0xE3069283.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>

namespace cppestimators {

namespace detail {
inline const std::array<std::uint32_t, 256>& crc32c_table() {
  static const std::array<std::uint32_t, 256> table = [] {
    std::array<std::uint32_t, 256> t{};
    for (std::uint32_t i = 0; i < 256; ++i) {
      std::uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = (c & 1u) ? (c >> 1) ^ 0x82F63B78u : (c >> 1);
      t[i] = c;
    }
    return t;
  }();
  return table;
}
}  // namespace detail

// Extends `crc` (0 to start) over n bytes.
inline std::uint32_t crc32c_extend(std::uint32_t crc, const void* data, std::size_t n) {
  const auto& t = detail::crc32c_table();
  const unsigned char* p = static_cast<const unsigned char*>(data);
  std::uint32_t c = ~crc;
  for (std::size_t i = 0; i < n; ++i) c = t[(c ^ p[i]) & 0xFFu] ^ (c >> 8);
  return ~c;
}

inline std::uint32_t crc32c(const void* data, std::size_t n) { return crc32c_extend(0, data, n); }

// TFRecord's masking: rotate right by 15 bits and add a constant.
inline std::uint32_t mask_crc(std::uint32_t crc) {
  return ((crc >> 15) | (crc << 17)) + 0xa282ead8u;
}
inline std::uint32_t unmask_crc(std::uint32_t masked) {
  const std::uint32_t rot = masked - 0xa282ead8u;
  return (rot >> 17) | (rot << 15);
}

}  // namespace cppestimators
