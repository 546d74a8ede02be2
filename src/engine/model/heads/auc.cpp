#include <cppestimators/model/heads/auc.h>

#include <array>

namespace cppestimators {

void ThresholdAuc::reset() {
  pos_hist_.fill(0.0);
  neg_hist_.fill(0.0);
}

double ThresholdAuc::value(bool pr) const {
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

}  // namespace cppestimators
