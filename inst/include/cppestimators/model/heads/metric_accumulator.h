// Streaming evaluation metrics (TF 1.x head.py and metrics_impl): accumulated
// batch by batch, reset before each evaluation, of fixed size whatever the
// number of batches. The base class keeps what every head reports (loss,
// average_loss, batch and example counts); each head's accumulator adds only
// its own metrics through the three private hooks. With example weights (TF's
// weight_column) every mean is weighted: sum(w * v) / sum(w), 0 when the
// weights sum to 0; `loss` stays the unweighted mean over batches of each
// batch's (weighted) training loss, as TF's Estimator reports it.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace cppestimators {

// Metric name -> value.
using MetricList = std::vector<std::pair<std::string, double>>;

class MetricAccumulator {
 public:
  explicit MetricAccumulator(int per_example_dim);
  virtual ~MetricAccumulator() = default;
  MetricAccumulator(const MetricAccumulator&) = delete;
  MetricAccumulator& operator=(const MetricAccumulator&) = delete;

  void reset();

  // One evaluation batch: logits [rows x logits_dim], labels [rows x label_dim],
  // per-example (unweighted) losses [rows x per_example_dim], the batch's
  // training loss, the examples' weights (one per row; null: all 1).
  void update(const float* logits, const float* labels, const float* per_example, int rows,
              double batch_loss, const float* weights = nullptr);

  // Every metric, names sorted.
  MetricList result() const;

  std::int64_t batches() const { return batches_; }

 protected:
  // Whether result() reports average_loss (a custom estimator's reports
  // only loss, as TF's Estimator did for a model_fn's spec).
  void report_average_loss(bool yes) { report_average_loss_ = yes; }
  // Examples seen since the last reset(), and the sum of their weights (their
  // number when unweighted).
  std::int64_t examples() const { return examples_; }
  double weight_sum() const { return weight_sum_; }
  static double mean(double sum, double n) { return n > 0 ? sum / n : 0.0; }

 private:
  // The head's own state: zero it, add one batch, append its metrics.
  virtual void clear() = 0;
  virtual void accumulate(const float* logits, const float* labels, const float* weights,
                          int rows) = 0;
  virtual void append(MetricList& out) const = 0;

  int per_example_dim_;
  bool report_average_loss_ = true;
  std::int64_t batches_ = 0, examples_ = 0;
  double batch_loss_sum_ = 0, loss_elem_sum_ = 0;
  double loss_weight_sum_ = 0, weight_sum_ = 0;  // of the losses' and the examples' weights
};

}  // namespace cppestimators
