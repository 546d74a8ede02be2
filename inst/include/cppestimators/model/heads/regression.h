// Regression head: squared error, predictions are the logits; metrics
// label/mean and prediction/mean (TF 1.x regression_head).
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "head.h"
#include "metric_accumulator.h"

namespace cppestimators {

class RegressionMetrics : public MetricAccumulator {
 public:
  explicit RegressionMetrics(int label_dim);

 private:
  void clear() override;
  void accumulate(const float* logits, const float* labels, const float* weights,
                  int rows) override;
  void append(MetricList& out) const override;

  int d_;
  double label_sum_ = 0, pred_sum_ = 0;
};

class RegressionHead : public Head {
 public:
  explicit RegressionHead(int label_dim);
  std::string name() const override;
  int logits_dim() const override;
  int label_dim() const override;
  int per_example_dim() const override;
  void check_labels(const double* y, std::int64_t n, int width) const override;
  std::vector<std::string> prediction_keys() const override;
  std::string default_prediction_key() const override;
  int key_width(const std::string& key) const override;
  void predict(const std::string& key, const float* logits, int rows, double* out) const override;
  std::unique_ptr<MetricAccumulator> new_metrics() const override;
  // squared error on xgboost's scale, (y - f)^2 / 2, for the trees
  float tree_scale() const override { return 0.5f; }

 private:
  bool unweighted_hessian(const float*, const float*, int rows, float* out) const override;
  double unweighted_loss(const float* logits, const float* labels, int rows, float* pe,
                         float* dlogits) const override;

  int d_;
};

}  // namespace cppestimators
