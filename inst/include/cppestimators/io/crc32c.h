// CRC-32C (Castagnoli polynomial, reflected 0x82F63B78), as used by
// TFRecord framing and by our checkpoint files. crc32c("123456789") is
// 0xE3069283.
#pragma once
#include <cstddef>
#include <cstdint>

namespace cppestimators {

// Extends `crc` (0 to start) over n bytes.
std::uint32_t crc32c_extend(std::uint32_t crc, const void* data, std::size_t n);

std::uint32_t crc32c(const void* data, std::size_t n);

// TFRecord's masking: rotate right by 15 bits and add a constant.
// inline: one-line bit arithmetic, called per record next to crc32c()
inline std::uint32_t mask_crc(std::uint32_t crc) {
  return ((crc >> 15) | (crc << 17)) + 0xa282ead8u;
}
// inline: one-line bit arithmetic, called per record next to crc32c()
inline std::uint32_t unmask_crc(std::uint32_t masked) {
  const std::uint32_t rot = masked - 0xa282ead8u;
  return (rot >> 17) | (rot << 15);
}

}  // namespace cppestimators
