// Multi-label head (TF's MultiLabelHead): one logit per label, sigmoid
// cross-entropy per label, each example's loss the mean over its labels;
// labels are multi-hot rows (0 or 1 per label). A label that is never on is
// allowed. Predictions: logits, probabilities (a sigmoid per label) and
// class_ids (1 where the probability passes 0.5). Metrics, each weighted by
// the examples' weights, named as TF's: auc and auc_precision_recall over
// every (example, label) pair (tf.metrics.auc's), accuracy, precision and
// recall at threshold 0.5 over the pairs (accuracy/positive_threshold_0.5,
// ...), and per label i (0-based) probability_mean/class<i>, auc/class<i>
// and auc_precision_recall/class<i> (TF's class-based metrics, for every
// label; with the labels' names, <name> for class<i>, as TF's with a
// label_vocabulary); ours: hamming_loss (the share of pairs predicted wrong
// at 0.5, 1 - accuracy) and precision/class<i>, recall/class<i>.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "auc.h"
#include "head.h"
#include "metric_accumulator.h"

namespace cppestimators {

class MultiLabelMetrics : public MetricAccumulator {
 public:
  explicit MultiLabelMetrics(std::vector<std::string> names);

 private:
  void clear() override;
  void accumulate(const float* logits, const float* labels, const float* weights,
                  int rows) override;
  void append(MetricList& out) const override;

  int n_;
  std::vector<std::string> names_;  // "class0", ... or the labels' names
  double wrong_ = 0;
  ThresholdAuc auc_;
  std::vector<ThresholdAuc> label_auc_;
  std::vector<double> tp_, fp_, fn_, prob_;
};

class MultiLabelHead : public Head {
 public:
  // names: the labels' names for the metrics, or empty
  explicit MultiLabelHead(int n_labels, std::vector<std::string> names = {});
  std::string name() const override { return "multi_label"; }
  int logits_dim() const override { return n_; }
  int label_dim() const override { return n_; }
  int per_example_dim() const override { return 1; }
  void check_labels(const double* y, std::int64_t n, int width) const override;
  std::vector<std::string> prediction_keys() const override;
  std::string default_prediction_key() const override { return "probabilities"; }
  int key_width(const std::string&) const override { return n_; }
  void predict(const std::string& key, const float* x, int rows, double* out) const override;
  std::unique_ptr<MetricAccumulator> new_metrics() const override;
  double link(double mean) const override;

 private:
  bool unweighted_hessian(const float* x, const float* y, int rows, float* out) const override;
  double unweighted_loss(const float* x, const float* y, int rows, float* pe,
                         float* dl) const override;

  int n_;
  std::vector<std::string> names_;
};

}  // namespace cppestimators
