// Engine unit tests: the split rules of boosted trees against hand-computed
// values (leaf weights and gains with and without L1/L2, the best threshold
// of a histogram, ties, negative gains).
#include <testthat.h>

#include <cmath>

#include <cppestimators/model/trees/split.h>

using namespace cppestimators::trees;

namespace {
bool near(double a, double b) { return std::fabs(a - b) < 1e-9; }
}  // namespace

context("Boosted tree splits") {
  test_that("a leaf's weight is -g / (h + l2) and its gain g^2 / (h + l2)") {
    Regularization r;
    LeafFit f = leaf_fit(-4.0, 2.0, r);
    expect_true(near(f.weight, 2.0));
    expect_true(near(f.gain, 8.0));
    r.l2 = 2.0;
    f = leaf_fit(-4.0, 2.0, r);
    expect_true(near(f.weight, 1.0));
    expect_true(near(f.gain, 4.0));
  }

  test_that("l1 shrinks the gradient towards 0 and zeroes small ones; an empty leaf is 0") {
    Regularization r;
    r.l1 = 1.0;
    LeafFit f = leaf_fit(-4.0, 2.0, r);  // g' = -3
    expect_true(near(f.weight, 1.5));
    expect_true(near(f.gain, 4.5));
    f = leaf_fit(4.0, 2.0, r);  // g' = 3
    expect_true(near(f.weight, -1.5));
    f = leaf_fit(0.5, 2.0, r);
    expect_true(f.weight == 0.0);
    expect_true(f.gain == 0.0);
    Regularization none;
    f = leaf_fit(3.0, 0.0, none);
    expect_true(f.weight == 0.0);
    expect_true(f.gain == 0.0);
  }

  test_that("the best threshold maximizes left + right gain; split gain subtracts the parent's") {
    // buckets: g = (-2, 1, 3), h = (1, 1, 1); node G = 2, H = 3, parent gain 4/3
    // t = 0: 4 + 8 = 12; t = 1: 0.5 + 9 = 9.5; t = 2: 4/3 + 0
    const double g[] = {-2.0, 1.0, 3.0}, h[] = {1.0, 1.0, 1.0};
    Regularization r;
    Split best;
    offer_feature(0, g, h, 3, 2.0, 3.0, r, best);
    expect_true(best.feature == 0);
    expect_true(best.bucket == 0);
    expect_true(near(best.gain, 12.0 - 4.0 / 3.0));
    expect_true(near(best.left_weight, 2.0));
    expect_true(near(best.right_weight, -2.0));
  }

  test_that("a negative-gain split is still chosen; ties keep the lower bucket and feature") {
    const double g[] = {-2.0, 1.0, 3.0}, h[] = {1.0, 1.0, 1.0};
    Regularization r;
    r.tree_complexity = 20.0;
    Split best;
    offer_feature(0, g, h, 3, 2.0, 3.0, r, best);
    expect_true(best.feature == 0);
    expect_true(best.gain < 0.0);
    expect_true(near(best.gain, 12.0 - 4.0 / 3.0 - 20.0));
    // the same histogram as feature 1 ties and does not replace feature 0
    offer_feature(1, g, h, 3, 2.0, 3.0, r, best);
    expect_true(best.feature == 0);
    // equal totals at two thresholds: the lower one wins
    const double g2[] = {-1.0, 2.0, -1.0}, h2[] = {1.0, 1.0, 1.0};
    Split tie;
    offer_feature(0, g2, h2, 3, 0.0, 3.0, Regularization(), tie);
    expect_true(tie.bucket == 0);
    // a higher gain on a later feature wins
    const double g3[] = {-5.0, 7.0, 0.0};
    offer_feature(2, g3, h, 3, 2.0, 3.0, Regularization(), best);
    expect_true(best.feature == 2);
  }
}
