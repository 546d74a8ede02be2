// Engine unit tests: the split rules of boosted trees against hand-computed
// values (leaf weights and gains with and without L1/L2, the best threshold
// of a histogram, ties, negative gains), TF's bucket convention and its
// quantile sketch.
#include <testthat.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include <cppestimators/model/trees/quantile_sketch.h>
#include <cppestimators/model/trees/quantiles.h>
#include <cppestimators/model/trees/split.h>

using namespace cppestimators::trees;

namespace {
bool near(double a, double b) { return std::fabs(a - b) < 1e-5; }
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
    const float gh[] = {-2.0f, 1.0f, 1.0f, 1.0f, 3.0f, 1.0f};
    Regularization r;
    Split best;
    offer_feature(0, gh, 1.0f, 3, r, best);
    expect_true(best.feature == 0);
    expect_true(best.bucket == 0);
    expect_true(near(best.gain, 12.0 - 4.0 / 3.0));
    expect_true(near(best.left_weight, 2.0));
    expect_true(near(best.right_weight, -2.0));
  }

  test_that("min_child_weight bounds the hessian sum of each side (xgboost's rule)") {
    // buckets: g = (-2, 1, 3, 1), h = 1 each; node G = 3, H = 4, parent gain 9/4.
    // Without a bound t = 0 wins (4 + 25/3); with 1.5 only t = 1 (two rows
    // a side) is allowed: 1/2 + 16/2
    const float gh[] = {-2.0f, 1.0f, 1.0f, 1.0f, 3.0f, 1.0f, 1.0f, 1.0f};
    Split free;
    offer_feature(0, gh, 1.0f, 4, Regularization(), free);
    expect_true(free.bucket == 0);
    Regularization r;
    r.min_child_weight = 1.5f;
    Split best;
    offer_feature(0, gh, 1.0f, 4, r, best);
    expect_true(best.feature == 0);
    expect_true(best.bucket == 1);
    expect_true(near(best.gain, 8.5 - 9.0 / 4.0));
    // no threshold leaves 2.5 on each side: no split offered
    r.min_child_weight = 2.5f;
    Split none;
    offer_feature(0, gh, 1.0f, 4, r, none);
    expect_true(none.feature == -1);
  }

  test_that("a negative-gain split is still chosen; ties keep the lower bucket and feature") {
    const float gh[] = {-2.0f, 1.0f, 1.0f, 1.0f, 3.0f, 1.0f};
    Regularization r;
    r.tree_complexity = 20.0f;
    Split best;
    offer_feature(0, gh, 1.0f, 3, r, best);
    expect_true(best.feature == 0);
    expect_true(best.gain < 0.0);
    expect_true(near(best.gain, 12.0 - 4.0 / 3.0 - 20.0));
    // the same histogram as feature 1 ties and does not replace feature 0
    offer_feature(1, gh, 1.0f, 3, r, best);
    expect_true(best.feature == 0);
    // equal totals at two thresholds: the lower one wins
    const float gh2[] = {-1.0f, 1.0f, 2.0f, 1.0f, -1.0f, 1.0f};
    Split tie;
    offer_feature(0, gh2, 1.0f, 3, Regularization(), tie);
    expect_true(tie.bucket == 0);
    // a higher gain on a later feature wins
    const float gh3[] = {-5.0f, 1.0f, 7.0f, 1.0f, 0.0f, 1.0f};
    offer_feature(2, gh3, 1.0f, 3, Regularization(), best);
    expect_true(best.feature == 2);
  }

  test_that(
      "bucket_of() is lower_bound's index, clamped to the last boundary's bucket (TF's "
      "BoostedTreesBucketize)") {
    std::mt19937 rng(7);
    int wrong = 0;
    for (int count = 0; count <= 300; count += 7) {
      std::vector<float> b(static_cast<std::size_t>(count));
      for (float& v : b) v = static_cast<float>(rng() % 50) / 4.0f;  // duplicates on purpose
      std::sort(b.begin(), b.end());
      for (int k = -4; k <= 54; ++k) {
        const float x = static_cast<float>(k) / 4.0f + (k % 3 == 0 ? 0.0f : 0.1f);
        int want = static_cast<int>(std::lower_bound(b.begin(), b.end(), x) - b.begin());
        if (count > 0 && want == count) want = count - 1;
        if (count == 0) want = 0;
        if (bucket_of(b.data(), count, x) != want) ++wrong;
      }
    }
    expect_true(wrong == 0);
  }

  test_that("empty buckets skipped in the threshold search change nothing") {
    // TF's search without the skip, in float, for comparison
    const auto reference = [](const std::vector<float>& gh, int buckets, const Regularization& r,
                              Split& best) {
      std::vector<float> cg, ch;
      float G = 0.0f, H = 0.0f;
      for (int b = 0; b < buckets; ++b) {
        G += gh[static_cast<std::size_t>(2 * b)];
        H += gh[static_cast<std::size_t>(2 * b + 1)];
        cg.push_back(G);
        ch.push_back(H);
      }
      float top = std::numeric_limits<float>::lowest();
      int at = 0;
      LeafFit tl, tr;
      for (int b = 0; b < buckets; ++b) {
        const LeafFit l = leaf_fit(cg[b], ch[b], r), rr = leaf_fit(G - cg[b], H - ch[b], r);
        if (gain_is_larger(l.gain + rr.gain, top)) {
          top = l.gain + rr.gain;
          at = b;
          tl = l;
          tr = rr;
        }
      }
      best.feature = 0;
      best.bucket = at;
      best.gain = (top - leaf_fit(G, H, r).gain) - r.tree_complexity;
      best.left_weight = tl.weight;
      best.right_weight = tr.weight;
    };
    std::mt19937 rng(11);
    int differ = 0;
    for (int trial = 0; trial < 200; ++trial) {
      const int buckets = 1 + static_cast<int>(rng() % 40);
      std::vector<float> gh(static_cast<std::size_t>(2 * buckets), 0.0f);
      for (int b = 0; b < buckets; ++b) {
        if (rng() % 3 == 0) continue;  // an empty bucket, the first ones included
        gh[static_cast<std::size_t>(2 * b)] = (static_cast<float>(rng() % 200) - 100.0f) / 16.0f;
        gh[static_cast<std::size_t>(2 * b + 1)] = 1.0f + static_cast<float>(rng() % 8);
      }
      Regularization r;
      r.l1 = trial % 2 ? 0.5f : 0.0f;
      r.l2 = trial % 3 ? 1.0f : 0.0f;
      Split want, got;
      reference(gh, buckets, r, want);
      offer_feature(0, gh.data(), 1.0f, buckets, r, got);
      if (got.bucket != want.bucket || got.gain != want.gain ||
          got.left_weight != want.left_weight || got.right_weight != want.right_weight)
        ++differ;
    }
    expect_true(differ == 0);
  }

  test_that("summaries merge as TF's WeightedQuantilesSummary::Merge documents") {
    // TF's weighted_quantiles_summary.h, Merge(): (1, 3, 0, 3), (4, 2, 3, 5)
    // merged with (3, 1, 0, 1), (4, 1, 1, 2) gives (1, 3, 0, 3), (3, 1, 3, 4), (4, 3, 4, 7)
    QuantileSummary a, b;
    a.entries = {{1, 3, 0, 3}, {4, 2, 3, 5}};
    b.entries = {{3, 1, 0, 1}, {4, 1, 1, 2}};
    a.merge(b);
    const float want[3][4] = {{1, 3, 0, 3}, {3, 1, 3, 4}, {4, 3, 4, 7}};
    expect_true(a.entries.size() == 3);
    for (int k = 0; k < 3 && k < static_cast<int>(a.entries.size()); ++k) {
      const SketchEntry& e = a.entries[static_cast<std::size_t>(k)];
      const bool same = e.value == want[k][0] && e.weight == want[k][1] &&
                        e.min_rank == want[k][2] && e.max_rank == want[k][3];
      expect_true(same);
    }
  }

  test_that("the sketch's boundaries of TF's test features (epsilon 0.33: 3 quantiles)") {
    // boosted_trees_test.py, testTrainAndEvaluateBinaryClassifierWithOnlyFloatColumn:
    // bucket_boundaries [[-2.001, -1.999, 12.5], [-3., 0.4995, 2.], [-100., 20., 102.75]]
    const std::vector<std::vector<float>> features = {{12.5f, 1.0f, -2.001f, -2.0001f, -1.999f},
                                                      {2.0f, -3.0f, 0.5f, 0.0f, 0.4995f},
                                                      {3.0f, 20.0f, 50.0f, -100.0f, 102.75f}};
    const std::vector<std::vector<float>> want = {
        {-2.001f, -1.999f, 12.5f}, {-3.0f, 0.4995f, 2.0f}, {-100.0f, 20.0f, 102.75f}};
    expect_true(quantiles_for(0.33) == 3);
    for (std::size_t f = 0; f < features.size(); ++f) {
      const bool same = sketch_boundaries(features[f], 0.33, quantiles_for(0.33)) == want[f];
      expect_true(same);
    }
  }

  test_that("the sketch keeps at most num_quantiles + 1 boundaries, sorted and distinct") {
    std::mt19937 rng(5);
    bool ok = true;
    for (int trial = 0; trial < 30; ++trial) {
      const int n = 1 + static_cast<int>(rng() % 20000);
      std::vector<float> v(static_cast<std::size_t>(n));
      for (float& x : v)
        x = trial % 3 == 0 ? static_cast<float>(rng() % 37) : static_cast<float>(rng()) / 4e9f;
      const int q = trial % 2 ? 100 : 7;
      const std::vector<float> b = sketch_boundaries(v, 1.0 / q, q);
      if (static_cast<int>(b.size()) > q + 1 || b.empty()) ok = false;
      for (std::size_t k = 1; k < b.size(); ++k)
        if (!(b[k - 1] < b[k])) ok = false;
      if (b.front() != *std::min_element(v.begin(), v.end()) ||
          b.back() != *std::max_element(v.begin(), v.end()))
        ok = false;
    }
    expect_true(ok);
  }
}
