#include <cppestimators/model/heads/multi_class.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <stdexcept>

namespace cppestimators {

MultiClassMetrics::MultiClassMetrics(int n_classes) : MetricAccumulator(1), k_(n_classes) {}

void MultiClassMetrics::clear() { correct_ = 0.0; }

void MultiClassMetrics::accumulate(const float* logits, const float* labels, const float* weights,
                                   int rows) {
  for (int i = 0; i < rows; ++i) {
    const float* xi = logits + static_cast<std::size_t>(i) * k_;
    const int cls = static_cast<int>(std::max_element(xi, xi + k_) - xi);
    const double w = weights != nullptr ? weights[i] : 1.0;
    correct_ += (cls == static_cast<int>(labels[i])) ? w : 0.0;
  }
}

void MultiClassMetrics::append(MetricList& out) const {
  out.emplace_back("accuracy", mean(correct_, weight_sum()));
}

MultiClassHead::MultiClassHead(int n_classes) : k_(n_classes) {
  if (k_ < 3) throw std::invalid_argument("`n_classes` must be at least 3 for a multi-class head");
}

void MultiClassHead::add_base_stats(const float* labels, const float* weights, int rows,
                                    double* stats) const {
  for (int r = 0; r < rows; ++r) {
    const double w = weights != nullptr ? weights[r] : 1.0;
    const int y = static_cast<int>(labels[r]);
    stats[0] += w;
    if (y >= 0 && y < k_) stats[1 + y] += w;
  }
}

void MultiClassHead::base_logits(const double* stats, float* out) const {
  if (!(stats[0] > 0.0)) return;
  for (int c = 0; c < k_; ++c)
    out[c] = static_cast<float>(std::log(std::max(1e-7, stats[1 + c] / stats[0])));
}

std::string MultiClassHead::name() const { return "multi_class"; }

int MultiClassHead::logits_dim() const { return k_; }

int MultiClassHead::label_dim() const { return 1; }

int MultiClassHead::per_example_dim() const { return 1; }

void MultiClassHead::check_labels(const double* y, std::int64_t n, int width) const {
  if (width != 1) throw std::invalid_argument("a classifier needs a single response column");
  for (std::int64_t i = 0; i < n; ++i) {
    if (std::isnan(y[i])) throw std::invalid_argument("the response contains missing values (NA)");
    if (y[i] != std::floor(y[i]))
      throw std::invalid_argument(
          "Labels dtype should be integer: a multi-class response must hold class ids "
          "0..n_classes-1 (or be a factor)");
    if (y[i] < 0 || y[i] > k_ - 1)
      throw std::invalid_argument("Labels must be in [0, n_classes - 1] = [0, " +
                                  std::to_string(k_ - 1) + "]; got " + std::to_string(y[i]));
  }
}

std::vector<std::string> MultiClassHead::prediction_keys() const {
  return {"logits", "probabilities", "class_ids", "classes"};
}

std::string MultiClassHead::default_prediction_key() const { return "probabilities"; }

int MultiClassHead::key_width(const std::string& key) const {
  return (key == "logits" || key == "probabilities") ? k_ : 1;
}

void MultiClassHead::predict(const std::string& key, const float* x, int rows, double* out) const {
  for (int i = 0; i < rows; ++i) {
    const float* xi = x + static_cast<std::size_t>(i) * k_;
    if (key == "logits") {
      for (int j = 0; j < k_; ++j) out[i * k_ + j] = xi[j];
    } else if (key == "probabilities") {
      const float mx = *std::max_element(xi, xi + k_);
      float z = 0.0f;
      for (int j = 0; j < k_; ++j) z += std::exp(xi[j] - mx);
      for (int j = 0; j < k_; ++j) out[i * k_ + j] = std::exp(xi[j] - mx) / z;
    } else if (key == "class_ids" || key == "classes") {
      out[i] = static_cast<double>(std::max_element(xi, xi + k_) - xi);
    } else {
      throw std::invalid_argument("unknown prediction key: " + key);
    }
  }
}

std::unique_ptr<MetricAccumulator> MultiClassHead::new_metrics() const {
  return std::make_unique<MultiClassMetrics>(k_);
}

bool MultiClassHead::unweighted_hessian(const float* x, const float*, int rows, float* out) const {
  for (int i = 0; i < rows; ++i) {
    const float* xi = x + static_cast<std::size_t>(i) * k_;
    float* hi = out + static_cast<std::size_t>(i) * k_;
    const float mx = *std::max_element(xi, xi + k_);
    float z = 0.0f;
    for (int j = 0; j < k_; ++j) z += std::exp(xi[j] - mx);
    const float lse = mx + std::log(z);
    for (int j = 0; j < k_; ++j) {
      const float p = std::exp(xi[j] - lse);
      hi[j] = p * (1.0f - p);
    }
  }
  return true;
}

double MultiClassHead::unweighted_loss(const float* x, const float* y, int rows, float* pe,
                                       float* dl) const {
  double total = 0.0;
  for (int i = 0; i < rows; ++i) {
    const float* xi = x + static_cast<std::size_t>(i) * k_;
    const float mx = *std::max_element(xi, xi + k_);
    float z = 0.0f;
    for (int j = 0; j < k_; ++j) z += std::exp(xi[j] - mx);
    const int label = static_cast<int>(y[i]);
    const float lse = mx + std::log(z);
    pe[i] = lse - xi[label];
    total += pe[i];
    if (dl) {
      float* di = dl + static_cast<std::size_t>(i) * k_;
      for (int j = 0; j < k_; ++j) di[j] = std::exp(xi[j] - lse) - (j == label ? 1.0f : 0.0f);
    }
  }
  return total;
}

}  // namespace cppestimators
