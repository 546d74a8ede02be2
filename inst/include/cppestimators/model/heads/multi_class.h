// Multi-class head: sparse softmax cross-entropy over n_classes >= 3 logits;
// metric accuracy (TF 1.x multi_class_head).
#pragma once
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "head.h"
#include "metric_accumulator.h"

namespace cppestimators {

class MultiClassMetrics : public MetricAccumulator {
 public:
  explicit MultiClassMetrics(int n_classes) : MetricAccumulator(1), k_(n_classes) {}

 private:
  void clear() override { correct_ = 0.0; }
  void accumulate(const float* logits, const float* labels, const float* weights,
                  int rows) override {
    for (int i = 0; i < rows; ++i) {
      const float* xi = logits + static_cast<std::size_t>(i) * k_;
      const int cls = static_cast<int>(std::max_element(xi, xi + k_) - xi);
      const double w = weights != nullptr ? weights[i] : 1.0;
      correct_ += (cls == static_cast<int>(labels[i])) ? w : 0.0;
    }
  }
  void append(MetricList& out) const override {
    out.emplace_back("accuracy", mean(correct_, weight_sum()));
  }

  int k_;
  double correct_ = 0;
};

class MultiClassHead : public Head {
 public:
  explicit MultiClassHead(int n_classes) : k_(n_classes) {
    if (k_ < 3)
      throw std::invalid_argument("`n_classes` must be at least 3 for a multi-class head");
  }
  std::string name() const override { return "multi_class"; }
  int logits_dim() const override { return k_; }
  int label_dim() const override { return 1; }
  int per_example_dim() const override { return 1; }
  void check_labels(const double* y, std::int64_t n, int width) const override {
    if (width != 1) throw std::invalid_argument("a classifier needs a single response column");
    for (std::int64_t i = 0; i < n; ++i) {
      if (std::isnan(y[i]))
        throw std::invalid_argument("the response contains missing values (NA)");
      if (y[i] != std::floor(y[i]))
        throw std::invalid_argument(
            "Labels dtype should be integer: a multi-class response must hold class ids "
            "0..n_classes-1 (or be a factor)");
      if (y[i] < 0 || y[i] > k_ - 1)
        throw std::invalid_argument("Labels must be in [0, n_classes - 1] = [0, " +
                                    std::to_string(k_ - 1) + "]; got " + std::to_string(y[i]));
    }
  }
  std::vector<std::string> prediction_keys() const override {
    return {"logits", "probabilities", "class_ids", "classes"};
  }
  std::string default_prediction_key() const override { return "probabilities"; }
  int key_width(const std::string& key) const override {
    return (key == "logits" || key == "probabilities") ? k_ : 1;
  }
  void predict(const std::string& key, const float* x, int rows, double* out) const override {
    for (int i = 0; i < rows; ++i) {
      const float* xi = x + static_cast<std::size_t>(i) * k_;
      if (key == "logits") {
        for (int j = 0; j < k_; ++j) out[i * k_ + j] = xi[j];
      } else if (key == "probabilities") {
        const float mx = *std::max_element(xi, xi + k_);
        float z = 0.0f;
        for (int j = 0; j < k_; ++j) z += std::exp(xi[j] - mx);
        for (int j = 0; j < k_; ++j) out[i * k_ + j] = std::exp(xi[j] - mx) / z;
      } else if (key == "class_ids" || key == "classes") {
        out[i] = static_cast<double>(std::max_element(xi, xi + k_) - xi);
      } else {
        throw std::invalid_argument("unknown prediction key: " + key);
      }
    }
  }
  std::unique_ptr<MetricAccumulator> new_metrics() const override {
    return std::make_unique<MultiClassMetrics>(k_);
  }

 private:
  // The diagonal of each example's hessian, p_k (1 - p_k) with p the
  // softmax of its logits (what multi-class boosted trees grow from, as
  // TensorFlow 2's do).
  bool unweighted_hessian(const float* x, const float*, int rows, float* out) const override {
    for (int i = 0; i < rows; ++i) {
      const float* xi = x + static_cast<std::size_t>(i) * k_;
      float* hi = out + static_cast<std::size_t>(i) * k_;
      const float mx = *std::max_element(xi, xi + k_);
      float z = 0.0f;
      for (int j = 0; j < k_; ++j) z += std::exp(xi[j] - mx);
      const float lse = mx + std::log(z);
      for (int j = 0; j < k_; ++j) {
        const float p = std::exp(xi[j] - lse);
        hi[j] = p * (1.0f - p);
      }
    }
    return true;
  }
  double unweighted_loss(const float* x, const float* y, int rows, float* pe,
                         float* dl) const override {
    double total = 0.0;
    for (int i = 0; i < rows; ++i) {
      const float* xi = x + static_cast<std::size_t>(i) * k_;
      const float mx = *std::max_element(xi, xi + k_);
      float z = 0.0f;
      for (int j = 0; j < k_; ++j) z += std::exp(xi[j] - mx);
      const int label = static_cast<int>(y[i]);
      const float lse = mx + std::log(z);
      pe[i] = lse - xi[label];
      total += pe[i];
      if (dl) {
        float* di = dl + static_cast<std::size_t>(i) * k_;
        for (int j = 0; j < k_; ++j) di[j] = std::exp(xi[j] - lse) - (j == label ? 1.0f : 0.0f);
      }
    }
    return total;
  }

  int k_;
};

}  // namespace cppestimators
