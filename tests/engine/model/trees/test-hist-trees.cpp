// Engine unit tests of the histogram growths' grower (trees/hist_grower.h):
// the trees grown with histograms by subtraction and splits of small nodes
// from their sorted rows equal the trees grown from every node's own
// histogram; a category-set split against every partition.
#include <testthat.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include <cppestimators/features/feature_set.h>
#include <cppestimators/model/parameter.h>
#include <cppestimators/model/trees/hist_bins.h>
#include <cppestimators/model/trees/hist_grower.h>

#include "test-helpers.h"

using namespace cppestimators;
using namespace cppestimators::trees;
using cppestimators::testing::numeric;

namespace {

// Three numeric features of 16 bins (bin 0: missing) over n rows, random
// bins and gradients that depend on them.
struct Table {
  FeatureSet columns{{numeric("a"), numeric("b"), numeric("c")}};
  HistFeatures feats;
  Parameter cuts = Parameter::single("cuts", {3, 14});
  Parameter counts = Parameter::single("counts", {3});
  BinMatrix x;
  std::vector<GradPair> gh;
  std::vector<int> rows;

  explicit Table(int n) {
    feats.build(
        columns, [](const std::string&) { return true; }, 16);
    feats.attach(cuts, counts);
    for (int j = 0; j < 3; ++j) {
      counts.value[static_cast<std::size_t>(j)] = 14;
      for (int k = 0; k < 14; ++k) cuts.value[static_cast<std::size_t>(j * 14 + k)] = k + 0.5f;
    }
    x.resize(n, 3, 0);
    std::mt19937 rng(7);
    std::uniform_int_distribution<int> bin(0, 15);
    std::uniform_real_distribution<float> u(0.5f, 1.5f);
    gh.resize(static_cast<std::size_t>(n));
    for (int r = 0; r < n; ++r) {
      int b[3];
      for (int j = 0; j < 3; ++j) {
        b[j] = bin(rng);
        x.narrow[static_cast<std::size_t>(r) * 3 + static_cast<std::size_t>(j)] =
            static_cast<std::uint8_t>(b[j]);
        x.narrow_cols[static_cast<std::size_t>(j) * static_cast<std::size_t>(n) +
                      static_cast<std::size_t>(r)] = static_cast<std::uint8_t>(b[j]);
      }
      const float signal = (b[0] > 7 ? 1.0f : -1.0f) + 0.3f * static_cast<float>(b[1] % 4) +
                           (b[2] == 0 ? 2.0f : 0.0f);  // a missing c matters
      gh[static_cast<std::size_t>(r)] = {signal + u(rng) - 1.0f, u(rng)};
      rows.push_back(r);
    }
  }
};

bool same_structure(const GrownTree& a, const GrownTree& b) {
  if (a.nodes.size() != b.nodes.size()) return false;
  for (std::size_t i = 0; i < a.nodes.size(); ++i) {
    const GrownNode &p = a.nodes[i], &q = b.nodes[i];
    if (p.feature != q.feature || p.left != q.left || p.bin != q.bin ||
        p.default_left != q.default_left)
      return false;
  }
  return true;
}

double worst_relative(const GrownTree& a, const GrownTree& b) {
  double worst = 0.0;
  for (std::size_t i = 0; i < a.nodes.size(); ++i) {
    const double pairs[3][2] = {{a.nodes[i].value, b.nodes[i].value},
                                {a.nodes[i].gain, b.nodes[i].gain},
                                {a.nodes[i].cover, b.nodes[i].cover}};
    for (const auto& p : pairs) {
      const double m = std::max(std::fabs(p[0]), std::fabs(p[1]));
      if (m > 0) worst = std::max(worst, std::fabs(p[0] - p[1]) / m);
    }
  }
  return worst;
}

// Deep trees of either growth: depth 10, or 200 leaves without a depth limit.
GrowParams deep(bool lossguide) {
  GrowParams p;
  p.lossguide = lossguide;
  p.max_depth = lossguide ? 0 : 10;
  p.max_leaves = lossguide ? 200 : 0;
  p.learning_rate = 0.3;
  return p;
}

// One tree over every row of `t`, on `threads` threads.
void grow_all(Grower& g, const Table& t, const GrowParams& p, int threads, GrownTree& out) {
  g.grow(t.x, t.feats, t.gh.data(), t.rows.data(), static_cast<int>(t.rows.size()), p, nullptr,
         threads, out);
}

// The value of the leaf a row of bins (one per feature) reaches.
double value_at(const GrownTree& t, const int* bins) {
  int node = 0;
  while (t.nodes[static_cast<std::size_t>(node)].feature >= 0) {
    const GrownNode& n = t.nodes[static_cast<std::size_t>(node)];
    const int b = bins[n.feature];
    node = n.left + ((b == 0 ? n.default_left : b <= n.bin) ? 0 : 1);
  }
  return t.nodes[static_cast<std::size_t>(node)].value;
}

// Over every bin of features b and c, whether the tree's value moves with
// feature a's bins 1..15 in `direction` (1: never falls, -1: never rises).
bool monotone_in_a(const GrownTree& t, int direction) {
  for (int b = 0; b < 16; ++b)
    for (int c = 0; c < 16; ++c) {
      int row[3] = {1, b, c};
      double before = value_at(t, row);
      for (int a = 2; a < 16; ++a) {
        row[0] = a;
        const double v = value_at(t, row);
        if (direction * (v - before) < 0.0) return false;
        before = v;
      }
    }
  return true;
}

// Every root-to-leaf path's features (a bit each), from node `at`.
void path_features(const GrownTree& t, int at, unsigned used, std::vector<unsigned>& out) {
  const GrownNode& n = t.nodes[static_cast<std::size_t>(at)];
  if (n.feature < 0) {
    out.push_back(used);
    return;
  }
  used |= 1u << n.feature;
  path_features(t, n.left, used, out);
  path_features(t, n.left + 1, used, out);
}

}  // namespace

context("Histogram growths") {
  test_that("a monotone constraint makes every tree monotone in its feature, of either growth") {
    Table t(20000);  // the signal falls with feature a (its gradients rise)
    for (bool lossguide : {false, true}) {
      GrowParams p = deep(lossguide);
      Grower g;
      GrownTree free_tree, up, down;
      grow_all(g, t, p, 2, free_tree);
      expect_false(monotone_in_a(free_tree, 1));  // (the noise breaks the order unconstrained)
      expect_false(monotone_in_a(free_tree, -1));
      const signed char rising[3] = {1, 0, 0}, falling[3] = {-1, 0, 0};
      p.monotone = rising;
      grow_all(g, t, p, 2, up);
      expect_true(monotone_in_a(up, 1));
      p.monotone = falling;
      grow_all(g, t, p, 2, down);
      expect_true(monotone_in_a(down, -1));
      // the falling constraint agrees with the data: it still splits on a
      bool splits_a = false;
      for (const GrownNode& n : down.nodes) splits_a = splits_a || n.feature == 0;
      expect_true(splits_a);
      expect_true(down.nodes.size() > 50);
    }
  }

  test_that("interaction constraints keep every path within one set") {
    Table t(20000);
    for (bool lossguide : {false, true}) {
      GrowParams p = deep(lossguide);
      Grower g;
      GrownTree free_tree, tree;
      grow_all(g, t, p, 2, free_tree);
      std::vector<unsigned> paths;
      path_features(free_tree, 0, 0u, paths);
      bool mixed = false;  // unconstrained, some path uses a or b with c
      for (unsigned u : paths) mixed = mixed || ((u & 3u) != 0 && (u & 4u) != 0);
      expect_true(mixed);
      // sets {a, b} and {c}: one word of bits per feature
      const std::uint64_t sets[3] = {1u, 1u, 2u};
      p.feature_sets = sets;
      p.set_words = 1;
      grow_all(g, t, p, 2, tree);
      paths.clear();
      path_features(tree, 0, 0u, paths);
      bool within = true, both_sets = false;
      for (unsigned u : paths) within = within && !((u & 3u) != 0 && (u & 4u) != 0);
      for (unsigned u : paths) both_sets = both_sets || (u & 3u) == 3u;
      expect_true(within);
      expect_true(both_sets);  // a and b do interact
      expect_true(paths.size() > 20u);
    }
  }

  test_that("subtraction and small nodes' sorted rows grow the trees of direct histograms") {
    Table t(60000);  // above the grower's parallel threshold (32,768 rows)
    for (bool lossguide : {false, true}) {
      const GrowParams p = deep(lossguide);
      GrowParams direct = p;
      direct.direct_histograms = true;
      Grower fast, slow;
      GrownTree a, b;
      grow_all(fast, t, p, 2, a);
      grow_all(slow, t, direct, 2, b);
      expect_true(a.nodes.size() > 50);
      expect_true(same_structure(a, b));
      // the accumulators' rounding: sums of 60,000 values in double
      expect_true(worst_relative(a, b) < 1e-9);
      // every row reached a leaf
      const std::vector<int>& leaf = fast.leaf_rows();
      bool all = true;
      for (int r : t.rows)
        all = all && leaf[static_cast<std::size_t>(r)] >= 0 &&
              a.nodes[static_cast<std::size_t>(leaf[static_cast<std::size_t>(r)])].feature < 0;
      expect_true(all);
    }
  }

  test_that(
      "a tree does not depend on the threads (a depth's histograms built at once or in turn)") {
    Table t(60000);
    // gradients over 20 binary orders of magnitude: their sums in double
    // are rounded, so they depend on the order of the additions
    std::mt19937 rng(11);
    std::uniform_real_distribution<float> scale(0.0f, 20.0f);
    for (GradPair& p : t.gh) p.g *= std::exp2(-scale(rng));
    for (bool lossguide : {false, true}) {
      Grower one, two;
      GrownTree a, b;
      grow_all(one, t, deep(lossguide), 1, a);
      grow_all(two, t, deep(lossguide), 2, b);
      expect_true(a.nodes.size() > 50);
      expect_true(same_structure(a, b));
      expect_true(worst_relative(a, b) == 0.0);
      expect_true(one.leaf_rows() == two.leaf_rows());
    }
  }

  test_that("the root splits at the largest contrast and sends missing values to their side") {
    Table t(5000);
    GrowParams p;
    p.max_depth = 1;
    p.learning_rate = 1.0;
    Grower g;
    GrownTree tree;
    g.grow(t.x, t.feats, t.gh.data(), t.rows.data(), 5000, p, nullptr, 1, tree);
    // the gradients' largest contrast is feature a between bins 7 and 8;
    // its missing rows (bin 0) have the signal of bins 1..7, so they go left
    expect_true(tree.nodes.size() == 3u);
    expect_true(tree.nodes[0].feature == 0);
    expect_true(tree.nodes[0].bin == 7);
    expect_true(tree.nodes[0].default_left);
  }
}
