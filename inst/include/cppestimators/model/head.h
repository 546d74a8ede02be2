// Heads turn logits into losses, gradients and predictions, as TF 1.x canned
// heads do: squared error (regression), sigmoid cross-entropy (binary) and
// sparse softmax cross-entropy (multi-class). The training loss is the SUM
// of the per-example losses over the batch.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace cppestimators {

enum class HeadKind { Regression, Binary, MultiClass };

class Head {
 public:
  virtual ~Head() = default;
  virtual HeadKind kind() const = 0;
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
  // The prediction keys this head emits, in TF's order.
  virtual std::vector<std::string> prediction_keys() const = 0;
  // Number of values per example for a key.
  virtual int key_width(const std::string& key) const = 0;
  // Writes [rows x key_width] values of `key` (row-major).
  virtual void predict(const std::string& key, const float* logits, int rows, double* out) const = 0;
};

inline float sigmoid(float x) { return 1.0f / (1.0f + std::exp(-x)); }

class RegressionHead : public Head {
 public:
  explicit RegressionHead(int label_dim) : d_(label_dim) {
    if (d_ <= 0) throw std::invalid_argument("`label_dimension` must be a positive integer");
  }
  HeadKind kind() const override { return HeadKind::Regression; }
  int logits_dim() const override { return d_; }
  int label_dim() const override { return d_; }
  int per_example_dim() const override { return d_; }
  void check_labels(const double* y, std::int64_t n, int width) const override {
    if (width != d_)
      throw std::invalid_argument("Mismatched label shape. Expected labels dimension=" +
                                  std::to_string(d_) + ", received " + std::to_string(width));
    for (std::int64_t i = 0; i < n * width; ++i)
      if (std::isnan(y[i])) throw std::invalid_argument("the response contains missing values (NA)");
  }
  double loss(const float* logits, const float* labels, int rows, float* pe,
              float* dlogits) const override {
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
  std::vector<std::string> prediction_keys() const override { return {"predictions"}; }
  int key_width(const std::string&) const override { return d_; }
  void predict(const std::string& key, const float* logits, int rows, double* out) const override {
    if (key != "predictions") throw std::invalid_argument("unknown prediction key: " + key);
    for (int i = 0; i < rows * d_; ++i) out[i] = logits[i];
  }

 private:
  int d_;
};

class BinaryHead : public Head {
 public:
  HeadKind kind() const override { return HeadKind::Binary; }
  int logits_dim() const override { return 1; }
  int label_dim() const override { return 1; }
  int per_example_dim() const override { return 1; }
  void check_labels(const double* y, std::int64_t n, int width) const override {
    if (width != 1) throw std::invalid_argument("a classifier needs a single response column");
    for (std::int64_t i = 0; i < n; ++i) {
      if (std::isnan(y[i])) throw std::invalid_argument("the response contains missing values (NA)");
      if (y[i] < 0.0 || y[i] > 1.0)
        throw std::invalid_argument("Labels must be in [0, 1] for a binary classifier (n_classes = 2); got " +
                                    std::to_string(y[i]));
    }
  }
  double loss(const float* x, const float* y, int rows, float* pe, float* dl) const override {
    double total = 0.0;
    for (int i = 0; i < rows; ++i) {
      const float xi = x[i];
      pe[i] = std::max(xi, 0.0f) - xi * y[i] + std::log1p(std::exp(-std::fabs(xi)));
      total += pe[i];
      if (dl) dl[i] = sigmoid(xi) - y[i];
    }
    return total;
  }
  std::vector<std::string> prediction_keys() const override {
    return {"logits", "logistic", "probabilities", "class_ids", "classes"};
  }
  int key_width(const std::string& key) const override { return key == "probabilities" ? 2 : 1; }
  void predict(const std::string& key, const float* x, int rows, double* out) const override {
    for (int i = 0; i < rows; ++i) {
      const float p = sigmoid(x[i]);
      if (key == "logits") out[i] = x[i];
      else if (key == "logistic") out[i] = p;
      else if (key == "probabilities") { out[2 * i] = 1.0f - p; out[2 * i + 1] = p; }
      else if (key == "class_ids" || key == "classes") out[i] = x[i] > 0.0f ? 1.0 : 0.0;
      else throw std::invalid_argument("unknown prediction key: " + key);
    }
  }
};

class MultiClassHead : public Head {
 public:
  explicit MultiClassHead(int n_classes) : k_(n_classes) {
    if (k_ < 3) throw std::invalid_argument("`n_classes` must be at least 3 for a multi-class head");
  }
  HeadKind kind() const override { return HeadKind::MultiClass; }
  int logits_dim() const override { return k_; }
  int label_dim() const override { return 1; }
  int per_example_dim() const override { return 1; }
  void check_labels(const double* y, std::int64_t n, int width) const override {
    if (width != 1) throw std::invalid_argument("a classifier needs a single response column");
    for (std::int64_t i = 0; i < n; ++i) {
      if (std::isnan(y[i])) throw std::invalid_argument("the response contains missing values (NA)");
      if (y[i] != std::floor(y[i]))
        throw std::invalid_argument("Labels dtype should be integer: a multi-class response must hold class ids 0..n_classes-1 (or be a factor)");
      if (y[i] < 0 || y[i] > k_ - 1)
        throw std::invalid_argument("Labels must be in [0, n_classes - 1] = [0, " +
                                    std::to_string(k_ - 1) + "]; got " + std::to_string(y[i]));
    }
  }
  double loss(const float* x, const float* y, int rows, float* pe, float* dl) const override {
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
  std::vector<std::string> prediction_keys() const override {
    return {"logits", "probabilities", "class_ids", "classes"};
  }
  int key_width(const std::string& key) const override {
    return (key == "logits" || key == "probabilities") ? k_ : 1;
  }
  void predict(const std::string& key, const float* x, int rows, double* out) const override {
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

 private:
  int k_;
};

inline std::unique_ptr<Head> make_head(HeadKind kind, int n) {
  switch (kind) {
    case HeadKind::Regression: return std::make_unique<RegressionHead>(n);
    case HeadKind::Binary: return std::make_unique<BinaryHead>();
    case HeadKind::MultiClass: return std::make_unique<MultiClassHead>(n);
  }
  throw std::invalid_argument("unknown head");
}

}  // namespace cppestimators
