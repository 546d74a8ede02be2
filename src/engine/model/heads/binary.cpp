#include <cppestimators/model/heads/binary.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <cppestimators/math/fast_math.h>

namespace cppestimators {

float sigmoid(float x) { return 1.0f / (1.0f + std::exp(-x)); }

BinaryMetrics::BinaryMetrics() : MetricAccumulator(1) {}

void BinaryMetrics::clear() {
  label_sum_ = pred_sum_ = 0.0;
  correct_ = tp_ = fp_ = fn_ = 0.0;
  auc_.reset();
}

void BinaryMetrics::accumulate(const float* logits, const float* labels, const float* weights,
                               int rows) {
  for (int i = 0; i < rows; ++i) {
    const double w = weights != nullptr ? weights[i] : 1.0;
    const float p = sigmoid(logits[i]);
    const float y = labels[i];
    const float cls = logits[i] > 0.0f ? 1.0f : 0.0f;
    label_sum_ += w * y;
    pred_sum_ += w * p;
    correct_ += (cls == y) ? w : 0.0;
    const bool pos = y != 0.0f, pred_pos = cls != 0.0f;
    if (pos && pred_pos) tp_ += w;
    if (!pos && pred_pos) fp_ += w;
    if (pos && !pred_pos) fn_ += w;
    auc_.add(p, pos, w);
  }
}

void BinaryMetrics::append(MetricList& out) const {
  const double n = weight_sum();
  const double label_mean = mean(label_sum_, n);
  out.emplace_back("accuracy", mean(correct_, n));
  out.emplace_back("accuracy_baseline", std::max(label_mean, 1.0 - label_mean));
  out.emplace_back("auc", auc_.value(false));
  out.emplace_back("auc_precision_recall", auc_.value(true));
  out.emplace_back("label/mean", label_mean);
  out.emplace_back("precision", tp_ + fp_ > 0 ? tp_ / (tp_ + fp_) : 0.0);
  out.emplace_back("prediction/mean", mean(pred_sum_, n));
  out.emplace_back("recall", tp_ + fn_ > 0 ? tp_ / (tp_ + fn_) : 0.0);
}

std::string BinaryHead::name() const { return "binary"; }

int BinaryHead::logits_dim() const { return 1; }

int BinaryHead::label_dim() const { return 1; }

int BinaryHead::per_example_dim() const { return 1; }

void BinaryHead::check_labels(const double* y, std::int64_t n, int width) const {
  if (width != 1) throw std::invalid_argument("a classifier needs a single response column");
  for (std::int64_t i = 0; i < n; ++i) {
    if (std::isnan(y[i])) throw std::invalid_argument("the response contains missing values (NA)");
    if (y[i] < 0.0 || y[i] > 1.0)
      throw std::invalid_argument(
          "Labels must be in [0, 1] for a binary classifier (n_classes = 2); got " +
          std::to_string(y[i]));
  }
}

std::vector<std::string> BinaryHead::prediction_keys() const {
  return {"logits", "logistic", "probabilities", "class_ids", "classes"};
}

std::string BinaryHead::default_prediction_key() const { return "logistic"; }

int BinaryHead::key_width(const std::string& key) const { return key == "probabilities" ? 2 : 1; }

void BinaryHead::predict(const std::string& key, const float* x, int rows, double* out) const {
  for (int i = 0; i < rows; ++i) {
    const float p = sigmoid(x[i]);
    if (key == "logits")
      out[i] = x[i];
    else if (key == "logistic")
      out[i] = p;
    else if (key == "probabilities") {
      out[2 * i] = 1.0f - p;
      out[2 * i + 1] = p;
    } else if (key == "class_ids" || key == "classes")
      out[i] = x[i] > 0.0f ? 1.0 : 0.0;
    else
      throw std::invalid_argument("unknown prediction key: " + key);
  }
}

double BinaryHead::link(double mean) const {
  const double p = std::min(1.0 - 1e-7, std::max(1e-7, mean));
  return std::log(p / (1.0 - p));
}

std::unique_ptr<MetricAccumulator> BinaryHead::new_metrics() const {
  return std::make_unique<BinaryMetrics>();
}

double BinaryHead::unweighted_loss(const float* x, const float* y, int rows, float* pe,
                                   float* dl) const {
  return fast::logistic_loss(x, y, rows, pe, dl, nullptr);
}

bool BinaryHead::unweighted_hessian(const float* x, const float*, int rows, float* out) const {
  fast::logistic_hessian(x, rows, out);
  return true;
}

}  // namespace cppestimators
