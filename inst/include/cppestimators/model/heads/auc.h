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

  void reset() {
    pos_hist_.fill(0.0);
    neg_hist_.fill(0.0);
  }

  // One example: predicted probability p, whether its label is positive,
  // its weight (TF counts each example by its weight).
  void add(float p, bool positive, double weight = 1.0) {
    // number of thresholds strictly below p: p is predicted positive at those
    const int k = static_cast<int>(std::lower_bound(thresholds().begin(), thresholds().end(), p) -
                                   thresholds().begin());
    (positive ? pos_hist_ : neg_hist_)[k] += weight;
  }

  // Area under the ROC curve (pr = false) or the precision-recall curve (pr = true).
  double value(bool pr) const {
    const double eps = 1e-6;
    // hist[k] counts examples with exactly k thresholds strictly below them;
    // at threshold i the positives predicted are those with k > i.
    std::array<double, kThresholds + 1> pos_above{}, neg_above{};
    for (int k = kThresholds; k >= 0; --k) {
      pos_above[k] = (k < kThresholds ? pos_above[k + 1] : 0.0) + pos_hist_[k];
      neg_above[k] = (k < kThresholds ? neg_above[k + 1] : 0.0) + neg_hist_[k];
    }
    const double pos_total = pos_above[0], neg_total = neg_above[0];
    std::array<double, kThresholds> x{}, y{};
    for (int i = 0; i < kThresholds; ++i) {
      const double tp = pos_above[i + 1], fp = neg_above[i + 1];
      const double fn = pos_total - tp, tn = neg_total - fp;
      const double recall = (tp + eps) / (tp + fn + eps);
      if (pr) {
        x[i] = recall;
        y[i] = (tp + eps) / (tp + fp + eps);
      } else {
        x[i] = fp / (fp + tn + eps);
        y[i] = recall;
      }
    }
    double area = 0.0;
    for (int i = 0; i < kThresholds - 1; ++i) area += (x[i] - x[i + 1]) * (y[i] + y[i + 1]) / 2.0;
    return area;
  }

 private:
  std::array<double, kThresholds + 1> pos_hist_{}, neg_hist_{};
};

}  // namespace cppestimators
