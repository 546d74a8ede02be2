// tf.metrics.auc with 200 thresholds, strict ">" and the trapezoidal rule,
// streaming: two histograms of fixed size, whatever the number of examples.
#pragma once
#include <algorithm>
#include <array>

namespace cppestimators {

class ThresholdAuc {
 public:
  static constexpr int kThresholds = 200;

  // 0 - eps, 1/199, ..., 198/199, 1 + eps (TF's thresholds).
  // inline: add() reads them per example
  static const std::array<float, kThresholds>& thresholds() {
    static const std::array<float, kThresholds> t = [] {
      std::array<float, kThresholds> a{};
      const float eps = 1e-7f;
      a[0] = 0.0f - eps;
      for (int i = 1; i < kThresholds - 1; ++i)
        a[i] = static_cast<float>(i) / static_cast<float>(kThresholds - 1);
      a[kThresholds - 1] = 1.0f + eps;
      return a;
    }();
    return t;
  }

  void reset();

  // One example: predicted probability p, whether its label is positive,
  // its weight (TF counts each example by its weight).
  // inline: called per example in the binary head's metrics loop
  void add(float p, bool positive, double weight = 1.0) {
    // number of thresholds strictly below p: p is predicted positive at those
    const int k = static_cast<int>(std::lower_bound(thresholds().begin(), thresholds().end(), p) -
                                   thresholds().begin());
    (positive ? pos_hist_ : neg_hist_)[k] += weight;
  }

  // Area under the ROC curve (pr = false) or the precision-recall curve (pr = true).
  double value(bool pr) const;

 private:
  std::array<double, kThresholds + 1> pos_hist_{}, neg_hist_{};
};

}  // namespace cppestimators
