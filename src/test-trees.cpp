// Engine unit tests: the split rules of boosted trees against hand-computed
// values (leaf weights and gains with and without L1/L2, the best threshold
// of a histogram, ties, negative gains).
#include <testthat.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include <cppestimators/model/trees/quantiles.h>
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

  test_that(
      "bucket_of() counts the boundaries <= x, as upper_bound does, duplicates and ends included") {
    std::mt19937 rng(7);
    int wrong = 0;
    for (int count = 0; count <= 300; count += 7) {
      std::vector<float> b(static_cast<std::size_t>(count));
      for (float& v : b) v = static_cast<float>(rng() % 50) / 4.0f;  // duplicates on purpose
      std::sort(b.begin(), b.end());
      for (int k = -4; k <= 54; ++k) {
        const float x = static_cast<float>(k) / 4.0f + (k % 3 == 0 ? 0.0f : 0.1f);
        const int want = static_cast<int>(std::upper_bound(b.begin(), b.end(), x) - b.begin());
        if (bucket_of(b.data(), count, x) != want) ++wrong;
      }
    }
    expect_true(wrong == 0);
  }

  test_that("empty buckets skipped in the threshold search change nothing") {
    // the search without the skip, for comparison
    const auto reference = [](const std::vector<double>& g, const std::vector<double>& h, double G,
                              double H, const Regularization& r, Split& best) {
      double gl = 0.0, hl = 0.0, top = -std::numeric_limits<double>::infinity();
      int at = -1;
      LeafFit tl, tr;
      for (std::size_t b = 0; b < g.size(); ++b) {
        gl += g[b];
        hl += h[b];
        const LeafFit l = leaf_fit(gl, hl, r), rr = leaf_fit(G - gl, H - hl, r);
        if (at < 0 || l.gain + rr.gain > top + 1e-15) {
          top = l.gain + rr.gain;
          at = static_cast<int>(b);
          tl = l;
          tr = rr;
        }
      }
      best.feature = 0;
      best.bucket = at;
      best.gain = top - leaf_fit(G, H, r).gain - r.tree_complexity;
      best.left_weight = tl.weight;
      best.right_weight = tr.weight;
    };
    std::mt19937 rng(11);
    int differ = 0;
    for (int trial = 0; trial < 200; ++trial) {
      const int buckets = 1 + static_cast<int>(rng() % 40);
      std::vector<double> g(static_cast<std::size_t>(buckets), 0.0),
          h(static_cast<std::size_t>(buckets), 0.0);
      double G = 0.0, H = 0.0;
      for (int b = 0; b < buckets; ++b) {
        if (rng() % 3 == 0) continue;  // an empty bucket, the first ones included
        g[static_cast<std::size_t>(b)] = (static_cast<double>(rng() % 200) - 100.0) / 16.0;
        h[static_cast<std::size_t>(b)] = 1.0 + static_cast<double>(rng() % 8);
        G += g[static_cast<std::size_t>(b)];
        H += h[static_cast<std::size_t>(b)];
      }
      Regularization r;
      r.l1 = trial % 2 ? 0.5 : 0.0;
      r.l2 = trial % 3 ? 1.0 : 0.0;
      Split want, got;
      reference(g, h, G, H, r, want);
      offer_feature(0, g.data(), h.data(), buckets, G, H, r, got);
      if (got.bucket != want.bucket || got.gain != want.gain ||
          got.left_weight != want.left_weight || got.right_weight != want.right_weight)
        ++differ;
    }
    expect_true(differ == 0);
  }
}
