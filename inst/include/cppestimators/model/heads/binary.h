// Binary classification head: sigmoid cross-entropy on one logit; metrics
// accuracy, accuracy_baseline, auc, auc_precision_recall, label/mean,
// precision, prediction/mean, recall (TF 1.x binary_classification_head),
// each weighted by the examples' weights as TF's weighted metrics are.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "../../math/fast_math.h"
#include "auc.h"
#include "head.h"
#include "metric_accumulator.h"

namespace cppestimators {

inline float sigmoid(float x) { return 1.0f / (1.0f + std::exp(-x)); }

class BinaryMetrics : public MetricAccumulator {
 public:
  BinaryMetrics() : MetricAccumulator(1) {}

 private:
  void clear() override {
    label_sum_ = pred_sum_ = 0.0;
    correct_ = tp_ = fp_ = fn_ = 0.0;
    auc_.reset();
  }
  void accumulate(const float* logits, const float* labels, const float* weights,
                  int rows) override {
    for (int i = 0; i < rows; ++i) {
      const double w = weights != nullptr ? weights[i] : 1.0;
      const float p = sigmoid(logits[i]);
      const float y = labels[i];
      const float cls = logits[i] > 0.0f ? 1.0f : 0.0f;
      label_sum_ += w * y;
      pred_sum_ += w * p;
      correct_ += (cls == y) ? w : 0.0;
      const bool pos = y != 0.0f, pred_pos = cls != 0.0f;
      if (pos && pred_pos) tp_ += w;
      if (!pos && pred_pos) fp_ += w;
      if (pos && !pred_pos) fn_ += w;
      auc_.add(p, pos, w);
    }
  }
  void append(MetricList& out) const override {
    const double n = weight_sum();
    const double label_mean = mean(label_sum_, n);
    out.emplace_back("accuracy", mean(correct_, n));
    out.emplace_back("accuracy_baseline", std::max(label_mean, 1.0 - label_mean));
    out.emplace_back("auc", auc_.value(false));
    out.emplace_back("auc_precision_recall", auc_.value(true));
    out.emplace_back("label/mean", label_mean);
    out.emplace_back("precision", tp_ + fp_ > 0 ? tp_ / (tp_ + fp_) : 0.0);
    out.emplace_back("prediction/mean", mean(pred_sum_, n));
    out.emplace_back("recall", tp_ + fn_ > 0 ? tp_ / (tp_ + fn_) : 0.0);
  }

  double label_sum_ = 0, pred_sum_ = 0;
  double correct_ = 0, tp_ = 0, fp_ = 0, fn_ = 0;
  ThresholdAuc auc_;
};

class BinaryHead : public Head {
 public:
  std::string name() const override { return "binary"; }
  int logits_dim() const override { return 1; }
  int label_dim() const override { return 1; }
  int per_example_dim() const override { return 1; }
  void check_labels(const double* y, std::int64_t n, int width) const override {
    if (width != 1) throw std::invalid_argument("a classifier needs a single response column");
    for (std::int64_t i = 0; i < n; ++i) {
      if (std::isnan(y[i]))
        throw std::invalid_argument("the response contains missing values (NA)");
      if (y[i] < 0.0 || y[i] > 1.0)
        throw std::invalid_argument(
            "Labels must be in [0, 1] for a binary classifier (n_classes = 2); got " +
            std::to_string(y[i]));
    }
  }
  std::vector<std::string> prediction_keys() const override {
    return {"logits", "logistic", "probabilities", "class_ids", "classes"};
  }
  std::string default_prediction_key() const override { return "logistic"; }
  int key_width(const std::string& key) const override { return key == "probabilities" ? 2 : 1; }
  void predict(const std::string& key, const float* x, int rows, double* out) const override {
    for (int i = 0; i < rows; ++i) {
      const float p = sigmoid(x[i]);
      if (key == "logits")
        out[i] = x[i];
      else if (key == "logistic")
        out[i] = p;
      else if (key == "probabilities") {
        out[2 * i] = 1.0f - p;
        out[2 * i + 1] = p;
      } else if (key == "class_ids" || key == "classes")
        out[i] = x[i] > 0.0f ? 1.0 : 0.0;
      else
        throw std::invalid_argument("unknown prediction key: " + key);
    }
  }
  std::unique_ptr<MetricAccumulator> new_metrics() const override {
    return std::make_unique<BinaryMetrics>();
  }

 private:
  double unweighted_loss(const float* x, const float* y, int rows, float* pe,
                         float* dl) const override {
    return fast::logistic_loss(x, y, rows, pe, dl, nullptr);
  }
  bool unweighted_hessian(const float* x, const float*, int rows, float* out) const override {
    fast::logistic_hessian(x, rows, out);
    return true;
  }
};

}  // namespace cppestimators
