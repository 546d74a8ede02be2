// Activation functions of dense layers, by TF's names, computed by the
// functors the graph's ops use (math/elementwise.h). Each maps a
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
  // leaky_relu's slope (TensorFlow's default; the canned DNN has no other)
  static constexpr double kLeakySlope = 0.2;
  // Calls body(F()) with F the activation's functor (math/elementwise.h,
  // shared with the graph's ops), so that each loop is compiled for one
  // activation (no branch per value). (Defined in activation.cpp, where
  // forward() and backward() instantiate it.)
  template <class Body>
  void dispatch(Body&& body) const;
  ActivationKind kind_ = ActivationKind::Relu;
};

}  // namespace cppestimators
