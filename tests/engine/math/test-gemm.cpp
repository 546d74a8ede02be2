// Engine unit tests: every matrix-product kernel this CPU can run against a
// plain triple loop, for all transpose combinations, with and without
// accumulation, on shapes that end inside a register tile and cross the
// packing blocks.
#include <testthat.h>

#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

#include <cppestimators/data/rng.h>
#include <cppestimators/math/gemm.h>

using namespace cppestimators;

namespace {

// op(A) op(B) (+ C) by definition, in double.
std::vector<double> reference(bool ta, bool tb, int m, int n, int k, const std::vector<float>& a,
                              int lda, const std::vector<float>& b, int ldb,
                              const std::vector<float>& c, int ldc, bool accumulate) {
  std::vector<double> out(static_cast<std::size_t>(m) * n);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double s = accumulate ? c[static_cast<std::size_t>(i) * ldc + j] : 0.0;
      for (int p = 0; p < k; ++p) {
        const float x = ta ? a[static_cast<std::size_t>(p) * lda + i]
                           : a[static_cast<std::size_t>(i) * lda + p];
        const float y = tb ? b[static_cast<std::size_t>(j) * ldb + p]
                           : b[static_cast<std::size_t>(p) * ldb + j];
        s += static_cast<double>(x) * y;
      }
      out[static_cast<std::size_t>(i) * n + j] = s;
    }
  return out;
}

std::vector<float> random_floats(std::size_t n, Rng& rng) {
  std::vector<float> v(n);
  for (float& x : v) x = static_cast<float>(rng.uniform() * 2.0 - 1.0);
  return v;
}

// Largest |kernel - reference| relative to sqrt(k), over every case.
double worst_error(gemm::Kernel kernel) {
  Rng rng(42);
  double worst = 0.0;
  const int shapes[][3] = {{1, 1, 1},     {5, 7, 3},     {13, 33, 17},
                           {256, 10, 64}, {97, 50, 300}, {30, 2100, 9}};
  for (const auto& s : shapes)
    for (int ta = 0; ta < 2; ++ta)
      for (int tb = 0; tb < 2; ++tb)
        for (int acc = 0; acc < 2; ++acc) {
          const int m = s[0], n = s[1], k = s[2];
          const int lda = (ta ? m : k) + 3, ldb = (tb ? k : n) + 1, ldc = n + 2;  // padded rows
          const std::vector<float> a =
              random_floats(static_cast<std::size_t>(ta ? k : m) * lda, rng);
          const std::vector<float> b =
              random_floats(static_cast<std::size_t>(tb ? n : k) * ldb, rng);
          std::vector<float> c = random_floats(static_cast<std::size_t>(m) * ldc, rng);
          const std::vector<float> c0 = c;
          const std::vector<double> want = reference(ta, tb, m, n, k, a, lda, b, ldb, c0, ldc, acc);
          gemm::multiply(kernel, ta, tb, m, n, k, a.data(), lda, b.data(), ldb, c.data(), ldc, acc);
          for (int i = 0; i < m; ++i) {
            for (int j = 0; j < n; ++j) {
              const double err = std::fabs(c[static_cast<std::size_t>(i) * ldc + j] -
                                           want[static_cast<std::size_t>(i) * n + j]);
              worst = std::max(worst, err / std::sqrt(static_cast<double>(k)));
            }
            for (int j = n; j < ldc; ++j)  // the padding of C is never written
              if (c[static_cast<std::size_t>(i) * ldc + j] !=
                  c0[static_cast<std::size_t>(i) * ldc + j])
                worst = 1e9;
          }
        }
  return worst;
}

}  // namespace

context("matrix products") {
  test_that("the portable kernel is always available and matches the definition") {
    expect_true(gemm::available(gemm::Kernel::Portable));
    expect_true(worst_error(gemm::Kernel::Portable) < 1e-5);
  }

  test_that("each wide kernel the CPU supports matches the definition") {
    for (gemm::Kernel kernel : {gemm::Kernel::Avx2, gemm::Kernel::Avx512}) {
      if (!gemm::available(kernel)) continue;
      expect_true(worst_error(kernel) < 1e-5);
    }
  }

  test_that("best_available() is the widest kernel the CPU runs") {
    const gemm::Kernel best = gemm::best_available();
    expect_true(gemm::available(best));
    if (gemm::available(gemm::Kernel::Avx512))
      expect_true(best == gemm::Kernel::Avx512);
    else if (gemm::available(gemm::Kernel::Avx2))
      expect_true(best == gemm::Kernel::Avx2);
    else
      expect_true(best == gemm::Kernel::Portable);
    expect_true(std::string(gemm::name(gemm::Kernel::Avx512)) == "avx512");
    expect_true(std::string(gemm::name(gemm::Kernel::Avx2)) == "avx2");
    expect_true(std::string(gemm::name(gemm::Kernel::Portable)) == "portable");
  }

  test_that("a product of depth zero clears C unless it accumulates") {
    std::vector<float> c{1.0f, 2.0f, 3.0f, 4.0f};
    gemm::multiply(gemm::Kernel::Portable, false, false, 2, 2, 0, nullptr, 1, nullptr, 2, c.data(),
                   2, true);
    expect_true(c[3] == 4.0f);
    gemm::multiply(gemm::best_available(), false, false, 2, 2, 0, nullptr, 1, nullptr, 2, c.data(),
                   2, false);
    expect_true(c[0] == 0.0f);
    expect_true(c[3] == 0.0f);
  }
}
