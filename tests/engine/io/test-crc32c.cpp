// Engine unit tests: CRC-32C (Castagnoli) of io/crc32c.h and TFRecord's
// masking of it.
#include <testthat.h>

#include <cstdint>
#include <string>

#include <cppestimators/io/crc32c.h>

using namespace cppestimators;

context("CRC-32C") {
  test_that("the standard check values") {
    const std::string digits = "123456789";
    expect_true(crc32c(digits.data(), digits.size()) == 0xE3069283u);
    expect_true(crc32c("", 0) == 0u);
    const std::string zeros(32, '\0');  // RFC 3720, B.4
    expect_true(crc32c(zeros.data(), zeros.size()) == 0x8A9136AAu);
    const std::string ones(32, '\xFF');
    expect_true(crc32c(ones.data(), ones.size()) == 0x62A8AB43u);
  }

  test_that("extending over pieces equals the CRC of the whole") {
    const std::string s = "The quick brown fox jumps over the lazy dog";
    const std::uint32_t whole = crc32c(s.data(), s.size());
    for (std::size_t cut = 0; cut <= s.size(); cut += 7)
      expect_true(crc32c_extend(crc32c(s.data(), cut), s.data() + cut, s.size() - cut) == whole);
  }

  test_that("masking is TFRecord's rotation plus constant, and unmasking undoes it") {
    const std::uint32_t crc = 0xE3069283u;
    const std::uint32_t rotated = (crc >> 15) | (crc << 17);
    expect_true(mask_crc(crc) == rotated + 0xA282EAD8u);
    expect_true(unmask_crc(mask_crc(crc)) == crc);
    expect_true(unmask_crc(mask_crc(0u)) == 0u);
  }
}
