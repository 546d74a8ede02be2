// Exact per-prediction explanations of tree ensembles: path-dependent
// TreeSHAP (Lundberg, Erion and Lee, "Consistent individualized feature
// attribution for tree ensembles", 2018, algorithm 2). A tree's value at a
// row is split into one Shapley value per feature group plus the tree's
// expected value, where the value of a set S of groups is the expectation of
// the tree over the rows of the training data that follow the row's path at
// the splits of S, the others weighted by the nodes' covers (their hessian
// sums, as xgboost records them). The players are groups (a model's feature
// columns): the splits of several features of one group (the values of a
// multi-valued numeric column) count as one player, so the values are the
// exact Shapley values of the groups. Polynomial time: O(leaves x depth^2)
// per tree and row.
#pragma once
#include <vector>

namespace cppestimators {
namespace trees {

// A node as TreeSHAP reads it. `left` < 0: a leaf; else its children are
// left and left + 1 (indices within the tree). `group`: the player of its
// split. `cover` > 0 for every node reached in training.
struct ShapNode {
  int left = -1;
  int group = -1;
  double cover = 0.0;
  double value = 0.0;  // a leaf's prediction
};

// One path element of the algorithm.
struct ShapPathElement {
  int group;
  double zero_fraction, one_fraction, weight;
};

// Scratch of one thread, sized for trees up to a depth.
struct ShapScratch {
  std::vector<ShapPathElement> path;  // (depth + 2)(depth + 3) / 2
  std::vector<unsigned char> used;    // interactions: the groups a tree splits on
  void reserve(int depth);
};

// The depth of a tree (0 for a single leaf).
int tree_depth(const ShapNode* nodes);

// The tree's expected value: its leaves' values weighted by their covers.
double tree_expected_value(const ShapNode* nodes);

// Adds to phi[g] the contribution of group g to the tree's value at a row
// whose walk goes left at node i when goes_left[i] is nonzero. The
// contributions sum to the row's value minus tree_expected_value().
// `condition` +1 (-1): the values when `condition_group` is present
// (absent) in every coalition, for interaction values. `depth`: the
// tree's depth when the caller knows it (tree_depth(); -1: found here).
void tree_shap(const ShapNode* nodes, const unsigned char* goes_left, double* phi,
               ShapScratch& scratch, int condition = 0, int condition_group = -1, int depth = -1);

// SHAP interaction values (Lundberg et al. 2018, section 4.2): adds to
// out[i * groups + j] the interaction of groups i and j, half of the
// difference of j's value with i present and with i absent; the diagonal
// holds i's value minus its interactions, so that row i sums to i's
// contribution. `work`: scratch.
void tree_shap_interactions(const ShapNode* nodes, const unsigned char* goes_left, int groups,
                            double* out, ShapScratch& scratch, std::vector<double>& work,
                            int depth = -1);

// The value of the set of groups `in_set` (in_set[g] nonzero: present) by
// definition, for tests: the expectation over the path-dependent
// distribution, following the row where the split's group is present.
double tree_set_value(const ShapNode* nodes, const unsigned char* goes_left,
                      const unsigned char* in_set);

}  // namespace trees
}  // namespace cppestimators
