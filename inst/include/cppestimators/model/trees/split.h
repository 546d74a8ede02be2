// The split rules of TF's boosted trees (stats_ops'
// BoostedTreesCalculateBestGainsPerFeature and the ensemble update's choice
// per node), in float32 and in TF's order: a leaf's weight and gain from its
// gradient and hessian sums under L1/L2 regularization, and the best
// threshold of one feature's bucket histogram from its cumulative sums.
#pragma once
#include <cmath>
#include <limits>
#include <vector>

namespace cppestimators {
namespace trees {

struct Regularization {
  float l1 = 0.0f, l2 = 0.0f, tree_complexity = 0.0f, min_node_weight = 0.0f;
};

struct LeafFit {
  float weight = 0.0f, gain = 0.0f;
};

// TF's comparisons of gains (tolerance 1e-15 in float).
inline bool gains_equal(float a, float b) { return std::abs(a - b) < 1e-15f; }
inline bool gain_is_larger(float a, float b) { return a - b >= 1e-15f; }

// weight = -g' / (h + l2), gain = -g' * weight, where g' is g shrunk towards
// 0 by l1 (|g| <= l1 gives weight and gain 0), and h + l2 <= 1e-15 gives 0
// too; every step in float, as TF computes it.
inline LeafFit leaf_fit(float g, float h, const Regularization& r) {
  if (r.l1 > 0.0f) {
    if (g > r.l1)
      g -= r.l1;
    else if (g < -r.l1)
      g += r.l1;
    else
      return {};
  }
  const float d = h + r.l2;
  if (d <= 1e-15f) return {};
  const float w = -g / d;
  return {w, -g * w};
}

struct Split {
  int feature = -1;                                      // -1: no split
  int bucket = -1;                                       // examples with bucket <= this go left
  float gain = -std::numeric_limits<float>::infinity();  // left + right - parent - tree_complexity
  float left_weight = 0.0f, right_weight = 0.0f;
};

// Offers one feature's best threshold to `best`, from its histogram (g[2b],
// g[2b + 1]: bucket b's gradient and hessian sums, b < buckets, each divided
// by `per`). As TF: the cumulative sums in float, the node's totals the last
// bucket's cumulative sums, no candidate when the total hessian is below
// min_node_weight, the first threshold whose left + right gain is larger by
// 1e-15 wins; then the feature's gain (best - parent - tree_complexity)
// replaces `best` when larger, an equal gain keeping the lower feature (call
// in feature order).
inline void offer_feature(int feature, const float* gh, float per, int buckets,
                          const Regularization& r, Split& best) {
  float G = 0.0f, H = 0.0f;
  for (int b = 0; b < buckets; ++b) {
    G += per == 1.0f ? gh[2 * b] : gh[2 * b] / per;
    H += per == 1.0f ? gh[2 * b + 1] : gh[2 * b + 1] / per;
  }
  if (H < r.min_node_weight) return;
  float gl = 0.0f, hl = 0.0f, top = std::numeric_limits<float>::lowest();
  float top_gl = 0.0f, top_hl = 0.0f;
  int at = 0;
  for (int b = 0; b < buckets; ++b) {
    const float g = per == 1.0f ? gh[2 * b] : gh[2 * b] / per;
    const float h = per == 1.0f ? gh[2 * b + 1] : gh[2 * b + 1] / per;
    // an empty bucket leaves the sums, so the gain, as they were: it never
    // beats the bucket before it
    if (g == 0.0f && h == 0.0f && b > 0) continue;
    gl += g;
    hl += h;
    const float total = leaf_fit(gl, hl, r).gain + leaf_fit(G - gl, H - hl, r).gain;
    if (gain_is_larger(total, top)) {
      top = total;
      at = b;
      top_gl = gl;
      top_hl = hl;
    }
  }
  const float gain = (top - leaf_fit(G, H, r).gain) - r.tree_complexity;
  if (best.feature >= 0 && (gains_equal(gain, best.gain) || !gain_is_larger(gain, best.gain)))
    return;
  best.feature = feature;
  best.bucket = at;
  best.gain = gain;
  best.left_weight = leaf_fit(top_gl, top_hl, r).weight;
  best.right_weight = leaf_fit(G - top_gl, H - top_hl, r).weight;
}

// Multi-class trees (K logits): each leaf holds K weights, from each class's
// gradient and hessian sums, the hessian taken diagonal as TensorFlow 2's
// multi-class trees take it (CalculateWeightsAndGains): weight_k = -g_k /
// (h_k + l2), the gain -sum_k g_k weight_k. L1 shrinks each class's g on its
// own (beyond TensorFlow, which has no L1 for several logits).
struct ClassSplit {
  int feature = -1;  // -1: no split
  int bucket = -1;   // examples with bucket <= this go left
  float gain = -std::numeric_limits<float>::infinity();
  std::vector<float> left_weight, right_weight;  // K each, sized by the caller
};

inline float class_gain(const float* g, const float* h, int k, const Regularization& r) {
  float sum = 0.0f;
  for (int c = 0; c < k; ++c) sum += leaf_fit(g[c], h[c], r).gain;
  return sum;
}

// The scratch offer_feature_classes() needs: this many times K floats.
constexpr int kClassScratch = 8;

// offer_feature() for K classes, by the same rules in float: `gh` holds per
// bucket K (g, h) pairs (each divided by `per`); the node's totals are the
// last bucket's cumulative sums; no candidate when the norm of the K
// hessian sums is below min_node_weight (TF's rule for several logits); the
// first threshold whose left + right gain is larger by 1e-15 wins, and a
// feature replaces `best` when its gain is larger (call in feature order).
inline void offer_feature_classes(int feature, const float* gh, float per, int buckets, int k,
                                  const Regularization& r, float* scratch, ClassSplit& best) {
  float *G = scratch, *H = scratch + k, *gl = scratch + 2 * k, *hl = scratch + 3 * k,
        *gr = scratch + 4 * k, *hr = scratch + 5 * k, *top_gl = scratch + 6 * k,
        *top_hl = scratch + 7 * k;
  const auto stat = [&](int b, int c, int which) {
    const float v = gh[2 * (static_cast<std::size_t>(b) * k + c) + which];
    return per == 1.0f ? v : v / per;
  };
  for (int c = 0; c < k; ++c) G[c] = H[c] = gl[c] = hl[c] = top_gl[c] = top_hl[c] = 0.0f;
  for (int b = 0; b < buckets; ++b)
    for (int c = 0; c < k; ++c) {
      G[c] += stat(b, c, 0);
      H[c] += stat(b, c, 1);
    }
  float norm = 0.0f;
  for (int c = 0; c < k; ++c) norm += H[c] * H[c];
  if (std::sqrt(norm) < r.min_node_weight) return;
  float top = std::numeric_limits<float>::lowest();
  int at = 0;
  for (int b = 0; b < buckets; ++b) {
    bool empty = true;
    for (int c = 0; c < k; ++c) empty = empty && stat(b, c, 0) == 0.0f && stat(b, c, 1) == 0.0f;
    if (empty && b > 0) continue;  // the sums, so the gain, stay as they were
    for (int c = 0; c < k; ++c) {
      gl[c] += stat(b, c, 0);
      hl[c] += stat(b, c, 1);
      gr[c] = G[c] - gl[c];
      hr[c] = H[c] - hl[c];
    }
    const float total = class_gain(gl, hl, k, r) + class_gain(gr, hr, k, r);
    if (gain_is_larger(total, top)) {
      top = total;
      at = b;
      for (int c = 0; c < k; ++c) {
        top_gl[c] = gl[c];
        top_hl[c] = hl[c];
      }
    }
  }
  const float gain = (top - class_gain(G, H, k, r)) - r.tree_complexity;
  if (best.feature >= 0 && (gains_equal(gain, best.gain) || !gain_is_larger(gain, best.gain)))
    return;
  best.feature = feature;
  best.bucket = at;
  best.gain = gain;
  for (int c = 0; c < k; ++c) {
    best.left_weight[static_cast<std::size_t>(c)] = leaf_fit(top_gl[c], top_hl[c], r).weight;
    best.right_weight[static_cast<std::size_t>(c)] =
        leaf_fit(G[c] - top_gl[c], H[c] - top_hl[c], r).weight;
  }
}

}  // namespace trees
}  // namespace cppestimators
