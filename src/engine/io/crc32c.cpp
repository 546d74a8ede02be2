#include <cppestimators/io/crc32c.h>

#include <array>

namespace cppestimators {

namespace {
const std::array<std::uint32_t, 256>& crc32c_table() {
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
}  // namespace

std::uint32_t crc32c_extend(std::uint32_t crc, const void* data, std::size_t n) {
  const auto& t = crc32c_table();
  const unsigned char* p = static_cast<const unsigned char*>(data);
  std::uint32_t c = ~crc;
  for (std::size_t i = 0; i < n; ++i) c = t[(c ^ p[i]) & 0xFFu] ^ (c >> 8);
  return ~c;
}

std::uint32_t crc32c(const void* data, std::size_t n) { return crc32c_extend(0, data, n); }

}  // namespace cppestimators
