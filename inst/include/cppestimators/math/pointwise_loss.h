// The element-wise losses of the heads beyond squared error and softmax,
// each written once: its value, its first and second derivatives with
// respect to the logit f, the inverse link that turns a logit into a
// prediction, and the unit deviance its metrics report. The heads
// (model/heads/pointwise.h, multi_label.h), through them every estimator
// family and every growth of the boosted trees, and the graph's
// "pointwise_loss" op (tf$nn$log_poisson_loss) all call these; nothing else
// writes these formulas.
//
//   poisson    exp(f) - y f (+ Stirling's log(y!) for y > 1: TensorFlow's
//              log_poisson_loss(compute_full_loss = TRUE)), log link
//   tweedie    -y e^{(1-p) f} / (1-p) + e^{(2-p) f} / (2-p), log link,
//              variance power p in (1, 2) (xgboost's reg:tweedie)
//   gamma      y e^{-f} + f, log link (xgboost's reg:gamma)
//   huber      r^2 / 2 for |r| <= d, else d (|r| - d / 2), r = f - y
//              (TensorFlow's huber_loss); second derivative 1 (LightGBM's)
//   pseudo_huber  d^2 (sqrt(1 + (r/d)^2) - 1) (xgboost's reg:pseudohubererror)
//   absolute   |r|; second derivative 1, tree leaves renewed as medians
//   quantile   the pinball loss at level tau: tau (y - f) for y >= f, else
//              (1 - tau) (f - y); second derivative 1, tree leaves renewed
//              as the leaf's residual quantile (LightGBM's)
//   logistic   sigmoid cross-entropy on labels in [0, 1]
#pragma once
#include <algorithm>
#include <cmath>

namespace cppestimators {

enum class PointwiseKind {
  Poisson,
  Tweedie,
  Gamma,
  Huber,
  PseudoHuber,
  Absolute,
  Quantile,
  Logistic
};

struct PointwiseLoss {
  PointwiseKind kind = PointwiseKind::Poisson;
  // Tweedie: the variance power; Huber: delta; quantile: the level.
  double a = 0.0;

  // e^x kept finite (a logit far out in a first step must not give inf).
  static double safe_exp(double x) { return std::exp(std::min(x, 80.0)); }

  // Stirling's approximation of log(y!) as TensorFlow's log_poisson_loss
  // adds it: y log y - y + log(2 pi y) / 2 for y > 1, 0 for 0 <= y <= 1.
  static double stirling(double y) {
    if (y <= 1.0) return 0.0;
    return y * std::log(y) - y + 0.5 * std::log(2.0 * 3.14159265358979323846 * y);
  }

  // d stirling(y) / dy: log y + 1 / (2 y) for y > 1, else 0 (the gradient
  // TensorFlow's log_poisson_loss passes to its targets).
  static double stirling_grad(double y) { return y <= 1.0 ? 0.0 : std::log(y) + 0.5 / y; }

  // inline: called per element by the heads' loss loops
  double value(double f, double y) const {
    switch (kind) {
      case PointwiseKind::Poisson:
        return safe_exp(f) - y * f + stirling(y);
      case PointwiseKind::Tweedie:
        return -y * safe_exp((1.0 - a) * f) / (1.0 - a) + safe_exp((2.0 - a) * f) / (2.0 - a);
      case PointwiseKind::Gamma:
        return y * safe_exp(-f) + f;
      case PointwiseKind::Huber: {
        const double r = std::fabs(f - y);
        return r <= a ? 0.5 * r * r : a * (r - 0.5 * a);
      }
      case PointwiseKind::PseudoHuber: {
        const double z = (f - y) / a;
        return a * a * (std::sqrt(1.0 + z * z) - 1.0);
      }
      case PointwiseKind::Absolute:
        return std::fabs(f - y);
      case PointwiseKind::Quantile:
        return y >= f ? a * (y - f) : (1.0 - a) * (f - y);
      case PointwiseKind::Logistic:
        return std::max(f, 0.0) - f * y + std::log1p(std::exp(-std::fabs(f)));
    }
    return 0.0;
  }

  // The first (g) and second (h) derivatives of value() in f.
  // inline: called per element by the heads' gradient loops
  void derivatives(double f, double y, double& g, double& h) const {
    switch (kind) {
      case PointwiseKind::Poisson: {
        const double mu = safe_exp(f);
        g = mu - y;
        h = mu;
        return;
      }
      case PointwiseKind::Tweedie: {
        const double e1 = safe_exp((1.0 - a) * f), e2 = safe_exp((2.0 - a) * f);
        g = -y * e1 + e2;
        h = -y * (1.0 - a) * e1 + (2.0 - a) * e2;
        return;
      }
      case PointwiseKind::Gamma: {
        const double e = y * safe_exp(-f);
        g = 1.0 - e;
        h = e;
        return;
      }
      case PointwiseKind::Huber:
        g = std::min(a, std::max(-a, f - y));
        h = 1.0;
        return;
      case PointwiseKind::PseudoHuber: {
        const double z = (f - y) / a, s = 1.0 + z * z;
        g = (f - y) / std::sqrt(s);
        h = 1.0 / (s * std::sqrt(s));
        return;
      }
      case PointwiseKind::Absolute:
        g = f > y ? 1.0 : (f < y ? -1.0 : 0.0);
        h = 1.0;
        return;
      case PointwiseKind::Quantile:
        g = f >= y ? 1.0 - a : -a;
        h = 1.0;
        return;
      case PointwiseKind::Logistic: {
        const double p = 1.0 / (1.0 + std::exp(-f));
        g = p - y;
        h = p * (1.0 - p);
        return;
      }
    }
  }

  // Whether predictions are e^f (log link).
  bool log_link() const {
    return kind == PointwiseKind::Poisson || kind == PointwiseKind::Tweedie ||
           kind == PointwiseKind::Gamma;
  }

  // The prediction of a logit: e^f (log link), the sigmoid (logistic), else f.
  double inverse_link(double f) const {
    if (log_link()) return safe_exp(f);
    if (kind == PointwiseKind::Logistic) return 1.0 / (1.0 + std::exp(-f));
    return f;
  }

  // The logit of a prediction (inverse of inverse_link(), for start values).
  double link(double mu) const {
    if (log_link()) return std::log(std::max(mu, 1e-30));
    if (kind == PointwiseKind::Logistic) {
      const double p = std::min(1.0 - 1e-7, std::max(1e-7, mu));
      return std::log(p / (1.0 - p));
    }
    return mu;
  }

  // Whether the loss has a deviance of its own (the log-link families).
  bool has_deviance() const { return log_link(); }

  // The unit deviance of label y at prediction mu (log-link families):
  // Poisson 2 (y log(y / mu) - (y - mu)), Gamma 2 ((y - mu) / mu - log(y /
  // mu)), Tweedie 2 (y^{2-p} / ((1-p)(2-p)) - y mu^{1-p} / (1-p) + mu^{2-p}
  // / (2-p)): what glm() and xgboost report, summed over examples.
  double deviance(double y, double mu) const {
    switch (kind) {
      case PointwiseKind::Poisson:
        return 2.0 * ((y > 0.0 ? y * std::log(y / mu) : 0.0) - (y - mu));
      case PointwiseKind::Gamma:
        return 2.0 * ((y - mu) / mu - std::log(y / mu));
      case PointwiseKind::Tweedie:
        return 2.0 * (std::pow(y, 2.0 - a) / ((1.0 - a) * (2.0 - a)) -
                      y * std::pow(mu, 1.0 - a) / (1.0 - a) + std::pow(mu, 2.0 - a) / (2.0 - a));
      default:
        return 0.0;
    }
  }
};

}  // namespace cppestimators
