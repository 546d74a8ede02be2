// Streaming evaluation metrics of the canned heads (TF 1.x head.py and
// metrics_impl): accumulated batch by batch, reset before each evaluation,
// of fixed size whatever the number of batches.
#pragma once
#include <algorithm>
#include <array>
#include <string>
#include <utility>
#include <vector>

#include "head.h"

namespace cppestimators {

using MetricList = std::vector<std::pair<std::string, double>>;

class Metrics {
 public:
  explicit Metrics(const Head& head) : head_(head) { reset(); }

  void reset() {
    batches_ = 0;
    batch_loss_sum_ = loss_elem_sum_ = 0.0;
    loss_elems_ = examples_ = 0;
    label_sum_ = pred_sum_ = 0.0;
    correct_ = tp_ = fp_ = fn_ = 0.0;
    pos_hist_.fill(0.0);
    neg_hist_.fill(0.0);
  }

  // One evaluation batch: logits [rows x logits_dim], labels [rows x label_dim],
  // per-example losses [rows x per_example_dim], the batch's summed loss.
  void update(const float* logits, const float* labels, const float* per_example, int rows,
              double batch_loss) {
    ++batches_;
    batch_loss_sum_ += batch_loss;
    const int pe = rows * head_.per_example_dim();
    for (int i = 0; i < pe; ++i) loss_elem_sum_ += per_example[i];
    loss_elems_ += pe;
    examples_ += rows;
    switch (head_.kind()) {
      case HeadKind::Regression: {
        const int m = rows * head_.label_dim();
        for (int i = 0; i < m; ++i) {
          label_sum_ += labels[i];
          pred_sum_ += logits[i];
        }
        break;
      }
      case HeadKind::Binary: {
        for (int i = 0; i < rows; ++i) {
          const float p = sigmoid(logits[i]);
          const float y = labels[i];
          const float cls = logits[i] > 0.0f ? 1.0f : 0.0f;
          label_sum_ += y;
          pred_sum_ += p;
          correct_ += (cls == y) ? 1.0 : 0.0;
          const bool pos = y != 0.0f, pred_pos = cls != 0.0f;
          if (pos && pred_pos) tp_ += 1.0;
          if (!pos && pred_pos) fp_ += 1.0;
          if (pos && !pred_pos) fn_ += 1.0;
          // number of thresholds strictly below p: p is predicted positive at those
          const int k = static_cast<int>(
              std::lower_bound(thresholds().begin(), thresholds().end(), p) - thresholds().begin());
          (pos ? pos_hist_ : neg_hist_)[k] += 1.0;
        }
        break;
      }
      case HeadKind::MultiClass: {
        const int k = head_.logits_dim();
        for (int i = 0; i < rows; ++i) {
          const float* xi = logits + static_cast<std::size_t>(i) * k;
          const int cls = static_cast<int>(std::max_element(xi, xi + k) - xi);
          correct_ += (cls == static_cast<int>(labels[i])) ? 1.0 : 0.0;
        }
        break;
      }
    }
  }

  std::int64_t batches() const { return batches_; }

  // Metric name -> value, names sorted.
  MetricList result() const {
    MetricList out;
    auto mean = [](double s, double n) { return n > 0 ? s / n : 0.0; };
    out.emplace_back("average_loss", mean(loss_elem_sum_, static_cast<double>(loss_elems_)));
    out.emplace_back("loss", mean(batch_loss_sum_, static_cast<double>(batches_)));
    const double n = static_cast<double>(examples_);
    switch (head_.kind()) {
      case HeadKind::Regression: {
        const double m = n * head_.label_dim();
        out.emplace_back("label/mean", mean(label_sum_, m));
        out.emplace_back("prediction/mean", mean(pred_sum_, m));
        break;
      }
      case HeadKind::Binary: {
        const double label_mean = mean(label_sum_, n);
        out.emplace_back("accuracy", mean(correct_, n));
        out.emplace_back("accuracy_baseline", std::max(label_mean, 1.0 - label_mean));
        out.emplace_back("auc", auc(false));
        out.emplace_back("auc_precision_recall", auc(true));
        out.emplace_back("label/mean", label_mean);
        out.emplace_back("precision", tp_ + fp_ > 0 ? tp_ / (tp_ + fp_) : 0.0);
        out.emplace_back("prediction/mean", mean(pred_sum_, n));
        out.emplace_back("recall", tp_ + fn_ > 0 ? tp_ / (tp_ + fn_) : 0.0);
        break;
      }
      case HeadKind::MultiClass:
        out.emplace_back("accuracy", mean(correct_, n));
        break;
    }
    std::sort(out.begin(), out.end());
    return out;
  }

  static constexpr int kThresholds = 200;
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

 private:
  // tf.metrics.auc with 200 thresholds, strict ">" and the trapezoidal rule.
  double auc(bool pr) const {
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

  const Head& head_;
  std::int64_t batches_ = 0, loss_elems_ = 0, examples_ = 0;
  double batch_loss_sum_ = 0, loss_elem_sum_ = 0, label_sum_ = 0, pred_sum_ = 0;
  double correct_ = 0, tp_ = 0, fp_ = 0, fn_ = 0;
  std::array<double, kThresholds + 1> pos_hist_{}, neg_hist_{};
};

}  // namespace cppestimators
