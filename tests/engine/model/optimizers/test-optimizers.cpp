// Engine unit tests: each optimizer's first update against hand-computed
// values (TF 1.x rules and defaults), from w = 0.5 with gradient 0.3.
#include <testthat.h>

#include <cmath>
#include <vector>

#include <cppestimators/model/optimizers/optimizer.h>
#include <cppestimators/model/optimizers/registry.h>

#include "test-helpers.h"

using namespace cppestimators;

namespace {
// Runs one update of a single parameter; returns the new value and the slots.
float first_update(const std::string& name, float lr, float w0, float g,
                   std::vector<float>* slots_out = nullptr) {
  auto opt = make_optimizer(testing::optimizer(name, lr));
  std::vector<std::vector<float>> slots;
  for (float v : opt->slot_initial_values()) slots.push_back({v});
  float* ptrs[4] = {nullptr, nullptr, nullptr, nullptr};
  for (std::size_t i = 0; i < slots.size(); ++i) ptrs[i] = slots[i].data();
  float w = w0;
  opt->apply_dense(&w, &g, ptrs, 1);
  opt->finish_step();
  if (slots_out)
    for (auto& s : slots) slots_out->push_back(s[0]);
  return w;
}
bool near(double a, double b, double tol = 1e-6) { return std::fabs(a - b) <= tol; }
}  // namespace

context("Optimizers") {
  test_that("a dense update of many parameters is the single-parameter update of each") {
    // 11 values: the vectorized body and its scalar remainder
    for (const char* name : {"SGD", "Adagrad", "Adam", "RMSProp", "Ftrl"}) {
      auto opt = make_optimizer(testing::optimizer(name, 0.1f));
      std::vector<float> w(11), g(11);
      for (int i = 0; i < 11; ++i) {
        w[i] = 0.5f - 0.07f * i;
        g[i] = 0.3f * (i % 3 == 0 ? -1.0f : 1.0f) + 0.01f * i;
      }
      std::vector<std::vector<float>> slots;
      for (float v : opt->slot_initial_values()) slots.emplace_back(11, v);
      float* ptrs[4] = {nullptr, nullptr, nullptr, nullptr};
      for (std::size_t i = 0; i < slots.size(); ++i) ptrs[i] = slots[i].data();
      opt->apply_dense(w.data(), g.data(), ptrs, 11);
      opt->finish_step();
      for (int i = 0; i < 11; ++i)
        expect_true(w[i] == first_update(name, 0.1f, 0.5f - 0.07f * i, g[i]));
    }
  }

  test_that("SGD: w - lr * g") { expect_true(near(first_update("SGD", 0.1f, 0.5f, 0.3f), 0.47)); }

  test_that("Adagrad: accumulator starts at 0.1, no epsilon") {
    std::vector<float> slots;
    expect_true(near(first_update("Adagrad", 0.1f, 0.5f, 0.3f, &slots), 0.4311752798));
    expect_true(near(slots[0], 0.19));
  }

  test_that("Ftrl from zero: w = -g * lr / sqrt(0.1 + g^2)") {
    std::vector<float> slots;
    expect_true(near(first_update("Ftrl", 0.2f, 0.0f, 0.3f, &slots), -0.1376494403));
    expect_true(near(slots[0], 0.19));  // accum
    expect_true(near(slots[1], 0.3));   // linear
  }

  test_that("Ftrl from a non-zero weight subtracts the sigma term") {
    std::vector<float> slots;
    expect_true(near(first_update("Ftrl", 0.2f, 0.5f, 0.3f, &slots), -0.0003875654, 1e-6));
    expect_true(near(slots[1], 0.0008446792, 1e-6));
  }

  test_that("Ftrl started from non-zero weights keeps them until gradients move them") {
    Spec spec = testing::optimizer("Ftrl", 0.2);
    spec.nums["l1_regularization_strength"] = {0.05};
    auto opt = make_optimizer(spec);
    std::vector<float> accum{0.1f, 0.1f}, linear{0.0f, 0.0f};
    float* slots[4] = {accum.data(), linear.data(), nullptr, nullptr};
    std::vector<float> w{0.5f, -2.0f};
    const std::vector<float> zero{0.0f, 0.0f};
    opt->start_from(w.data(), slots, 2);
    opt->apply_dense(w.data(), zero.data(), slots, 2);
    expect_true(near(w[0], 0.5, 1e-6));
    expect_true(near(w[1], -2.0, 1e-6));
    // unregularized (a bias), the same
    opt->set_regularized(false);
    std::vector<float> lin2{0.0f, 0.0f}, acc2{0.1f, 0.1f};
    float* slots2[4] = {acc2.data(), lin2.data(), nullptr, nullptr};
    std::vector<float> b{0.5f, -2.0f};
    opt->start_from(b.data(), slots2, 2);
    opt->apply_dense(b.data(), zero.data(), slots2, 2);
    expect_true(near(b[0], 0.5, 1e-6));
    expect_true(near(b[1], -2.0, 1e-6));
  }

  test_that("Ftrl with penalty_per_step: the L1 threshold grows with the global step") {
    Spec spec = testing::optimizer("Ftrl", 0.2);
    spec.nums["l1_regularization_strength"] = {0.1};
    spec.nums["penalty_per_step"] = {1.0};
    auto opt = make_optimizer(spec);
    const float g = 0.3f;
    // step 0: |linear| = 0.3 > 0.1, a weight
    std::vector<float> accum{0.1f}, linear{0.0f};
    float* slots[4] = {accum.data(), linear.data(), nullptr, nullptr};
    float w = 0.0f;
    opt->set_step(0, 1.0);
    opt->apply_dense(&w, &g, slots, 1);
    expect_true(w < 0.0f);
    // the same update at global step 4: the threshold is 5 x 0.1 = 0.5 > 0.3, zero
    std::vector<float> accum2{0.1f}, linear2{0.0f};
    float* slots2[4] = {accum2.data(), linear2.data(), nullptr, nullptr};
    float w2 = 0.0f;
    opt->set_step(4, 1.0);
    opt->apply_dense(&w2, &g, slots2, 1);
    expect_true(w2 == 0.0f);
  }

  test_that("Adam: bias-corrected step with epsilon hat") {
    std::vector<float> slots;
    expect_true(near(first_update("Adam", 0.1f, 0.5f, 0.3f, &slots), 0.4000001054, 1e-6));
    expect_true(near(slots[0], 0.03));
    expect_true(near(slots[1], 0.00009, 1e-8));
  }

  test_that("RMSProp: mean square starts at one") {
    std::vector<float> slots;
    expect_true(near(first_update("RMSProp", 0.1f, 0.5f, 0.3f, &slots), 0.4685341612));
    expect_true(near(slots[0], 0.909));
    expect_true(near(slots[1], 0.0314658388));
  }

  test_that("Momentum: accum = m * accum + g, w -= lr * accum (Nesterov: lr * (g + m * accum))") {
    Spec spec = testing::optimizer("Momentum", 0.1);
    spec.nums["momentum"] = {0.9};
    for (bool nesterov : {false, true}) {
      spec.nums["use_nesterov"] = {nesterov ? 1.0 : 0.0};
      auto opt = make_optimizer(spec);
      expect_true(opt->slot_names() == std::vector<std::string>{"Momentum"});
      std::vector<float> acc = opt->slot_initial_values();
      expect_true(acc[0] == 0.0f);
      float* slots[4] = {acc.data(), nullptr, nullptr, nullptr};
      float w = 0.5f;
      const float g1 = 0.3f, g2 = -0.2f;
      opt->apply_dense(&w, &g1, slots, 1);
      opt->apply_dense(&w, &g2, slots, 1);
      // by hand: accum 0.3, then 0.9 * 0.3 - 0.2 = 0.07
      const double want = nesterov ? 0.5 - 0.1 * (0.3 + 0.9 * 0.3) - 0.1 * (-0.2 + 0.9 * 0.07)
                                   : 0.5 - 0.1 * 0.3 - 0.1 * 0.07;
      expect_true(near(acc[0], 0.07));
      expect_true(near(w, want));
    }
  }

  test_that("unknown names and bad learning rates are rejected") {
    expect_error_as(make_optimizer(testing::optimizer("Nadam", 0.1)), std::invalid_argument);
    expect_error_as(make_optimizer(testing::optimizer("SGD", 0.0)), std::invalid_argument);
  }
}
