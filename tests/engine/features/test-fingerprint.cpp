// Engine unit tests: string fingerprints against TensorFlow's values.
// Fingerprint64 expectations beyond the TF check vectors were produced with an
// independent FarmHash build (util::Fingerprint64 of Debian's libfarmhash);
// fingerprint_cat64 expectations were computed by hand in Python with 64-bit
// masking.
#include <testthat.h>

#include <cstdint>
#include <string>
#include <vector>

#include <cppestimators/features/fingerprint.h>

using namespace cppestimators;

namespace {
// "abcd...zabc..." of the given length.
std::string alphabet(std::size_t len) {
  std::string s;
  for (std::size_t i = 0; i < len; ++i) s += static_cast<char>('a' + i % 26);
  return s;
}
}  // namespace

context("Fingerprint64") {
  test_that("TensorFlow check vectors") {
    expect_true(fingerprint64("") == 11160318154034397263ULL);
    expect_true(fingerprint64("a") == 12917804110809363939ULL);
    expect_true(fingerprint64("b") == 11795596070477164822ULL);
    expect_true(fingerprint64("c") == 11430444447143000872ULL);
    expect_true(fingerprint64("d") == 4470636696479570465ULL);
    expect_true(fingerprint64("hello") == 13009744463427800296ULL);
    expect_true(fingerprint64("hello world") == 6381520714923946011ULL);
    expect_true(fingerprint64("The quick brown fox jumps over the lazy dog") ==
                12375473906752639284ULL);
  }

  test_that("pointer and string_view overloads agree") {
    const std::string s = "hello world";
    expect_true(fingerprint64(s.data(), s.size()) == fingerprint64(std::string_view(s)));
  }

  test_that("every length class") {
    struct Case {
      std::size_t len;
      std::uint64_t fp;
    };
    const std::vector<Case> cases = {{2, 12289600257749001502ULL},  {3, 2640714258260161385ULL},
                                     {4, 1897425971756105985ULL},   {7, 4341691227789030229ULL},
                                     {8, 18368443631171807497ULL},  {16, 6080716761534418621ULL},
                                     {17, 11394395984755135400ULL}, {20, 7349542659848948094ULL},
                                     {32, 18417110746069939610ULL}, {33, 2004761416539416594ULL},
                                     {50, 6969223974270876682ULL},  {64, 11261912070464707578ULL},
                                     {65, 2608948203458330154ULL},  {100, 15335908545242240226ULL},
                                     {1000, 4310402935697217687ULL}};
    for (const auto& c : cases) expect_true(fingerprint64(alphabet(c.len)) == c.fp);
  }

  test_that("bytes above 0x7f are read unsigned") {
    expect_true(fingerprint64("\xff") == 2425282684166416103ULL);
    expect_true(fingerprint64("\xe9\x80") == 5147122123197957905ULL);
    expect_true(fingerprint64("\xc3\xa9t\xc3\xa9") == 13532553620379920534ULL);
  }

  test_that("unaligned input gives the same fingerprint") {
    const std::string s = alphabet(1000);
    std::string shifted = "x" + s;
    expect_true(fingerprint64(shifted.data() + 1, s.size()) == 4310402935697217687ULL);
  }
}

context("Fingerprint helpers") {
  test_that("string_to_hash_bucket_fast with 10 buckets") {
    expect_true(hash_bucket("a", 1, 10) == 9);
    expect_true(hash_bucket("b", 1, 10) == 2);
    expect_true(hash_bucket("c", 1, 10) == 2);
    expect_true(hash_bucket("d", 1, 10) == 5);
  }

  test_that("hash_bucket uses an unsigned modulus") {
    // 11160318154034397263 exceeds INT64_MAX; its unsigned remainder is kept.
    expect_true(hash_bucket("", 0, 1000000007) ==
                static_cast<std::int64_t>(11160318154034397263ULL % 1000000007ULL));
  }

  test_that("int64_decimal matches as_string") {
    expect_true(int64_decimal(-12) == "-12");
    expect_true(int64_decimal(0) == "0");
    expect_true(int64_decimal(42) == "42");
    expect_true(int64_decimal(INT64_MIN) == "-9223372036854775808");
    expect_true(fingerprint64(int64_decimal(-12)) == 13136030487991313569ULL);
    expect_true(fingerprint64(int64_decimal(42)) == 623910487284905736ULL);
  }

  test_that("fingerprint_cat64 (sparse_cross combiner)") {
    expect_true(fingerprint_cat64(1, 2) == 14454907135238785252ULL);
    expect_true(fingerprint_cat64(0, 0) == 6351753276682545529ULL);
    const std::uint64_t a = fingerprint64("a"), b = fingerprint64("b");
    expect_true(fingerprint_cat64(a, b) == 9083183682105049815ULL);
    expect_true(fingerprint_cat64(b, a) == 7437816817182886770ULL);
  }
}
