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
#include <array>
#include <cstdint>
#include <cmath>
#include <cstddef>
#include <type_traits>

#include "fast_math.h"

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
  // adds it: y log y - y + log(2 pi y) / 2 for y > 1, 0 for 0 <= y <= 1
  // (whole counts below 256 from a table: counts are what Poisson labels
  // mostly are, and the log was a third of a linear model's step).
  static double stirling(double y) {
    if (y <= 1.0) return 0.0;
    if (y < 256.0 && y == static_cast<double>(static_cast<int>(y)))
      return kStirling[static_cast<std::size_t>(y)];
    return stirling_formula(y);
  }
  static double stirling_formula(double y) {
    return (y + 0.5) * std::log(y) - y + 0.5 * std::log(2.0 * 3.14159265358979323846);
  }
  static const std::array<double, 256> kStirling;

  // d stirling(y) / dy: log y + 1 / (2 y) for y > 1, else 0 (the gradient
  // TensorFlow's log_poisson_loss passes to its targets).
  static double stirling_grad(double y) { return y <= 1.0 ? 0.0 : std::log(y) + 0.5 / y; }

  // The arithmetic eval() needs, for T = double (the C library's: float64
  // graphs, metrics), float (the engine's own exp, math/fast_math.h, as the
  // binary head's logistic loss) and four float lanes (the heads' loops).
  template <class T>
  static T splat(double v) {
    return T{} + static_cast<float>(v);  // (0 + v: a scalar, or v in every lane)
  }
  static double exp_of(double x) { return std::exp(std::min(x, 80.0)); }
  static float exp_of(float x) {
    float out;
    fast::exp_any<float, std::int32_t>(std::min(x, 80.0f), out);
    return out;
  }
  static double sqrt_of(double x) { return std::sqrt(x); }
  static float sqrt_of(float x) { return std::sqrt(x); }
  static double stirling_of(double y) { return stirling(y); }
  static float stirling_of(float y) { return static_cast<float>(stirling(y)); }
#ifdef CPPESTIMATORS_VECTOR_TYPES
  static fast::f4 exp_of(const fast::f4& x) {
    fast::f4 out;
    fast::exp_any<fast::f4, fast::i4>(x > 80.0f ? fast::f4{} + 80.0f : x, out);
    return out;
  }
  static fast::f4 sqrt_of(const fast::f4& x) {
    fast::f4 out;
    for (int i = 0; i < 4; ++i) out[i] = std::sqrt(x[i]);
    return out;
  }
  static fast::f4 stirling_of(const fast::f4& y) {
    fast::f4 out;
    for (int i = 0; i < 4; ++i) out[i] = static_cast<float>(stirling(y[i]));
    return out;
  }
#endif

  // The loss of kind K at logit f and label y, with its first derivative
  // into *g and its second into *h when they are not null: one definition
  // per kind, each exponential computed once, in T (double, float, or four
  // float lanes: comparisons and ?: act per lane). value() and
  // derivatives() dispatch to it; the heads' loops dispatch once per batch
  // (with_kind()) and run the kind's own loop over lanes.
  // inline: called per element
  template <PointwiseKind K, class T>
  static T eval(const T& a, const T& f, const T& y, T* g, T* h) {
    const T zero = splat<T>(0), one = splat<T>(1);
    if constexpr (K == PointwiseKind::Poisson) {
      const T mu = exp_of(f);
      if (g != nullptr) *g = mu - y;
      if (h != nullptr) *h = mu;
      return mu - y * f + stirling_of(y);
    } else if constexpr (K == PointwiseKind::Tweedie) {
      const T e1 = exp_of((one - a) * f), e2 = exp_of((splat<T>(2) - a) * f);
      if (g != nullptr) *g = e2 - y * e1;
      if (h != nullptr) *h = (splat<T>(2) - a) * e2 - y * (one - a) * e1;
      return e2 / (splat<T>(2) - a) - y * e1 / (one - a);
    } else if constexpr (K == PointwiseKind::Gamma) {
      const T e = y * exp_of(zero - f);
      if (g != nullptr) *g = one - e;
      if (h != nullptr) *h = e;
      return e + f;
    } else if constexpr (K == PointwiseKind::Huber) {
      const T r = f - y, ar = r < zero ? zero - r : r;
      if (g != nullptr) *g = r > a ? a : (r < zero - a ? zero - a : r);
      if (h != nullptr) *h = one;
      return ar <= a ? splat<T>(0.5) * r * r : a * (ar - splat<T>(0.5) * a);
    } else if constexpr (K == PointwiseKind::PseudoHuber) {
      const T z = (f - y) / a, sq = one + z * z, rs = sqrt_of(sq);
      if (g != nullptr) *g = (f - y) / rs;
      if (h != nullptr) *h = one / (sq * rs);
      return a * a * (rs - one);
    } else if constexpr (K == PointwiseKind::Absolute) {
      if (g != nullptr) *g = f > y ? one : (f < y ? zero - one : zero);
      if (h != nullptr) *h = one;
      return f > y ? f - y : y - f;
    } else if constexpr (K == PointwiseKind::Quantile) {
      if (g != nullptr) *g = f >= y ? one - a : zero - a;
      if (h != nullptr) *h = one;
      return y >= f ? a * (y - f) : (one - a) * (f - y);
    } else if constexpr (std::is_same<T, double>::value) {  // Logistic, in double
      const T e = std::exp(-std::fabs(f));                  // in (0, 1]
      const T p = f >= 0 ? 1 / (1 + e) : e / (1 + e);
      if (g != nullptr) *g = p - y;
      if (h != nullptr) *h = p * (1 - p);
      return std::max(f, T(0)) - f * y + std::log1p(e);
    } else {  // Logistic in float or lanes: fast_math's
      T l, gl, hl;
      if constexpr (std::is_same<T, float>::value) {
        fast::logistic_lanes<float, std::int32_t>(f, y, l, gl, hl);
      } else {
        fast::logistic_lanes<T, fast::i4>(f, y, l, gl, hl);
      }
      if (g != nullptr) *g = gl;
      if (h != nullptr) *h = hl;
      return l;
    }
  }

  // Calls fn(std::integral_constant<PointwiseKind, K>) for this loss's kind.
  template <class Fn>
  auto with_kind(Fn&& fn) const {
    using K = PointwiseKind;
    switch (kind) {
      case K::Poisson:
        return fn(std::integral_constant<K, K::Poisson>{});
      case K::Tweedie:
        return fn(std::integral_constant<K, K::Tweedie>{});
      case K::Gamma:
        return fn(std::integral_constant<K, K::Gamma>{});
      case K::Huber:
        return fn(std::integral_constant<K, K::Huber>{});
      case K::PseudoHuber:
        return fn(std::integral_constant<K, K::PseudoHuber>{});
      case K::Absolute:
        return fn(std::integral_constant<K, K::Absolute>{});
      case K::Quantile:
        return fn(std::integral_constant<K, K::Quantile>{});
      case K::Logistic:
        break;
    }
    return fn(std::integral_constant<K, K::Logistic>{});
  }

  double value(double f, double y) const {
    return with_kind(
        [&](auto k) { return eval<decltype(k)::value, double>(a, f, y, nullptr, nullptr); });
  }

  // The first (g) and second (h) derivatives of value() in f.
  void derivatives(double f, double y, double& g, double& h) const {
    with_kind([&](auto k) { return eval<decltype(k)::value, double>(a, f, y, &g, &h); });
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

// stirling() of 0, 1, ..., 255 (0 for 0 and 1).
inline const std::array<double, 256> PointwiseLoss::kStirling = [] {
  std::array<double, 256> t{};
  for (int i = 2; i < 256; ++i) t[static_cast<std::size_t>(i)] = stirling_formula(i);
  return t;
}();

}  // namespace cppestimators
