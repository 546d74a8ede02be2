// The Head interface: a head turns logits into losses, gradients, predictions
// and evaluation metrics, as TF 1.x canned heads do. The training loss is the
// SUM of the per-example losses over the batch. One head per file in this
// folder; registry.h is the one place that maps names to heads.
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
  // logits, labels: row-major [rows x logits_dim], [rows x label_dim].
  // Writes per-example losses and, when dlogits is not null, d(sum loss)/d(logits).
  // Returns the summed loss.
  virtual double loss(const float* logits, const float* labels, int rows, float* per_example,
                      float* dlogits) const = 0;
  // Second derivative of each example's loss with respect to its logit
  // (rows x logits_dim); false when the head has none (boosted trees need it).
  virtual bool hessian(const float* /*logits*/, const float* /*labels*/, int /*rows*/,
                       float* /*out*/) const {
    return false;
  }
  // The prediction keys this head emits, in TF's order.
  virtual std::vector<std::string> prediction_keys() const = 0;
  // The key the tensor named "predictions" returns.
  virtual std::string default_prediction_key() const = 0;
  // Number of values per example for a key.
  virtual int key_width(const std::string& key) const = 0;
  // Writes [rows x key_width] values of `key` (row-major).
  virtual void predict(const std::string& key, const float* logits, int rows,
                       double* out) const = 0;
  // A fresh (reset) accumulator of this head's evaluation metrics.
  virtual std::unique_ptr<MetricAccumulator> new_metrics() const = 0;
};

}  // namespace cppestimators
