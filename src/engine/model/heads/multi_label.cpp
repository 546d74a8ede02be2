#include <cppestimators/model/heads/multi_label.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <stdexcept>
#include <utility>

#include <cppestimators/math/pointwise_loss.h>

namespace cppestimators {

namespace {

// The one sigmoid cross-entropy (math/pointwise_loss.h's logistic loss).
const PointwiseLoss& xent() {
  static const PointwiseLoss l{PointwiseKind::Logistic, 0.0};
  return l;
}

}  // namespace

MultiLabelMetrics::MultiLabelMetrics(std::vector<std::string> names)
    : MetricAccumulator(1),
      n_(static_cast<int>(names.size())),
      names_(std::move(names)),
      label_auc_(names_.size()),
      tp_(names_.size()),
      fp_(names_.size()),
      fn_(names_.size()),
      prob_(names_.size()) {}

void MultiLabelMetrics::clear() {
  wrong_ = 0.0;
  auc_.reset();
  for (auto& a : label_auc_) a.reset();
  std::fill(tp_.begin(), tp_.end(), 0.0);
  std::fill(fp_.begin(), fp_.end(), 0.0);
  std::fill(fn_.begin(), fn_.end(), 0.0);
  std::fill(prob_.begin(), prob_.end(), 0.0);
}

void MultiLabelMetrics::accumulate(const float* logits, const float* labels, const float* weights,
                                   int rows) {
  for (int i = 0; i < rows; ++i) {
    const double w = weights != nullptr ? weights[i] : 1.0;
    for (int j = 0; j < n_; ++j) {
      const std::size_t e = static_cast<std::size_t>(i) * n_ + j;
      const float p = static_cast<float>(xent().inverse_link(logits[e]));
      const bool pos = labels[e] > 0.5f, pred = logits[e] > 0.0f;
      auc_.add(p, pos, w);
      label_auc_[static_cast<std::size_t>(j)].add(p, pos, w);
      if (pos != pred) wrong_ += w;
      prob_[static_cast<std::size_t>(j)] += w * p;
      if (pos && pred) tp_[static_cast<std::size_t>(j)] += w;
      if (!pos && pred) fp_[static_cast<std::size_t>(j)] += w;
      if (pos && !pred) fn_[static_cast<std::size_t>(j)] += w;
    }
  }
}

void MultiLabelMetrics::append(MetricList& out) const {
  const auto ratio = [](double a, double b) { return b > 0 ? a / b : 0.0; };
  out.emplace_back("auc", auc_.value(false));
  out.emplace_back("auc_precision_recall", auc_.value(true));
  const double hamming = mean(wrong_, weight_sum() * n_);
  out.emplace_back("hamming_loss", hamming);
  double tp = 0, fp = 0, fn = 0;
  for (int j = 0; j < n_; ++j) {
    const std::size_t s = static_cast<std::size_t>(j);
    tp += tp_[s];
    fp += fp_[s];
    fn += fn_[s];
    const std::string c = "/" + names_[s];
    out.emplace_back("probability_mean" + c, mean(prob_[s], weight_sum()));
    out.emplace_back("auc" + c, label_auc_[s].value(false));
    out.emplace_back("auc_precision_recall" + c, label_auc_[s].value(true));
    out.emplace_back("precision" + c, ratio(tp_[s], tp_[s] + fp_[s]));
    out.emplace_back("recall" + c, ratio(tp_[s], tp_[s] + fn_[s]));
  }
  out.emplace_back("accuracy/positive_threshold_0.5", weight_sum() > 0 ? 1.0 - hamming : 0.0);
  out.emplace_back("precision/positive_threshold_0.5", ratio(tp, tp + fp));
  out.emplace_back("recall/positive_threshold_0.5", ratio(tp, tp + fn));
}

MultiLabelHead::MultiLabelHead(int n_labels, std::vector<std::string> names)
    : n_(n_labels), names_(std::move(names)) {
  if (n_ < 2) throw std::invalid_argument("`n_labels` of a multi-label head must be at least 2");
  if (names_.empty())
    for (int j = 0; j < n_; ++j) names_.push_back("class" + std::to_string(j));
  if (static_cast<int>(names_.size()) != n_)
    throw std::invalid_argument("a multi-label head of " + std::to_string(n_) + " labels needs " +
                                std::to_string(n_) + " label names");
}

void MultiLabelHead::check_labels(const double* y, std::int64_t n, int width) const {
  if (width != n_)
    throw std::invalid_argument("a multi-label head of " + std::to_string(n_) + " labels needs " +
                                std::to_string(n_) + " label columns (multi-hot), got " +
                                std::to_string(width));
  for (std::int64_t i = 0; i < n * width; ++i) {
    if (std::isnan(y[i])) throw std::invalid_argument("the response contains missing values (NA)");
    if (y[i] != 0.0 && y[i] != 1.0)
      throw std::invalid_argument("multi-label labels must be 0 or 1 (multi-hot); got " +
                                  std::to_string(y[i]) + " at row " + std::to_string(i % n + 1));
  }
}

std::vector<std::string> MultiLabelHead::prediction_keys() const {
  return {"logits", "probabilities", "class_ids"};
}

void MultiLabelHead::predict(const std::string& key, const float* x, int rows, double* out) const {
  const std::size_t m = static_cast<std::size_t>(rows) * n_;
  if (key == "logits") {
    for (std::size_t i = 0; i < m; ++i) out[i] = x[i];
  } else if (key == "probabilities") {
    for (std::size_t i = 0; i < m; ++i) out[i] = xent().inverse_link(x[i]);
  } else if (key == "class_ids") {
    for (std::size_t i = 0; i < m; ++i) out[i] = x[i] > 0.0f ? 1.0 : 0.0;
  } else {
    throw std::invalid_argument("unknown prediction key: " + key);
  }
}

std::unique_ptr<MetricAccumulator> MultiLabelHead::new_metrics() const {
  return std::make_unique<MultiLabelMetrics>(names_);
}

double MultiLabelHead::link(double mean) const { return xent().link(mean); }

bool MultiLabelHead::unweighted_hessian(const float* x, const float* y, int rows,
                                        float* out) const {
  const std::size_t m = static_cast<std::size_t>(rows) * n_;
  const double inv = 1.0 / n_;
  float h;
  for (std::size_t i = 0; i < m; ++i) {
    PointwiseLoss::eval<PointwiseKind::Logistic, float>(0.0f, x[i], y[i], nullptr, &h);
    out[i] = static_cast<float>(h * inv);
  }
  return true;
}

double MultiLabelHead::unweighted_loss(const float* x, const float* y, int rows, float* pe,
                                       float* dl) const {
  const double inv = 1.0 / n_;
  double total = 0.0;
  float g;
  for (int i = 0; i < rows; ++i) {
    double sum = 0.0;
    for (int j = 0; j < n_; ++j) {
      const std::size_t e = static_cast<std::size_t>(i) * n_ + j;
      sum += PointwiseLoss::eval<PointwiseKind::Logistic, float>(
          0.0f, x[e], y[e], dl != nullptr ? &g : nullptr, nullptr);
      if (dl != nullptr) dl[e] = static_cast<float>(g * inv);
    }
    if (pe != nullptr) pe[i] = static_cast<float>(sum * inv);
    total += sum * inv;
  }
  return total;
}

}  // namespace cppestimators
