// Multi-class head: sparse softmax cross-entropy over n_classes >= 3 logits;
// metric accuracy (TF 1.x multi_class_head).
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "head.h"
#include "metric_accumulator.h"

namespace cppestimators {

class MultiClassMetrics : public MetricAccumulator {
 public:
  explicit MultiClassMetrics(int n_classes);

 private:
  void clear() override;
  void accumulate(const float* logits, const float* labels, const float* weights,
                  int rows) override;
  void append(MetricList& out) const override;

  int k_;
  double correct_ = 0;
};

class MultiClassHead : public Head {
 public:
  explicit MultiClassHead(int n_classes);
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
  // the trees start from the log of the classes' weighted shares
  int base_stats_width() const override { return 1 + k_; }
  void add_base_stats(const float* labels, const float* weights, int rows,
                      double* stats) const override;
  void base_logits(const double* stats, float* out) const override;

 private:
  // The diagonal of each example's hessian, p_k (1 - p_k) with p the
  // softmax of its logits (what multi-class boosted trees grow from, as
  // TensorFlow 2's do).
  bool unweighted_hessian(const float* x, const float*, int rows, float* out) const override;
  double unweighted_loss(const float* x, const float* y, int rows, float* pe,
                         float* dl) const override;

  int k_;
};

}  // namespace cppestimators
