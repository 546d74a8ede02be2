// Activation functions of dense layers, by TF's names. Each maps a
// pre-activation block z (rows x units) to its output (rows x width, where
// width is 2 * units for crelu and units otherwise), and a gradient of the
// output back to one of z.
#pragma once
#include <string>
#include <vector>

namespace cppestimators {

enum class ActivationKind {
  Relu,
  Relu6,
  Elu,
  Selu,
  Sigmoid,
  Tanh,
  Softplus,
  Softsign,
  LeakyRelu,
  Crelu
};

class Activation {
 public:
  static const std::vector<std::string>& names();
  explicit Activation(const std::string& name);
  // Output values per unit: 2 for crelu (concatenation of relu(z), relu(-z)).
  int width_factor() const { return kind_ == ActivationKind::Crelu ? 2 : 1; }

  // z: rows x units; a: rows x (units * width_factor), row-major.
  void forward(const float* z, int rows, int units, float* a) const;

  // dz = da * d(activation)/dz, from z and a.
  void backward(const float* z, const float* a, const float* da, int rows, int units,
                float* dz) const;

 private:
  static constexpr float kSeluScale = 1.0507009873554805f, kSeluAlpha = 1.6732632423543772f;
  // Calls body(std::integral_constant<ActivationKind, kind_>()), so that each
  // loop is compiled for one activation (no branch per value).
  // (Member templates defined in activation.cpp, where forward() and
  // backward() instantiate them inside their loops.)
  template <class Body>
  void dispatch(Body&& body) const;
  template <ActivationKind Kind>
  static float f(float v);
  // Derivative at z = v with output a.
  template <ActivationKind Kind>
  static float df(float v, float a);
  ActivationKind kind_ = ActivationKind::Relu;
};

}  // namespace cppestimators
