// Engine unit tests: the fused logistic pass of boosted trees
// (math/logistic_step.h) against the separate loss and closed-form kernels.
#include <testthat.h>

#include <cstddef>
#include <cstring>
#include <vector>

#include <cppestimators/math/fast_math.h>
#include <cppestimators/math/logistic_step.h>

using namespace cppestimators;

namespace {

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

}  // namespace

context("Fused logistic step") {
  // 1003 logits from -100 to 100 (the tails of 16, 8 and 4 lanes run too),
  // soft and hard labels, weights
  const int n = 1003;
  std::vector<float> x(n), y(n), w(n);
  for (int i = 0; i < n; ++i) {
    const std::size_t k = static_cast<std::size_t>(i);
    x[k] = -100.0f + 0.2f * static_cast<float>(i) + static_cast<float>(i % 7) * 1e-3f;
    y[k] = static_cast<float>(i % 3) * 0.5f;
    w[k] = 0.5f + static_cast<float>(i % 5) * 0.25f;
  }
  const float inv = 1.0f / static_cast<float>(n);

  for (const bool weighted : {false, true}) {
    test_that(weighted ? "weighted: both widths give the separate kernels' bits"
                       : "unweighted: both widths give the separate kernels' bits") {
      const float* wp = weighted ? w.data() : nullptr;
      std::vector<float> pe_ref(n), g_ref(n), h_ref(n);
      double loss_ref = fast::logistic_loss(x.data(), y.data(), n, pe_ref.data(), nullptr, nullptr);
      if (weighted) {
        loss_ref = 0.0;
        for (std::size_t k = 0; k < static_cast<std::size_t>(n); ++k)
          loss_ref += static_cast<double>(w[k]) * pe_ref[k];
      }
      fast::logistic_closed_form(x.data(), y.data(), wp, n, inv, g_ref.data(), h_ref.data());
      for (const bool wide : {false, true}) {
        std::vector<float> pe(n), g(n), h(n);
        const double loss = fast::logistic_step(wide, x.data(), y.data(), wp, n, inv, pe.data(),
                                                g.data(), h.data());
        expect_true(same_bits(pe, pe_ref));
        expect_true(same_bits(g, g_ref));
        expect_true(same_bits(h, h_ref));
        // the same doubles, summed in another order
        expect_true(std::abs(loss - loss_ref) <= 1e-12 * loss_ref);
      }
    }
  }

  test_that("non-finite and extreme logits: the same values as the separate kernels") {
    const float big = 1e30f;
    std::vector<float> xs = {0.0f, -0.0f, 88.0f,  88.8f,   -88.8f, -87.5f, 90.0f, -90.0f,
                             big,  -big,  1e-30f, -1e-30f, 20.0f,  -20.0f, 3.0f,  -3.0f};
    const int m = static_cast<int>(xs.size());
    std::vector<float> ys(static_cast<std::size_t>(m), 1.0f), pe_ref(xs.size()), g_ref(xs.size()),
        h_ref(xs.size()), pe(xs.size()), g(xs.size()), h(xs.size());
    fast::logistic_loss(xs.data(), ys.data(), m, pe_ref.data(), nullptr, nullptr);
    fast::logistic_closed_form(xs.data(), ys.data(), nullptr, m, 1.0f, g_ref.data(), h_ref.data());
    for (const bool wide : {false, true}) {
      fast::logistic_step(wide, xs.data(), ys.data(), nullptr, m, 1.0f, pe.data(), g.data(),
                          h.data());
      expect_true(same_bits(pe, pe_ref));
      expect_true(same_bits(g, g_ref));
      expect_true(same_bits(h, h_ref));
    }
  }
}
