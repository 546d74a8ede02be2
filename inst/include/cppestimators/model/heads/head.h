// The Head interface: a head turns logits into losses, gradients, predictions
// and evaluation metrics, as TF 1.x canned heads do. The training loss is the
// SUM of the per-example losses over the batch, each multiplied by its
// example's weight (TF's weight_column) when the caller gives weights. One
// head per file in this folder; the head registry (registry.h, filled in
// src/engine/model/heads/registry.cpp) is the one place that maps names to
// heads.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "metric_accumulator.h"

namespace cppestimators {

class Head {
 public:
  virtual ~Head() = default;
  // The name the registry knows this head by.
  virtual std::string name() const = 0;
  virtual int logits_dim() const = 0;
  virtual int label_dim() const = 0;
  // Columns of the per-example loss (regression: label_dim; classifiers: 1).
  virtual int per_example_dim() const = 0;
  // Throws std::invalid_argument when a label cannot be used by this head.
  virtual void check_labels(const double* labels, std::int64_t n, int width) const = 0;
  // logits, labels: row-major [rows x logits_dim], [rows x label_dim];
  // weights: one per row, or null for weight 1 everywhere.
  // Writes the per-example (unweighted) losses and, when dlogits is not null,
  // d(sum of w * loss)/d(logits). Returns the weighted summed loss.
  double loss(const float* logits, const float* labels, int rows, float* per_example,
              float* dlogits, const float* weights = nullptr) const;
  // Second derivative of each example's (weighted) loss with respect to its
  // logit (rows x logits_dim); false when the head has none (boosted trees
  // need it).
  bool hessian(const float* logits, const float* labels, int rows, float* out,
               const float* weights = nullptr) const;
  // The prediction keys this head emits, in TF's order.
  virtual std::vector<std::string> prediction_keys() const = 0;
  // The key the tensor named "predictions" returns.
  virtual std::string default_prediction_key() const = 0;
  // Number of values per example for a key.
  virtual int key_width(const std::string& key) const = 0;
  // Writes [rows x key_width] values of `key` (row-major).
  virtual void predict(const std::string& key, const float* logits, int rows,
                       double* out) const = 0;
  // Whether the loss is one number of the whole batch (a custom estimator's
  // graph) rather than the sum of per-example losses: its rows cannot be
  // split over threads, and its average is itself.
  virtual bool scalar_loss() const { return false; }
  // A fresh (reset) accumulator of this head's evaluation metrics.
  virtual std::unique_ptr<MetricAccumulator> new_metrics() const = 0;

  // What the boosted trees ask of a head (the trees never test a head's
  // name). The factor of the gradients and hessians the histogram growth
  // grows from (squared error: 1/2, so that its penalties mean xgboost's).
  virtual float tree_scale() const { return 1.0f; }
  // Whether TensorFlow's growth takes the logistic loss's closed form.
  virtual bool logistic_closed_form() const { return false; }
  // The start (base) logits of the histogram growth, from statistics of the
  // labels that sum over batches and processes: base_stats_width() numbers
  // that add_base_stats() adds to, then base_logits() writes logits_dim()
  // logits from them. The default: the weighted mean of each label column
  // through link() (the logit of the constant that fits best by the loss's
  // first-order condition).
  virtual int base_stats_width() const { return 1 + label_dim(); }
  virtual void add_base_stats(const float* labels, const float* weights, int rows,
                              double* stats) const;
  virtual void base_logits(const double* stats, float* out) const;
  // Within one process the exact start where the statistics cannot give it
  // (a quantile of the labels); false when base_logits() is the start.
  virtual bool exact_base_logits(const float* /*labels*/, const float* /*weights*/, int /*rows*/,
                                 float* /*out*/) const {
    return false;
  }
  // The level of the quantile of its rows' residuals a tree's leaf value is
  // renewed to, for logit `column` (absolute error: 0.5; quantile heads:
  // their levels), or a negative number: leaves are the growth's own.
  virtual double leaf_quantile(int /*column*/) const { return -1.0; }
  // The logit of a mean label (identity; log link: log; logistic: logit).
  virtual double link(double mean) const { return mean; }

 private:
  // The head's own loss and second derivative, every example of weight 1.
  virtual double unweighted_loss(const float* logits, const float* labels, int rows,
                                 float* per_example, float* dlogits) const = 0;
  virtual bool unweighted_hessian(const float* logits, const float* labels, int rows,
                                  float* out) const;
  // Multiplies row i of `scaled` (rows x width) by weights[i]; returns the
  // sum of w_i times row i of `losses` (rows x loss_width, left as they are).
  static double apply_weights(const float* weights, int rows, const float* losses, int loss_width,
                              float* scaled, int width);
};

}  // namespace cppestimators
