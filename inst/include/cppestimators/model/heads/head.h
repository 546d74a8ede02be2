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
