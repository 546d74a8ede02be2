// Regression head: squared error, predictions are the logits; metrics
// label/mean and prediction/mean (TF 1.x regression_head).
#pragma once
#include <limits>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "head.h"
#include "metric_accumulator.h"

namespace cppestimators {

class RegressionMetrics : public MetricAccumulator {
 public:
  explicit RegressionMetrics(int label_dim) : MetricAccumulator(label_dim), d_(label_dim) {}

 private:
  void clear() override { label_sum_ = pred_sum_ = 0.0; }
  void accumulate(const float* logits, const float* labels, const float* weights,
                  int rows) override {
    const int m = rows * d_;
    if (weights == nullptr) {
      for (int i = 0; i < m; ++i) {
        label_sum_ += labels[i];
        pred_sum_ += logits[i];
      }
      return;
    }
    for (int i = 0; i < m; ++i) {
      const double w = weights[i / d_];
      label_sum_ += w * labels[i];
      pred_sum_ += w * logits[i];
    }
  }
  void append(MetricList& out) const override {
    const double m = weight_sum() * d_;  // the weights broadcast over the label dimension
    out.emplace_back("label/mean", mean(label_sum_, m));
    out.emplace_back("prediction/mean", mean(pred_sum_, m));
  }

  int d_;
  double label_sum_ = 0, pred_sum_ = 0;
};

class RegressionHead : public Head {
 public:
  explicit RegressionHead(int label_dim) : d_(label_dim) {
    if (d_ <= 0) throw std::invalid_argument("`label_dimension` must be a positive integer");
  }
  std::string name() const override { return "regression"; }
  int logits_dim() const override { return d_; }
  int label_dim() const override { return d_; }
  int per_example_dim() const override { return d_; }
  void check_labels(const double* y, std::int64_t n, int width) const override {
    if (width != d_)
      throw std::invalid_argument("Mismatched label shape. Expected labels dimension=" +
                                  std::to_string(d_) + ", received " + std::to_string(width));
    for (std::int64_t i = 0; i < n * width; ++i) {
      if (std::fabs(y[i]) <= static_cast<double>(std::numeric_limits<float>::max())) continue;
      const std::string row = std::to_string(i % n + 1);
      if (std::isnan(y[i]))
        throw std::invalid_argument("the response contains missing values (NA), first at row " +
                                    row);
      if (std::isinf(y[i]))
        throw std::invalid_argument("the response contains infinite values, first at row " + row);
      if (std::fabs(y[i]) > static_cast<double>(std::numeric_limits<float>::max()))
        throw std::invalid_argument(
            "the response contains values beyond the float32 range (|y| > 3.4e38), first at row " +
            row);
    }
  }
  std::vector<std::string> prediction_keys() const override { return {"predictions"}; }
  std::string default_prediction_key() const override { return "predictions"; }
  int key_width(const std::string&) const override { return d_; }
  void predict(const std::string& key, const float* logits, int rows, double* out) const override {
    if (key != "predictions") throw std::invalid_argument("unknown prediction key: " + key);
    for (int i = 0; i < rows * d_; ++i) out[i] = logits[i];
  }
  std::unique_ptr<MetricAccumulator> new_metrics() const override {
    return std::make_unique<RegressionMetrics>(d_);
  }

 private:
  bool unweighted_hessian(const float*, const float*, int rows, float* out) const override {
    std::fill(out, out + static_cast<std::size_t>(rows) * label_dim(),
              2.0f);  // of the squared error
    return true;
  }
  double unweighted_loss(const float* logits, const float* labels, int rows, float* pe,
                         float* dlogits) const override {
    double total = 0.0;
    const int m = rows * d_;
    for (int i = 0; i < m; ++i) {
      const float diff = logits[i] - labels[i];
      pe[i] = diff * diff;
      total += pe[i];
      if (dlogits) dlogits[i] = 2.0f * diff;
    }
    return total;
  }

  int d_;
};

}  // namespace cppestimators
