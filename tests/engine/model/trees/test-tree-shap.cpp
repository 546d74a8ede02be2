// Engine unit tests of TreeSHAP (trees/tree_shap.h): on random trees whose
// splits reuse groups along a path, each group's value equals its Shapley
// value computed by brute force over every subset of the groups (the value
// of a subset by its definition, tree_set_value()), and the values add up
// to the tree's value at the row minus its expected value.
#include <testthat.h>

#include <cmath>
#include <random>
#include <vector>

#include <cppestimators/model/trees/tree_shap.h>

using cppestimators::trees::ShapNode;
using cppestimators::trees::ShapScratch;
using cppestimators::trees::tree_expected_value;
using cppestimators::trees::tree_set_value;
using cppestimators::trees::tree_shap;
using cppestimators::trees::tree_shap_interactions;

namespace {

// A random tree of `depth` levels at most over `groups` groups: children
// stored after their parent (left, left + 1), covers that split the
// parent's, leaves with random values.
std::vector<ShapNode> random_tree(std::mt19937& rng, int depth, int groups) {
  std::uniform_real_distribution<double> unit(0.05, 0.95), value(-2.0, 2.0);
  std::uniform_int_distribution<int> group(0, groups - 1);
  std::vector<ShapNode> nodes(1);
  nodes[0].cover = 100.0;
  std::vector<int> level{0};
  for (int d = 0; d < depth; ++d) {
    std::vector<int> next;
    for (int i : level) {
      if (d > 0 && unit(rng) < 0.2) continue;  // some leaves early
      const int left = static_cast<int>(nodes.size());
      nodes[static_cast<std::size_t>(i)].left = left;
      nodes[static_cast<std::size_t>(i)].group = group(rng);
      const double share = unit(rng), cover = nodes[static_cast<std::size_t>(i)].cover;
      nodes.resize(nodes.size() + 2);
      nodes[static_cast<std::size_t>(left)].cover = cover * share;
      nodes[static_cast<std::size_t>(left) + 1].cover = cover * (1.0 - share);
      next.push_back(left);
      next.push_back(left + 1);
    }
    level = next;
  }
  for (ShapNode& n : nodes)
    if (n.left < 0) n.value = value(rng);
  return nodes;
}

// The tree's value at the row (its walk by goes_left).
double leaf_value(const std::vector<ShapNode>& nodes, const std::vector<unsigned char>& left) {
  int i = 0;
  while (nodes[static_cast<std::size_t>(i)].left >= 0)
    i = nodes[static_cast<std::size_t>(i)].left + (left[static_cast<std::size_t>(i)] ? 0 : 1);
  return nodes[static_cast<std::size_t>(i)].value;
}

// Shapley values by their definition: the weighted sum over every subset S
// without g of (v(S + g) - v(S)) |S|! (M - |S| - 1)! / M!.
std::vector<double> brute_force(const std::vector<ShapNode>& nodes,
                                const std::vector<unsigned char>& left, int groups) {
  std::vector<double> phi(static_cast<std::size_t>(groups), 0.0);
  std::vector<double> factorial(static_cast<std::size_t>(groups) + 1, 1.0);
  for (int i = 1; i <= groups; ++i)
    factorial[static_cast<std::size_t>(i)] = factorial[static_cast<std::size_t>(i) - 1] * i;
  std::vector<unsigned char> in(static_cast<std::size_t>(groups));
  for (int g = 0; g < groups; ++g) {
    for (unsigned mask = 0; mask < (1U << groups); ++mask) {
      if (mask & (1U << g)) continue;
      int size = 0;
      for (int h = 0; h < groups; ++h) {
        in[static_cast<std::size_t>(h)] = (mask >> h) & 1U;
        size += in[static_cast<std::size_t>(h)];
      }
      const double without = tree_set_value(nodes.data(), left.data(), in.data());
      in[static_cast<std::size_t>(g)] = 1;
      const double with = tree_set_value(nodes.data(), left.data(), in.data());
      phi[static_cast<std::size_t>(g)] += (with - without) *
                                          factorial[static_cast<std::size_t>(size)] *
                                          factorial[static_cast<std::size_t>(groups - size - 1)] /
                                          factorial[static_cast<std::size_t>(groups)];
    }
  }
  return phi;
}

// The Shapley interaction index by its definition: for i != j, the sum
// over every S without i and j of |S|! (M - |S| - 2)! / (2 (M - 1)!) times
// v(S + i + j) - v(S + i) - v(S + j) + v(S).
double brute_force_interaction(const std::vector<ShapNode>& nodes,
                               const std::vector<unsigned char>& left, int groups, int i, int j) {
  double total = 0.0;
  std::vector<unsigned char> in(static_cast<std::size_t>(groups));
  auto v = [&](unsigned mask) {
    for (int h = 0; h < groups; ++h) in[static_cast<std::size_t>(h)] = (mask >> h) & 1U;
    return tree_set_value(nodes.data(), left.data(), in.data());
  };
  auto fact = [](int k) {
    double f = 1.0;
    for (int q = 2; q <= k; ++q) f *= q;
    return f;
  };
  for (unsigned mask = 0; mask < (1U << groups); ++mask) {
    if (mask & ((1U << i) | (1U << j))) continue;
    int size = 0;
    for (int h = 0; h < groups; ++h) size += (mask >> h) & 1U;
    const double w = fact(size) * fact(groups - size - 2) / (2.0 * fact(groups - 1));
    total +=
        w * (v(mask | (1U << i) | (1U << j)) - v(mask | (1U << i)) - v(mask | (1U << j)) + v(mask));
  }
  return total;
}

}  // namespace

context("TreeSHAP") {
  test_that(
      "interaction values are the Shapley interaction index, and each row sums to the "
      "contribution") {
    std::mt19937 rng(7);
    std::bernoulli_distribution coin(0.5);
    for (int trial = 0; trial < 60; ++trial) {
      const int groups = 2 + trial % 4, depth = 2 + trial % 4;
      const std::vector<ShapNode> nodes = random_tree(rng, depth, groups);
      std::vector<unsigned char> left(nodes.size());
      for (auto& l : left) l = coin(rng);
      const std::size_t g = static_cast<std::size_t>(groups);
      std::vector<double> out(g * g, 0.0), phi(g, 0.0), work;
      ShapScratch scratch;
      tree_shap_interactions(nodes.data(), left.data(), groups, out.data(), scratch, work);
      tree_shap(nodes.data(), left.data(), phi.data(), scratch);
      for (int i = 0; i < groups; ++i) {
        double row = 0.0;
        for (int j = 0; j < groups; ++j) {
          const double v = out[static_cast<std::size_t>(i) * g + static_cast<std::size_t>(j)];
          row += v;
          if (i == j) continue;
          expect_true(std::fabs(v - brute_force_interaction(nodes, left, groups, i, j)) < 1e-9);
          // symmetric
          expect_true(
              std::fabs(v - out[static_cast<std::size_t>(j) * g + static_cast<std::size_t>(i)]) <
              1e-9);
        }
        expect_true(std::fabs(row - phi[static_cast<std::size_t>(i)]) < 1e-9);
      }
    }
  }

  test_that("TreeSHAP gives every group its Shapley value, by brute force over the subsets") {
    std::mt19937 rng(20261207);
    std::bernoulli_distribution coin(0.5);
    int checked = 0;
    for (int trial = 0; trial < 200; ++trial) {
      const int groups = 1 + trial % 5, depth = 1 + trial % 6;
      const std::vector<ShapNode> nodes = random_tree(rng, depth, groups);
      std::vector<unsigned char> left(nodes.size());
      for (auto& l : left) l = coin(rng);
      std::vector<double> phi(static_cast<std::size_t>(groups), 0.0);
      ShapScratch scratch;
      tree_shap(nodes.data(), left.data(), phi.data(), scratch);
      const std::vector<double> exact = brute_force(nodes, left, groups);
      double sum = 0.0;
      for (int g = 0; g < groups; ++g) {
        expect_true(std::fabs(phi[static_cast<std::size_t>(g)] -
                              exact[static_cast<std::size_t>(g)]) < 1e-9);
        sum += phi[static_cast<std::size_t>(g)];
      }
      // efficiency: the values add up to f(x) - E[f]
      expect_true(std::fabs(sum + tree_expected_value(nodes.data()) - leaf_value(nodes, left)) <
                  1e-9);
      ++checked;
    }
    expect_true(checked == 200);
  }

  test_that("a single leaf has no contributions and its value is the expected value") {
    std::vector<ShapNode> leaf(1);
    leaf[0].value = 1.5;
    leaf[0].cover = 3.0;
    std::vector<unsigned char> left(1, 0);
    double phi[2] = {0.0, 0.0};
    ShapScratch scratch;
    tree_shap(leaf.data(), left.data(), phi, scratch);
    expect_true(phi[0] == 0.0);
    expect_true(phi[1] == 0.0);
    expect_true(tree_expected_value(leaf.data()) == 1.5);
  }
}
