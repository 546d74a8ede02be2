#include <cppestimators/model/trees/split.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>

namespace cppestimators {
namespace trees {

namespace {

// The rules of gains_equal(), gain_is_larger(), leaf_fit() and
// class_gain(), inline: the threshold searches below call them per bucket.
inline bool equal_gains(float a, float b) { return std::abs(a - b) < 1e-15f; }
inline bool larger_gain(float a, float b) { return a - b >= 1e-15f; }

inline LeafFit fit_leaf(float g, float h, const Regularization& r) {
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

// The loss reduction of weight w on (g, h) (g shrunk by l1 as in fit_leaf()).
inline float gain_of_weight(float g, float h, float w, const Regularization& r) {
  if (r.l1 > 0.0f) g = g > r.l1 ? g - r.l1 : g < -r.l1 ? g + r.l1 : 0.0f;
  return -(2.0f * g * w + (h + r.l2) * w * w);
}

inline float clamp_weight(float w, const WeightBounds& b) {
  return std::min(b.hi, std::max(b.lo, w));
}

inline float classes_gain(const float* g, const float* h, int k, const Regularization& r) {
  float sum = 0.0f;
  for (int c = 0; c < k; ++c) sum += fit_leaf(g[c], h[c], r).gain;
  return sum;
}

}  // namespace

bool gains_equal(float a, float b) { return equal_gains(a, b); }
bool gain_is_larger(float a, float b) { return larger_gain(a, b); }

LeafFit leaf_fit(float g, float h, const Regularization& r) { return fit_leaf(g, h, r); }

float class_gain(const float* g, const float* h, int k, const Regularization& r) {
  return classes_gain(g, h, k, r);
}

void offer_feature(int feature, const float* gh, float per, int buckets, const Regularization& r,
                   Split& best, const WeightBounds* bounds) {
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
    if (r.min_child_weight > 0.0f && (hl < r.min_child_weight || H - hl < r.min_child_weight))
      continue;
    float total;
    if (bounds != nullptr) {
      const float wl = clamp_weight(fit_leaf(gl, hl, r).weight, *bounds),
                  wr = clamp_weight(fit_leaf(G - gl, H - hl, r).weight, *bounds);
      if ((bounds->direction > 0 && wl > wr) || (bounds->direction < 0 && wl < wr)) continue;
      total = gain_of_weight(gl, hl, wl, r) + gain_of_weight(G - gl, H - hl, wr, r);
    } else {
      total = fit_leaf(gl, hl, r).gain + fit_leaf(G - gl, H - hl, r).gain;
    }
    if (larger_gain(total, top)) {
      top = total;
      at = b;
      top_gl = gl;
      top_hl = hl;
    }
  }
  if (top == std::numeric_limits<float>::lowest()) return;  // no side heavy enough
  const float parent =
      bounds != nullptr ? gain_of_weight(G, H, clamp_weight(fit_leaf(G, H, r).weight, *bounds), r)
                        : fit_leaf(G, H, r).gain;
  const float gain = (top - parent) - r.tree_complexity;
  if (best.feature >= 0 && (equal_gains(gain, best.gain) || !larger_gain(gain, best.gain))) return;
  best.feature = feature;
  best.bucket = at;
  best.gain = gain;
  best.left_weight = fit_leaf(top_gl, top_hl, r).weight;
  best.right_weight = fit_leaf(G - top_gl, H - top_hl, r).weight;
  best.left_hessian = top_hl;
  best.right_hessian = H - top_hl;
  if (bounds != nullptr) {
    best.left_weight = clamp_weight(best.left_weight, *bounds);
    best.right_weight = clamp_weight(best.right_weight, *bounds);
  }
}

void offer_feature_classes(int feature, const float* gh, float per, int buckets, int k,
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
    float left = 0.0f, right = 0.0f;
    for (int c = 0; c < k; ++c) {
      gl[c] += stat(b, c, 0);
      hl[c] += stat(b, c, 1);
      gr[c] = G[c] - gl[c];
      hr[c] = H[c] - hl[c];
      left += hl[c];
      right += hr[c];
    }
    if (r.min_child_weight > 0.0f && (left < r.min_child_weight || right < r.min_child_weight))
      continue;
    const float total = classes_gain(gl, hl, k, r) + classes_gain(gr, hr, k, r);
    if (larger_gain(total, top)) {
      top = total;
      at = b;
      for (int c = 0; c < k; ++c) {
        top_gl[c] = gl[c];
        top_hl[c] = hl[c];
      }
    }
  }
  if (top == std::numeric_limits<float>::lowest()) return;  // no side heavy enough
  const float gain = (top - classes_gain(G, H, k, r)) - r.tree_complexity;
  if (best.feature >= 0 && (equal_gains(gain, best.gain) || !larger_gain(gain, best.gain))) return;
  best.feature = feature;
  best.bucket = at;
  best.gain = gain;
  best.left_hessian = best.right_hessian = 0.0f;
  for (int c = 0; c < k; ++c) {
    best.left_hessian += top_hl[c];
    best.right_hessian += H[c] - top_hl[c];
    best.left_weight[static_cast<std::size_t>(c)] = fit_leaf(top_gl[c], top_hl[c], r).weight;
    best.right_weight[static_cast<std::size_t>(c)] =
        fit_leaf(G[c] - top_gl[c], H[c] - top_hl[c], r).weight;
  }
}

}  // namespace trees
}  // namespace cppestimators
