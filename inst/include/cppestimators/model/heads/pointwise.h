// The heads of one element-wise loss each (math/pointwise_loss.h): Poisson,
// Tweedie and Gamma regression (log link: predictions e^logit, TF's
// PoissonRegressionHead), Huber, pseudo-Huber and absolute error, logistic
// regression on labels in [0, 1] (TF's LogisticRegressionHead), and the
// quantile head, one logit per level of one label. A quantile head's
// predictions are each row's logits sorted (rearranged), so that they never
// cross whatever the model learnt: sorting never raises the summed pinball
// loss of a row.
//
// Metrics: label/mean and prediction/mean on the predictions' scale (TF's
// regression heads), and deviance (log-link heads: the mean unit deviance,
// glm()'s deviance over the summed weights), mean_absolute_error (Huber,
// pseudo-Huber, absolute error), pinball_loss/<level> and coverage/<level>
// (the share of labels at or below that level's prediction) per level, with
// interval_coverage (labels inside [lowest, highest] level) for two levels
// or more.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "../../math/pointwise_loss.h"
#include "head.h"
#include "metric_accumulator.h"

namespace cppestimators {

class PointwiseHead;

class PointwiseMetrics : public MetricAccumulator {
 public:
  explicit PointwiseMetrics(const PointwiseHead& head);

 private:
  void clear() override;
  void accumulate(const float* logits, const float* labels, const float* weights,
                  int rows) override;
  void append(MetricList& out) const override;

  const PointwiseHead& head_;
  double label_sum_ = 0, pred_sum_ = 0, deviance_ = 0, abs_ = 0, inside_ = 0;
  std::vector<double> pinball_, below_;  // per quantile level
  std::vector<double> row_;              // one row's sorted predictions
};

class PointwiseHead : public Head {
 public:
  // kind: the registry's name ("poisson_regression", "tweedie", ...);
  // a: Tweedie's power or Huber's delta; levels: the quantile head's levels
  // (strictly increasing, in (0, 1)); d: the label dimension.
  PointwiseHead(const std::string& kind, double a, std::vector<double> levels, int d);

  std::string name() const override { return name_; }
  int logits_dim() const override;
  int label_dim() const override { return d_; }
  int per_example_dim() const override { return logits_dim(); }
  void check_labels(const double* y, std::int64_t n, int width) const override;
  std::vector<std::string> prediction_keys() const override;
  std::string default_prediction_key() const override { return "predictions"; }
  int key_width(const std::string& key) const override;
  void predict(const std::string& key, const float* logits, int rows, double* out) const override;
  std::unique_ptr<MetricAccumulator> new_metrics() const override;

  bool exact_base_logits(const float* labels, const float* weights, int rows,
                         float* out) const override;
  double leaf_quantile(int column) const override;
  double link(double mean) const override { return loss_.link(mean); }

  const std::vector<double>& levels() const { return levels_; }
  // The loss of logit column c (a quantile head's level c).
  const PointwiseLoss& loss(int c) const {
    return levels_.empty() ? loss_ : per_level_[static_cast<std::size_t>(c)];
  }
  const PointwiseLoss& loss() const { return loss_; }
  // A row's predictions from its logits (quantiles sorted).
  void row_predictions(const float* logits, double* out) const;

 private:
  bool unweighted_hessian(const float* x, const float* y, int rows, float* out) const override;
  double unweighted_loss(const float* x, const float* y, int rows, float* pe,
                         float* dl) const override;
  // One pass of the kind's own loop: losses into pe (returning their sum),
  // gradients into dl, second derivatives into hess (each may be null).
  double each_element(const float* x, const float* y, int rows, float* pe, float* dl,
                      float* hess) const;

  std::string name_;
  PointwiseLoss loss_;
  std::vector<double> levels_;
  std::vector<PointwiseLoss> per_level_;
  int d_;
};

// The weighted `level` quantile of (value, weight) pairs: the smallest value
// whose weight at or below it reaches `level` times the total (a minimizer
// of the weighted pinball loss). Reorders the pairs; NaN when empty.
double weighted_quantile(std::vector<std::pair<double, double>>& value_weight, double level);
// The same of the pairs in [first, last), reordered in place.
double weighted_quantile(std::pair<double, double>* first, std::pair<double, double>* last,
                         double level);

}  // namespace cppestimators
