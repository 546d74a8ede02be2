#include <cppestimators/model/heads/regression.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <stdexcept>

namespace cppestimators {

RegressionMetrics::RegressionMetrics(int label_dim) : MetricAccumulator(label_dim), d_(label_dim) {}

void RegressionMetrics::clear() { label_sum_ = pred_sum_ = 0.0; }

void RegressionMetrics::accumulate(const float* logits, const float* labels, const float* weights,
                                   int rows) {
  const int m = rows * d_;
  if (weights == nullptr) {
    for (int i = 0; i < m; ++i) {
      label_sum_ += labels[i];
      pred_sum_ += logits[i];
    }
    return;
  }
  for (int i = 0; i < m; ++i) {
    const double w = weights[i / d_];
    label_sum_ += w * labels[i];
    pred_sum_ += w * logits[i];
  }
}

void RegressionMetrics::append(MetricList& out) const {
  const double m = weight_sum() * d_;  // the weights broadcast over the label dimension
  out.emplace_back("label/mean", mean(label_sum_, m));
  out.emplace_back("prediction/mean", mean(pred_sum_, m));
}

RegressionHead::RegressionHead(int label_dim) : d_(label_dim) {
  if (d_ <= 0) throw std::invalid_argument("`label_dimension` must be a positive integer");
}

std::string RegressionHead::name() const { return "regression"; }

int RegressionHead::logits_dim() const { return d_; }

int RegressionHead::label_dim() const { return d_; }

int RegressionHead::per_example_dim() const { return d_; }

void RegressionHead::check_labels(const double* y, std::int64_t n, int width) const {
  if (width != d_)
    throw std::invalid_argument("Mismatched label shape. Expected labels dimension=" +
                                std::to_string(d_) + ", received " + std::to_string(width));
  for (std::int64_t i = 0; i < n * width; ++i) {
    if (std::fabs(y[i]) <= static_cast<double>(std::numeric_limits<float>::max())) continue;
    const std::string row = std::to_string(i % n + 1);
    if (std::isnan(y[i]))
      throw std::invalid_argument("the response contains missing values (NA), first at row " + row);
    if (std::isinf(y[i]))
      throw std::invalid_argument("the response contains infinite values, first at row " + row);
    if (std::fabs(y[i]) > static_cast<double>(std::numeric_limits<float>::max()))
      throw std::invalid_argument(
          "the response contains values beyond the float32 range (|y| > 3.4e38), first at row " +
          row);
  }
}

std::vector<std::string> RegressionHead::prediction_keys() const { return {"predictions"}; }

std::string RegressionHead::default_prediction_key() const { return "predictions"; }

int RegressionHead::key_width(const std::string&) const { return d_; }

void RegressionHead::predict(const std::string& key, const float* logits, int rows,
                             double* out) const {
  if (key != "predictions") throw std::invalid_argument("unknown prediction key: " + key);
  for (int i = 0; i < rows * d_; ++i) out[i] = logits[i];
}

std::unique_ptr<MetricAccumulator> RegressionHead::new_metrics() const {
  return std::make_unique<RegressionMetrics>(d_);
}

bool RegressionHead::unweighted_hessian(const float*, const float*, int rows, float* out) const {
  std::fill(out, out + static_cast<std::size_t>(rows) * label_dim(),
            2.0f);  // of the squared error
  return true;
}

double RegressionHead::unweighted_loss(const float* logits, const float* labels, int rows,
                                       float* pe, float* dlogits) const {
  double total = 0.0;
  const int m = rows * d_;
  for (int i = 0; i < m; ++i) {
    const float diff = logits[i] - labels[i];
    pe[i] = diff * diff;
    total += pe[i];
    if (dlogits) dlogits[i] = 2.0f * diff;
  }
  return total;
}

}  // namespace cppestimators
