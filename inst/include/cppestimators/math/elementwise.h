// The element-wise functions of the graph's ops (model/graph/ops.h) and of
// the dense layers' activations (model/layers/activation.h), each written
// once, so that a canned DNN and the same network written as a model_fn
// compute the same function bit for bit.
//
// A unary functor: f(x, alpha) its value, df(x, y, alpha) its derivative at
// x where y = f(x) (alpha: leaky_relu's slope, unused by the others). A
// binary one: f(a, b) and df(a, b, y, da, db), the derivatives in a and b.
// T is float or double; the comparisons give 1 or 0 and have no gradient.
#pragma once
#include <algorithm>
#include <cmath>
#include <functional>

namespace cppestimators {
namespace elementwise {

// SELU's constants (Klambauer et al. 2017, as TensorFlow's).
constexpr double kSeluScale = 1.0507009873554804934193349852946;
constexpr double kSeluAlpha = 1.6732632423543772848170429916717;

struct Relu {
  template <class T>
  static T f(T x, double) {
    return std::max(x, T(0));  // branch-free (and NaN stays NaN)
  }
  template <class T>
  static T df(T x, T, double) {
    return x > 0 ? T(1) : T(0);
  }
};

struct Relu6 {
  template <class T>
  static T f(T x, double) {
    return std::min(std::max(x, T(0)), T(6));
  }
  template <class T>
  static T df(T x, T, double) {
    return x > 0 && x < 6 ? T(1) : T(0);
  }
};

struct Elu {
  template <class T>
  static T f(T x, double) {
    return x > 0 ? x : std::expm1(x);
  }
  template <class T>
  static T df(T x, T y, double) {
    return x > 0 ? T(1) : y + T(1);
  }
};

struct Selu {
  template <class T>
  static T f(T x, double) {
    return x > 0 ? T(kSeluScale) * x : T(kSeluScale * kSeluAlpha) * std::expm1(x);
  }
  template <class T>
  static T df(T x, T y, double) {
    return x > 0 ? T(kSeluScale) : y + T(kSeluScale * kSeluAlpha);
  }
};

// 1 / (1 + exp(-x)) without overflow: exp of -|x| only.
struct Sigmoid {
  template <class T>
  static T f(T x, double) {
    const T e = std::exp(-std::abs(x));
    const T d = T(1) + e;
    return x >= 0 ? T(1) / d : e / d;
  }
  template <class T>
  static T df(T, T y, double) {
    return y * (T(1) - y);
  }
};

struct Tanh {
  template <class T>
  static T f(T x, double) {
    return std::tanh(x);
  }
  template <class T>
  static T df(T, T y, double) {
    return T(1) - y * y;
  }
};

// log(1 + exp(x)) without overflow.
struct Softplus {
  template <class T>
  static T f(T x, double) {
    return std::max(x, T(0)) + std::log1p(std::exp(-std::abs(x)));
  }
  template <class T>
  static T df(T x, T, double a) {
    return Sigmoid::f(x, a);
  }
};

struct Softsign {
  template <class T>
  static T f(T x, double) {
    return x / (T(1) + std::abs(x));
  }
  template <class T>
  static T df(T x, T, double) {
    const T d = T(1) + std::abs(x);
    return T(1) / (d * d);
  }
};

struct LeakyRelu {
  template <class T>
  static T f(T x, double alpha) {
    return x > 0 ? x : static_cast<T>(alpha) * x;
  }
  template <class T>
  static T df(T x, T, double alpha) {
    return x > 0 ? T(1) : static_cast<T>(alpha);
  }
};

// x * sigmoid(x) (Ramachandran et al. 2017), TensorFlow's tf.nn.swish.
struct Swish {
  template <class T>
  static T f(T x, double a) {
    return x * Sigmoid::f(x, a);
  }
  template <class T>
  static T df(T x, T, double a) {
    const T s = Sigmoid::f(x, a);
    return s * (T(1) + x * (T(1) - s));
  }
};

struct Exp {
  template <class T>
  static T f(T x, double) {
    return std::exp(x);
  }
  template <class T>
  static T df(T, T y, double) {
    return y;
  }
};

struct Log {
  template <class T>
  static T f(T x, double) {
    return std::log(x);
  }
  template <class T>
  static T df(T x, T, double) {
    return T(1) / x;
  }
};

struct Neg {
  template <class T>
  static T f(T x, double) {
    return -x;
  }
  template <class T>
  static T df(T, T, double) {
    return T(-1);
  }
};

struct Square {
  template <class T>
  static T f(T x, double) {
    return x * x;
  }
  template <class T>
  static T df(T x, T, double) {
    return T(2) * x;
  }
};

struct Sqrt {
  template <class T>
  static T f(T x, double) {
    return std::sqrt(x);
  }
  template <class T>
  static T df(T, T y, double) {
    return T(0.5) / y;
  }
};

struct Abs {
  template <class T>
  static T f(T x, double) {
    return std::abs(x);
  }
  template <class T>
  static T df(T x, T, double) {
    return x > 0 ? T(1) : x < 0 ? T(-1) : T(0);
  }
};

struct Sign {
  template <class T>
  static T f(T x, double) {
    return x > 0 ? T(1) : x < 0 ? T(-1) : T(0);
  }
  template <class T>
  static T df(T, T, double) {
    return T(0);
  }
};

struct Identity {
  template <class T>
  static T f(T x, double) {
    return x;
  }
  template <class T>
  static T df(T, T, double) {
    return T(1);
  }
};

// The identity whose gradient is nothing.
struct StopGradient {
  template <class T>
  static T f(T x, double) {
    return x;
  }
  template <class T>
  static T df(T, T, double) {
    return T(0);
  }
};

// Binary functions, numpy-broadcast by the graph.
struct Add {
  template <class T>
  static T f(T a, T b) {
    return a + b;
  }
  template <class T>
  static void df(T, T, T, T& da, T& db) {
    da = T(1), db = T(1);
  }
};

struct Sub {
  template <class T>
  static T f(T a, T b) {
    return a - b;
  }
  template <class T>
  static void df(T, T, T, T& da, T& db) {
    da = T(1), db = T(-1);
  }
};

struct Mul {
  template <class T>
  static T f(T a, T b) {
    return a * b;
  }
  template <class T>
  static void df(T a, T b, T, T& da, T& db) {
    da = b, db = a;
  }
};

// (Integer division is the graph's: TF 1.x's floor division.)
struct Div {
  template <class T>
  static T f(T a, T b) {
    return a / b;
  }
  template <class T>
  static void df(T a, T b, T, T& da, T& db) {
    da = T(1) / b, db = -a / (b * b);
  }
};

struct Maximum {
  template <class T>
  static T f(T a, T b) {
    return std::max(a, b);
  }
  template <class T>
  static void df(T a, T b, T, T& da, T& db) {
    da = a >= b ? T(1) : T(0), db = a >= b ? T(0) : T(1);
  }
};

struct Minimum {
  template <class T>
  static T f(T a, T b) {
    return std::min(a, b);
  }
  template <class T>
  static void df(T a, T b, T, T& da, T& db) {
    da = a <= b ? T(1) : T(0), db = a <= b ? T(0) : T(1);
  }
};

struct Pow {
  template <class T>
  static T f(T a, T b) {
    return std::pow(a, b);
  }
  template <class T>
  static void df(T a, T b, T y, T& da, T& db) {
    da = b * std::pow(a, b - T(1));
    db = a > 0 ? y * std::log(a) : T(0);
  }
};

// Comparisons: 1 or 0, no gradient.
template <class Cmp>
struct Compare {
  template <class T>
  static T f(T a, T b) {
    return Cmp()(a, b) ? T(1) : T(0);
  }
  template <class T>
  static void df(T, T, T, T& da, T& db) {
    da = T(0), db = T(0);
  }
};
using Equal = Compare<std::equal_to<>>;
using NotEqual = Compare<std::not_equal_to<>>;
using Greater = Compare<std::greater<>>;
using GreaterEqual = Compare<std::greater_equal<>>;
using Less = Compare<std::less<>>;
using LessEqual = Compare<std::less_equal<>>;

}  // namespace elementwise
}  // namespace cppestimators
