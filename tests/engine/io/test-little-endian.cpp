// Engine unit tests: the little-endian byte codec of io/little_endian.h.
#include <testthat.h>

#include <cstdint>
#include <limits>
#include <string>

#include <cppestimators/io/little_endian.h>

#include "test-helpers.h"

using namespace cppestimators::testing;

context("Little-endian codec") {
  test_that("values are written least significant byte first and read back") {
    namespace d = cppestimators::detail;
    std::string s;
    d::put_u32(s, 0x01020304u);
    d::put_u64(s, 0x0102030405060708ull);
    d::put_i64(s, -2);
    d::put_f32(s, 1.0f);  // 0x3F800000
    expect_true(s == std::string("\x04\x03\x02\x01"
                                 "\x08\x07\x06\x05\x04\x03\x02\x01"
                                 "\xFE\xFF\xFF\xFF\xFF\xFF\xFF\xFF"
                                 "\x00\x00\x80\x3F",
                                 24));
    d::LittleEndianReader r(s.data(), s.size());
    expect_true(r.u32("a") == 0x01020304u);
    expect_true(r.u64("b") == 0x0102030405060708ull);
    expect_true(r.i64("c") == -2);
    expect_true(r.f32("d") == 1.0f);
    expect_true(r.done());
  }

  test_that("bounds-checked reads name the field that runs past the end") {
    namespace d = cppestimators::detail;
    const std::string s(6, '\0');
    d::LittleEndianReader r(s.data(), s.size());
    r.u32("first");
    expect_true(error_of([&] { r.u32("second"); }) == "second overruns the input");
    expect_true(r.pos() == 4);  // a failed read consumes nothing
    std::string field;
    try {
      r.need(std::numeric_limits<std::uint64_t>::max(), 8, "huge");  // no overflow
    } catch (const d::TruncatedInput& e) {
      field = e.field();
    }
    expect_true(field == "huge");
  }
}
