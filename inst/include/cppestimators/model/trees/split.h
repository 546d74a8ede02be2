// The split rules of TF 1.12's boosted trees (stats_ops, pruning_mode none):
// a leaf's weight and gain from its gradient and hessian sums under L1/L2
// regularization, and the best threshold of one feature's bucket histogram.
#pragma once
#include <cmath>
#include <limits>
#include <vector>

namespace cppestimators {
namespace trees {

struct Regularization {
  double l1 = 0.0, l2 = 0.0, tree_complexity = 0.0, min_node_weight = 0.0;
};

struct LeafFit {
  double weight = 0.0, gain = 0.0;
};

// weight = -g' / (h + l2), gain = g'^2 / (h + l2), where g' is g shrunk
// towards 0 by l1 (|g| <= l1 gives weight and gain 0), and a (near) zero
// denominator gives 0 too.
inline LeafFit leaf_fit(double g, double h, const Regularization& r) {
  if (r.l1 > 0.0) {
    if (g > r.l1)
      g -= r.l1;
    else if (g < -r.l1)
      g += r.l1;
    else
      return {};
  }
  const double d = h + r.l2;
  if (d <= 1e-15) return {};
  return {-g / d, g * g / d};
}

struct Split {
  int feature = -1;  // -1: no split
  int bucket = -1;   // examples with bucket <= this go left
  double gain =
      -std::numeric_limits<double>::infinity();  // left + right - parent - tree_complexity
  double left_weight = 0.0, right_weight = 0.0;
};

// Offers every threshold of one feature to `best`, from its histogram (g[b],
// h[b] for b < buckets) and the node's totals G, H. The feature's best
// threshold maximizes left + right gain (ties keep the lower bucket); it
// replaces `best` when its split gain is higher (ties keep the earlier
// feature, so call in feature order).
inline void offer_feature(int feature, const double* g, const double* h, int buckets, double G,
                          double H, const Regularization& r, Split& best) {
  const double parent = leaf_fit(G, H, r).gain;
  double gl = 0.0, hl = 0.0, top = -std::numeric_limits<double>::infinity();
  double top_gl = 0.0, top_hl = 0.0;
  int at = -1;
  for (int b = 0; b < buckets; ++b) {
    // an empty bucket leaves both sides as they were: its total equals the
    // previous bucket's, which a later bucket never beats on a tie
    if (g[b] == 0.0 && h[b] == 0.0 && at >= 0) continue;
    gl += g[b];
    hl += h[b];
    // gains only here (one division per side); the winner's weights below
    const double total = leaf_fit(gl, hl, r).gain + leaf_fit(G - gl, H - hl, r).gain;
    if (at < 0 || total > top + 1e-15) {
      top = total;
      at = b;
      top_gl = gl;
      top_hl = hl;
    }
  }
  if (at < 0) return;
  const double gain = top - parent - r.tree_complexity;
  if (best.feature < 0 || gain > best.gain) {
    best.feature = feature;
    best.bucket = at;
    best.gain = gain;
    best.left_weight = leaf_fit(top_gl, top_hl, r).weight;
    best.right_weight = leaf_fit(G - top_gl, H - top_hl, r).weight;
  }
}

// Multi-class trees (K logits): each leaf holds K weights, from each class's
// gradient and hessian sums (the diagonal of the hessian, as TensorFlow 2's
// multi-class boosted trees take it): weight_k = -g_k / (h_k + l2), the gain
// summed over the classes. L1 shrinks each class's g on its own (beyond
// TensorFlow, which has no L1 for several logits).
struct ClassSplit {
  int feature = -1;  // -1: no split
  int bucket = -1;   // examples with bucket <= this go left
  double gain = -std::numeric_limits<double>::infinity();
  std::vector<double> left_weight, right_weight;  // K each
};

inline double class_gain(const double* g, const double* h, int k, const Regularization& r) {
  double sum = 0.0;
  for (int c = 0; c < k; ++c) sum += leaf_fit(g[c], h[c], r).gain;
  return sum;
}

// offer_feature() for K classes: g and h hold buckets x K sums (bucket
// major), G and H the node's K totals; `scratch` has room for 4 K values.
inline void offer_feature_classes(int feature, const double* g, const double* h, int buckets, int k,
                                  const double* G, const double* H, const Regularization& r,
                                  double* scratch, ClassSplit& best) {
  double *gl = scratch, *hl = scratch + k, *gr = scratch + 2 * k, *hr = scratch + 3 * k;
  for (int c = 0; c < k; ++c) gl[c] = hl[c] = 0.0;
  double top = -std::numeric_limits<double>::infinity();
  int at = -1;
  for (int b = 0; b < buckets; ++b) {
    const double* gb = g + static_cast<std::size_t>(b) * k;
    const double* hb = h + static_cast<std::size_t>(b) * k;
    bool empty = true;
    for (int c = 0; c < k; ++c) empty = empty && gb[c] == 0.0 && hb[c] == 0.0;
    if (empty && at >= 0) continue;  // both sides stay as they were (see offer_feature())
    for (int c = 0; c < k; ++c) {
      gl[c] += gb[c];
      hl[c] += hb[c];
      gr[c] = G[c] - gl[c];
      hr[c] = H[c] - hl[c];
    }
    const double total = class_gain(gl, hl, k, r) + class_gain(gr, hr, k, r);
    if (at < 0 || total > top + 1e-15) {
      top = total;
      at = b;
    }
  }
  if (at < 0) return;
  const double gain = top - class_gain(G, H, k, r) - r.tree_complexity;
  if (best.feature >= 0 && !(gain > best.gain)) return;
  best.feature = feature;
  best.bucket = at;
  best.gain = gain;
  best.left_weight.assign(static_cast<std::size_t>(k), 0.0);
  best.right_weight.assign(static_cast<std::size_t>(k), 0.0);
  for (int c = 0; c < k; ++c) gl[c] = hl[c] = 0.0;
  for (int b = 0; b <= at; ++b)
    for (int c = 0; c < k; ++c) {
      gl[c] += g[static_cast<std::size_t>(b) * k + c];
      hl[c] += h[static_cast<std::size_t>(b) * k + c];
    }
  for (int c = 0; c < k; ++c) {
    best.left_weight[static_cast<std::size_t>(c)] = leaf_fit(gl[c], hl[c], r).weight;
    best.right_weight[static_cast<std::size_t>(c)] = leaf_fit(G[c] - gl[c], H[c] - hl[c], r).weight;
  }
}

}  // namespace trees
}  // namespace cppestimators
