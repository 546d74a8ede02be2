// Binary classification head: sigmoid cross-entropy on one logit; metrics
// accuracy, accuracy_baseline, auc, auc_precision_recall, label/mean,
// precision, prediction/mean, recall (TF 1.x binary_classification_head),
// each weighted by the examples' weights as TF's weighted metrics are.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "auc.h"
#include "head.h"
#include "metric_accumulator.h"

namespace cppestimators {

float sigmoid(float x);

class BinaryMetrics : public MetricAccumulator {
 public:
  BinaryMetrics();

 private:
  void clear() override;
  void accumulate(const float* logits, const float* labels, const float* weights,
                  int rows) override;
  void append(MetricList& out) const override;

  double label_sum_ = 0, pred_sum_ = 0;
  double correct_ = 0, tp_ = 0, fp_ = 0, fn_ = 0;
  ThresholdAuc auc_;
};

class BinaryHead : public Head {
 public:
  std::string name() const override;
  int logits_dim() const override;
  int label_dim() const override;
  int per_example_dim() const override;
  void check_labels(const double* y, std::int64_t n, int width) const override;
  std::vector<std::string> prediction_keys() const override;
  std::string default_prediction_key() const override;
  int key_width(const std::string& key) const override;
  void predict(const std::string& key, const float* x, int rows, double* out) const override;
  std::unique_ptr<MetricAccumulator> new_metrics() const override;
  bool logistic_closed_form() const override { return true; }
  double link(double mean) const override;

 private:
  double unweighted_loss(const float* x, const float* y, int rows, float* pe,
                         float* dl) const override;
  bool unweighted_hessian(const float* x, const float*, int rows, float* out) const override;
};

}  // namespace cppestimators
