#include <cppestimators/model/layers/activation.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

#include <cppestimators/math/elementwise.h>

namespace cppestimators {

// The member template first: forward() and backward() instantiate it.
template <class Body>
void Activation::dispatch(Body&& body) const {
  namespace e = elementwise;
  using K = ActivationKind;
  switch (kind_) {
    case K::Relu:
      return body(e::Relu());
    case K::Relu6:
      return body(e::Relu6());
    case K::Elu:
      return body(e::Elu());
    case K::Selu:
      return body(e::Selu());
    case K::Sigmoid:
      return body(e::Sigmoid());
    case K::Tanh:
      return body(e::Tanh());
    case K::Softplus:
      return body(e::Softplus());
    case K::Softsign:
      return body(e::Softsign());
    case K::LeakyRelu:
      return body(e::LeakyRelu());
    case K::Crelu:
      return;
  }
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
  dispatch([&](auto fn) {
    using F = decltype(fn);
#pragma omp simd
    for (std::size_t i = 0; i < m; ++i) a[i] = F::f(z[i], kLeakySlope);
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
  dispatch([&](auto fn) {
    using F = decltype(fn);
#pragma omp simd
    for (std::size_t i = 0; i < m; ++i) dz[i] = da[i] * F::df(z[i], a[i], kLeakySlope);
  });
}

}  // namespace cppestimators
