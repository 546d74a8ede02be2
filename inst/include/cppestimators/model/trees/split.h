// The split rules of TF's boosted trees (stats_ops'
// BoostedTreesCalculateBestGainsPerFeature and the ensemble update's choice
// per node), in float32 and in TF's order: a leaf's weight and gain from its
// gradient and hessian sums under L1/L2 regularization, and the best
// threshold of one feature's bucket histogram from its cumulative sums.
#pragma once
#include <limits>
#include <vector>

namespace cppestimators {
namespace trees {

struct Regularization {
  float l1 = 0.0f, l2 = 0.0f, tree_complexity = 0.0f, min_node_weight = 0.0f;
  // xgboost's min_child_weight: the smallest hessian sum of each side of a
  // split (TF's min_node_weight bounds the node being split; 0: no bound)
  float min_child_weight = 0.0f;
};

struct LeafFit {
  float weight = 0.0f, gain = 0.0f;
};

// TF's comparisons of gains (tolerance 1e-15 in float).
bool gains_equal(float a, float b);
bool gain_is_larger(float a, float b);

// weight = -g' / (h + l2), gain = -g' * weight, where g' is g shrunk towards
// 0 by l1 (|g| <= l1 gives weight and gain 0), and h + l2 <= 1e-15 gives 0
// too; every step in float, as TF computes it.
LeafFit leaf_fit(float g, float h, const Regularization& r);

struct Split {
  int feature = -1;                                      // -1: no split
  int bucket = -1;                                       // examples with bucket <= this go left
  float gain = -std::numeric_limits<float>::infinity();  // left + right - parent - tree_complexity
  float left_weight = 0.0f, right_weight = 0.0f;
  float left_hessian = 0.0f, right_hessian = 0.0f;  // the sides' hessian sums (covers)
};

// Offers one feature's best threshold to `best`, from its histogram (g[2b],
// g[2b + 1]: bucket b's gradient and hessian sums, b < buckets, each divided
// by `per`). As TF: the cumulative sums in float, the node's totals the last
// bucket's cumulative sums, no candidate when the total hessian is below
// min_node_weight, the first threshold whose left + right gain is larger by
// 1e-15 wins; then the feature's gain (best - parent - tree_complexity)
// replaces `best` when larger, an equal gain keeping the lower feature (call
// in feature order).
//
// With `bounds` (monotone constraints), each side's weight is clamped to
// [lo, hi], a threshold whose left weight is above (direction 1) or below
// (-1) its right weight is no candidate, and gains are those of the
// clamped weights: -(2 g' w + (h + l2) w^2), which is -g' w at the
// unclamped weight.
struct WeightBounds {
  float lo, hi;
  int direction;  // the feature's: -1, 0, 1
};
void offer_feature(int feature, const float* gh, float per, int buckets, const Regularization& r,
                   Split& best, const WeightBounds* bounds = nullptr);

// Multi-class trees (K logits): each leaf holds K weights, from each class's
// gradient and hessian sums, the hessian taken diagonal as TensorFlow 2's
// multi-class trees take it (CalculateWeightsAndGains): weight_k = -g_k /
// (h_k + l2), the gain -sum_k g_k weight_k. L1 shrinks each class's g on its
// own (beyond TensorFlow, which has no L1 for several logits).
struct ClassSplit {
  int feature = -1;  // -1: no split
  int bucket = -1;   // examples with bucket <= this go left
  float gain = -std::numeric_limits<float>::infinity();
  std::vector<float> left_weight, right_weight;     // K each, sized by the caller
  float left_hessian = 0.0f, right_hessian = 0.0f;  // summed over the classes (covers)
};

float class_gain(const float* g, const float* h, int k, const Regularization& r);

// The scratch offer_feature_classes() needs: this many times K floats.
constexpr int kClassScratch = 8;

// offer_feature() for K classes, by the same rules in float: `gh` holds per
// bucket K (g, h) pairs (each divided by `per`); the node's totals are the
// last bucket's cumulative sums; no candidate when the norm of the K
// hessian sums is below min_node_weight (TF's rule for several logits); the
// first threshold whose left + right gain is larger by 1e-15 wins, and a
// feature replaces `best` when its gain is larger (call in feature order).
void offer_feature_classes(int feature, const float* gh, float per, int buckets, int k,
                           const Regularization& r, float* scratch, ClassSplit& best);

}  // namespace trees
}  // namespace cppestimators
