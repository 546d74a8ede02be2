#include <cppestimators/model/layers/activation.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace cppestimators {

// The member templates first: forward() and backward() instantiate them.
template <class Body>
void Activation::dispatch(Body&& body) const {
  using K = ActivationKind;
  switch (kind_) {
    case K::Relu:
      return body(std::integral_constant<K, K::Relu>());
    case K::Relu6:
      return body(std::integral_constant<K, K::Relu6>());
    case K::Elu:
      return body(std::integral_constant<K, K::Elu>());
    case K::Selu:
      return body(std::integral_constant<K, K::Selu>());
    case K::Sigmoid:
      return body(std::integral_constant<K, K::Sigmoid>());
    case K::Tanh:
      return body(std::integral_constant<K, K::Tanh>());
    case K::Softplus:
      return body(std::integral_constant<K, K::Softplus>());
    case K::Softsign:
      return body(std::integral_constant<K, K::Softsign>());
    case K::LeakyRelu:
      return body(std::integral_constant<K, K::LeakyRelu>());
    case K::Crelu:
      return;
  }
}

template <ActivationKind Kind>
float Activation::f(float v) {
  switch (Kind) {
    case ActivationKind::Relu:
      return std::max(v, 0.0f);
    case ActivationKind::Relu6:
      return std::min(std::max(v, 0.0f), 6.0f);
    case ActivationKind::Elu:
      return v > 0.0f ? v : std::expm1(v);
    case ActivationKind::Selu:
      return kSeluScale * (v > 0.0f ? v : kSeluAlpha * std::expm1(v));
    case ActivationKind::Sigmoid:
      return 1.0f / (1.0f + std::exp(-v));
    case ActivationKind::Tanh:
      return std::tanh(v);
    case ActivationKind::Softplus:
      return v > 20.0f ? v : std::log1p(std::exp(v));
    case ActivationKind::Softsign:
      return v / (1.0f + std::fabs(v));
    case ActivationKind::LeakyRelu:
      return v > 0.0f ? v : 0.2f * v;
    case ActivationKind::Crelu:
      break;
  }
  return v;
}

template <ActivationKind Kind>
float Activation::df(float v, float a) {
  switch (Kind) {
    case ActivationKind::Relu:
      return v > 0.0f ? 1.0f : 0.0f;
    case ActivationKind::Relu6:
      return (v > 0.0f && v < 6.0f) ? 1.0f : 0.0f;
    case ActivationKind::Elu:
      return v > 0.0f ? 1.0f : a + 1.0f;
    case ActivationKind::Selu:
      return v > 0.0f ? kSeluScale : a + kSeluScale * kSeluAlpha;
    case ActivationKind::Sigmoid:
      return a * (1.0f - a);
    case ActivationKind::Tanh:
      return 1.0f - a * a;
    case ActivationKind::Softplus:
      return 1.0f / (1.0f + std::exp(-v));
    case ActivationKind::Softsign: {
      const float d = 1.0f + std::fabs(v);
      return 1.0f / (d * d);
    }
    case ActivationKind::LeakyRelu:
      return v > 0.0f ? 1.0f : 0.2f;
    case ActivationKind::Crelu:
      break;
  }
  return 1.0f;
}

const std::vector<std::string>& Activation::names() {
  static const std::vector<std::string> n = {"relu",       "relu6", "elu",      "selu",
                                             "sigmoid",    "tanh",  "softplus", "softsign",
                                             "leaky_relu", "crelu"};
  return n;
}

Activation::Activation(const std::string& name) {
  const auto& n = names();
  const auto it = std::find(n.begin(), n.end(), name);
  if (it == n.end()) {
    std::string known;
    for (const auto& s : n) known += (known.empty() ? "" : ", ") + s;
    throw std::invalid_argument(
        "'" + name + "' is not a known activation function in the 'tf$nn' module (known: " + known +
        ")");
  }
  kind_ = static_cast<ActivationKind>(it - n.begin());
}

void Activation::forward(const float* z, int rows, int units, float* a) const {
  if (kind_ == ActivationKind::Crelu) {
    for (int r = 0; r < rows; ++r)
      for (int j = 0; j < units; ++j) {
        const float v = z[static_cast<std::size_t>(r) * units + j];
        a[static_cast<std::size_t>(r) * 2 * units + j] = std::max(v, 0.0f);
        a[static_cast<std::size_t>(r) * 2 * units + units + j] = std::max(-v, 0.0f);
      }
    return;
  }
  const std::size_t m = static_cast<std::size_t>(rows) * units;
  dispatch([&](auto kind) {
#pragma omp simd
    for (std::size_t i = 0; i < m; ++i) a[i] = f<decltype(kind)::value>(z[i]);
  });
}

void Activation::backward(const float* z, const float* a, const float* da, int rows, int units,
                          float* dz) const {
  if (kind_ == ActivationKind::Crelu) {
    for (int r = 0; r < rows; ++r)
      for (int j = 0; j < units; ++j) {
        const float v = z[static_cast<std::size_t>(r) * units + j];
        const float* g = da + static_cast<std::size_t>(r) * 2 * units;
        dz[static_cast<std::size_t>(r) * units + j] =
            (v > 0.0f ? g[j] : 0.0f) - (v < 0.0f ? g[units + j] : 0.0f);
      }
    return;
  }
  const std::size_t m = static_cast<std::size_t>(rows) * units;
  if (kind_ == ActivationKind::Relu) {  // the common case, as a select of loaded values so that
                                        // it vectorizes
#pragma omp simd
    for (std::size_t i = 0; i < m; ++i) {
      const float g = da[i];
      dz[i] = z[i] > 0.0f ? g : 0.0f;
    }
    return;
  }
  dispatch([&](auto kind) {
#pragma omp simd
    for (std::size_t i = 0; i < m; ++i) dz[i] = da[i] * df<decltype(kind)::value>(z[i], a[i]);
  });
}

}  // namespace cppestimators
