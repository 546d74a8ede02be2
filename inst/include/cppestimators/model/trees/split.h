// The split rules of TF 1.12's boosted trees (stats_ops, pruning_mode none):
// a leaf's weight and gain from its gradient and hessian sums under L1/L2
// regularization, and the best threshold of one feature's bucket histogram.
#pragma once
#include <cmath>
#include <limits>

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
    if (g > r.l1) g -= r.l1;
    else if (g < -r.l1) g += r.l1;
    else return {};
  }
  const double d = h + r.l2;
  if (d <= 1e-15) return {};
  return {-g / d, g * g / d};
}

struct Split {
  int feature = -1;  // -1: no split
  int bucket = -1;   // examples with bucket <= this go left
  double gain = -std::numeric_limits<double>::infinity();  // left + right - parent - tree_complexity
  double left_weight = 0.0, right_weight = 0.0;
};

// Offers every threshold of one feature to `best`, from its histogram (g[b],
// h[b] for b < buckets) and the node's totals G, H. The feature's best
// threshold maximizes left + right gain (ties keep the lower bucket); it
// replaces `best` when its split gain is higher (ties keep the earlier
// feature, so call in feature order).
inline void offer_feature(int feature, const double* g, const double* h, int buckets, double G, double H,
                          const Regularization& r, Split& best) {
  const double parent = leaf_fit(G, H, r).gain;
  double gl = 0.0, hl = 0.0, top = -std::numeric_limits<double>::infinity();
  int at = -1;
  LeafFit top_l, top_r;
  for (int b = 0; b < buckets; ++b) {
    gl += g[b];
    hl += h[b];
    const LeafFit left = leaf_fit(gl, hl, r), right = leaf_fit(G - gl, H - hl, r);
    const double total = left.gain + right.gain;
    if (at < 0 || total > top + 1e-15) {
      top = total;
      at = b;
      top_l = left;
      top_r = right;
    }
  }
  if (at < 0) return;
  const double gain = top - parent - r.tree_complexity;
  if (best.feature < 0 || gain > best.gain) {
    best.feature = feature;
    best.bucket = at;
    best.gain = gain;
    best.left_weight = top_l.weight;
    best.right_weight = top_r.weight;
  }
}

}  // namespace trees
}  // namespace cppestimators
