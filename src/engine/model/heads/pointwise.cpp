#include <cppestimators/model/heads/pointwise.h>

#include <cppestimators/math/fast_math.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <utility>

namespace cppestimators {

namespace {

PointwiseKind kind_of(const std::string& name) {
  if (name == "poisson_regression") return PointwiseKind::Poisson;
  if (name == "tweedie") return PointwiseKind::Tweedie;
  if (name == "gamma_regression") return PointwiseKind::Gamma;
  if (name == "huber") return PointwiseKind::Huber;
  if (name == "pseudo_huber") return PointwiseKind::PseudoHuber;
  if (name == "absolute_error") return PointwiseKind::Absolute;
  if (name == "quantile") return PointwiseKind::Quantile;
  if (name == "logistic_regression") return PointwiseKind::Logistic;
  throw std::invalid_argument("unknown element-wise head '" + name + "'");
}

// A level as metric names show it: 0.1, 0.5, 0.975.
std::string level_name(double level) {
  std::ostringstream s;
  s.precision(6);
  s << level;
  return s.str();
}

}  // namespace

double weighted_quantile(std::vector<std::pair<double, double>>& vw, double level) {
  return weighted_quantile(vw.data(), vw.data() + vw.size(), level);
}

double weighted_quantile(std::pair<double, double>* first, std::pair<double, double>* last,
                         double level) {
  if (first == last) return std::numeric_limits<double>::quiet_NaN();
  std::sort(first, last);
  double total = 0.0;
  for (auto* p = first; p != last; ++p) total += p->second;
  const double target = level * total;
  double seen = 0.0;
  for (auto* p = first; p != last; ++p) {
    seen += p->second;
    if (seen >= target && p->second > 0.0) return p->first;
  }
  return (last - 1)->first;
}

PointwiseMetrics::PointwiseMetrics(const PointwiseHead& head)
    : MetricAccumulator(head.per_example_dim()),
      head_(head),
      pinball_(head.levels().size(), 0.0),
      below_(head.levels().size(), 0.0),
      row_(static_cast<std::size_t>(head.logits_dim()), 0.0) {}

void PointwiseMetrics::clear() {
  label_sum_ = pred_sum_ = deviance_ = abs_ = inside_ = 0.0;
  std::fill(pinball_.begin(), pinball_.end(), 0.0);
  std::fill(below_.begin(), below_.end(), 0.0);
}

void PointwiseMetrics::accumulate(const float* logits, const float* labels, const float* weights,
                                  int rows) {
  const int k = head_.logits_dim(), d = head_.label_dim();
  const std::size_t nl = pinball_.size();
  const PointwiseLoss& loss = head_.loss();
  for (int i = 0; i < rows; ++i) {
    const double w = weights != nullptr ? weights[i] : 1.0;
    head_.row_predictions(logits + static_cast<std::size_t>(i) * k, row_.data());
    const float* y = labels + static_cast<std::size_t>(i) * d;
    if (nl > 0) {
      const double yi = y[0];
      label_sum_ += w * yi;
      for (std::size_t l = 0; l < nl; ++l) {
        pred_sum_ += w * row_[l];
        pinball_[l] += w * head_.loss(static_cast<int>(l)).value(row_[l], yi);
        below_[l] += yi <= row_[l] ? w : 0.0;
      }
      if (nl >= 2 && yi >= row_.front() && yi <= row_.back()) inside_ += w;
      continue;
    }
    for (int j = 0; j < d; ++j) {
      const double mu = row_[static_cast<std::size_t>(j)];
      label_sum_ += w * y[j];
      pred_sum_ += w * mu;
      if (loss.has_deviance()) deviance_ += w * loss.deviance(y[j], mu);
      abs_ += w * std::fabs(mu - y[j]);
    }
  }
}

void PointwiseMetrics::append(MetricList& out) const {
  const double n = weight_sum();
  const PointwiseLoss& loss = head_.loss();
  const std::size_t nl = pinball_.size();
  if (nl > 0) {
    out.emplace_back("label/mean", mean(label_sum_, n));
    out.emplace_back("prediction/mean", mean(pred_sum_, n * static_cast<double>(nl)));
    for (std::size_t l = 0; l < nl; ++l) {
      const std::string lv = level_name(head_.levels()[l]);
      out.emplace_back("pinball_loss/" + lv, mean(pinball_[l], n));
      out.emplace_back("coverage/" + lv, mean(below_[l], n));
    }
    if (nl >= 2) out.emplace_back("interval_coverage", mean(inside_, n));
    return;
  }
  const double m = n * head_.label_dim();
  out.emplace_back("label/mean", mean(label_sum_, m));
  out.emplace_back("prediction/mean", mean(pred_sum_, m));
  if (loss.has_deviance()) out.emplace_back("deviance", mean(deviance_, m));
  if (loss.kind == PointwiseKind::Huber || loss.kind == PointwiseKind::PseudoHuber ||
      loss.kind == PointwiseKind::Absolute)
    out.emplace_back("mean_absolute_error", mean(abs_, m));
}

PointwiseHead::PointwiseHead(const std::string& kind, double a, std::vector<double> levels, int d)
    : name_(kind), levels_(std::move(levels)), d_(d) {
  loss_.kind = kind_of(kind);
  loss_.a = a;
  if (d_ <= 0) throw std::invalid_argument("`label_dimension` must be a positive integer");
  switch (loss_.kind) {
    case PointwiseKind::Tweedie:
      if (!(a > 1.0 && a < 2.0))
        throw std::invalid_argument("`power` of a Tweedie head must be in (1, 2); got " +
                                    level_name(a));
      break;
    case PointwiseKind::Huber:
    case PointwiseKind::PseudoHuber:
      if (!(a > 0.0) || !std::isfinite(a))
        throw std::invalid_argument("`delta` of a Huber head must be a positive number; got " +
                                    level_name(a));
      break;
    case PointwiseKind::Quantile:
      if (levels_.empty())
        throw std::invalid_argument("a quantile head needs at least one level in `levels`");
      if (d_ != 1) throw std::invalid_argument("a quantile head predicts one label column");
      for (std::size_t l = 0; l < levels_.size(); ++l) {
        if (!(levels_[l] > 0.0 && levels_[l] < 1.0))
          throw std::invalid_argument("quantile `levels` must be in (0, 1); got " +
                                      level_name(levels_[l]));
        if (l > 0 && !(levels_[l] > levels_[l - 1]))
          throw std::invalid_argument("quantile `levels` must be strictly increasing");
        PointwiseLoss q = loss_;
        q.a = levels_[l];
        per_level_.push_back(q);
      }
      break;
    default:
      break;
  }
  if (loss_.kind != PointwiseKind::Quantile) levels_.clear();
}

int PointwiseHead::logits_dim() const {
  return levels_.empty() ? d_ : static_cast<int>(levels_.size());
}

void PointwiseHead::check_labels(const double* y, std::int64_t n, int width) const {
  if (width != d_)
    throw std::invalid_argument("Mismatched label shape. Expected labels dimension=" +
                                std::to_string(d_) + ", received " + std::to_string(width));
  // the smallest label this head takes, and whether it may be that one
  double low = -std::numeric_limits<double>::infinity();
  bool low_ok = true;
  double high = std::numeric_limits<double>::infinity();
  std::string range;
  switch (loss_.kind) {
    case PointwiseKind::Poisson:
    case PointwiseKind::Tweedie:
      low = 0.0;
      range = "must be >= 0";
      break;
    case PointwiseKind::Gamma:
      low = 0.0;
      low_ok = false;
      range = "must be > 0";
      break;
    case PointwiseKind::Logistic:
      low = 0.0;
      high = 1.0;
      range = "must be in [0, 1]";
      break;
    default:
      break;
  }
  const double big = static_cast<double>(std::numeric_limits<float>::max());
  for (std::int64_t i = 0; i < n * width; ++i) {
    const double v = y[i];
    const bool in = std::fabs(v) <= big && (v > low || (low_ok && v == low)) && v <= high;
    if (in) continue;
    const std::string row = std::to_string(i % n + 1);
    if (std::isnan(v))
      throw std::invalid_argument("the response contains missing values (NA), first at row " + row);
    if (!(std::fabs(v) <= big))
      throw std::invalid_argument(
          "the response contains infinite or out-of-range values, first at row " + row);
    throw std::invalid_argument("labels of a " + name_ + " head " + range + "; got " +
                                level_name(v) + " at row " + row);
  }
}

std::vector<std::string> PointwiseHead::prediction_keys() const {
  return {"predictions", "logits"};
}

int PointwiseHead::key_width(const std::string&) const { return logits_dim(); }

void PointwiseHead::row_predictions(const float* x, double* out) const {
  const int k = logits_dim();
  for (int j = 0; j < k; ++j) out[j] = loss_.inverse_link(x[j]);
  if (!levels_.empty()) std::sort(out, out + k);
}

void PointwiseHead::predict(const std::string& key, const float* x, int rows, double* out) const {
  const std::size_t k = static_cast<std::size_t>(logits_dim());
  if (key == "logits") {
    for (std::size_t i = 0; i < rows * k; ++i) out[i] = x[i];
    return;
  }
  if (key != "predictions") throw std::invalid_argument("unknown prediction key: " + key);
  for (int i = 0; i < rows; ++i) row_predictions(x + i * k, out + i * k);
}

std::unique_ptr<MetricAccumulator> PointwiseHead::new_metrics() const {
  return std::make_unique<PointwiseMetrics>(*this);
}

bool PointwiseHead::exact_base_logits(const float* labels, const float* weights, int rows,
                                      float* out) const {
  double level;
  if (loss_.kind == PointwiseKind::Absolute) {
    level = 0.5;
  } else if (loss_.kind == PointwiseKind::Quantile) {
    level = -1.0;
  } else {
    return false;
  }
  if (rows <= 0 || labels == nullptr) return false;
  std::vector<std::pair<double, double>> vw(static_cast<std::size_t>(rows));
  for (int c = 0; c < logits_dim(); ++c) {
    const int j = levels_.empty() ? c : 0;
    for (int r = 0; r < rows; ++r)
      vw[static_cast<std::size_t>(r)] = {labels[static_cast<std::size_t>(r) * d_ + j],
                                         weights != nullptr ? weights[r] : 1.0};
    out[c] = static_cast<float>(weighted_quantile(vw, level < 0 ? levels_[c] : level));
  }
  return true;
}

double PointwiseHead::leaf_quantile(int column) const {
  if (loss_.kind == PointwiseKind::Absolute) return 0.5;
  if (loss_.kind == PointwiseKind::Quantile) return levels_[static_cast<std::size_t>(column)];
  return -1.0;
}

bool PointwiseHead::unweighted_hessian(const float* x, const float* y, int rows, float* out) const {
  if (y == nullptr)
    throw std::logic_error("internal: the " + name_ + " head's hessian needs labels");
  each_element(x, y, rows, nullptr, nullptr, out);
  return true;
}

double PointwiseHead::unweighted_loss(const float* x, const float* y, int rows, float* pe,
                                      float* dl) const {
  return each_element(x, y, rows, pe, dl, nullptr);
}

double PointwiseHead::each_element(const float* x, const float* y, int rows, float* pe, float* dl,
                                   float* hess) const {
  const int k = logits_dim(), d = d_;
  return loss_.with_kind([&](auto kind) {
    constexpr PointwiseKind K = decltype(kind)::value;
    double total = 0.0;
    if (levels_.size() <= 1) {
      // labels and logits side by side, one parameter: lanes of four, then
      // the rest one by one
      const std::size_t m = static_cast<std::size_t>(rows) * k;
      const float a = static_cast<float>(levels_.empty() ? loss_.a : levels_[0]);
      std::size_t i = 0;
#ifdef CPPESTIMATORS_VECTOR_TYPES
      using fast::f4;
      const f4 a4 = f4{} + a;
      f4 sum{};
      for (; i + 4 <= m; i += 4) {
        f4 xv, yv, g, h;
        __builtin_memcpy(&xv, x + i, sizeof xv);
        __builtin_memcpy(&yv, y + i, sizeof yv);
        const f4 v = PointwiseLoss::eval<K, f4>(a4, xv, yv, dl != nullptr ? &g : nullptr,
                                                hess != nullptr ? &h : nullptr);
        if (pe != nullptr) __builtin_memcpy(pe + i, &v, sizeof v);
        if (dl != nullptr) __builtin_memcpy(dl + i, &g, sizeof g);
        if (hess != nullptr) __builtin_memcpy(hess + i, &h, sizeof h);
        sum += v;
      }
      total = (static_cast<double>(sum[0]) + sum[1]) + (static_cast<double>(sum[2]) + sum[3]);
#endif
      for (; i < m; ++i) {
        float g, h;
        const float v = PointwiseLoss::eval<K, float>(a, x[i], y[i], dl != nullptr ? &g : nullptr,
                                                      hess != nullptr ? &h : nullptr);
        if (pe != nullptr) pe[i] = v;
        if (dl != nullptr) dl[i] = g;
        if (hess != nullptr) hess[i] = h;
        total += v;
      }
      return pe != nullptr ? total : 0.0;
    }
    // a quantile head: logit c is level c of the row's one label
    float g, h;
    for (int i = 0; i < rows; ++i)
      for (int c = 0; c < k; ++c) {
        const std::size_t e = static_cast<std::size_t>(i) * k + c;
        const float v = PointwiseLoss::eval<K, float>(
            static_cast<float>(levels_[static_cast<std::size_t>(c)]), x[e], y[i],
            dl != nullptr ? &g : nullptr, hess != nullptr ? &h : nullptr);
        if (pe != nullptr) {
          pe[e] = v;
          total += v;
        }
        if (dl != nullptr) dl[e] = g;
        if (hess != nullptr) hess[e] = h;
      }
    return total;
  });
}

}  // namespace cppestimators
