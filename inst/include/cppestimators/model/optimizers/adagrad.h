// AdagradOptimizer: A += g^2; w -= lr * g / sqrt(A) (no epsilon).
#pragma once
#include <cmath>

#include "optimizer.h"

namespace cppestimators {

class AdagradOptimizer : public Optimizer {
 public:
  AdagradOptimizer(const Spec& spec, std::string scope)
      : Optimizer(spec, std::move(scope)), init_(param("initial_accumulator_value")) {}
  std::vector<std::string> slot_names() const override { return {"Adagrad"}; }
  std::vector<float> slot_initial_values() const override { return {init_}; }
  void apply_dense(float* p, const float* g, float* const* s, std::size_t n) override {
    float* acc = s[0];
    for (std::size_t i = 0; i < n; ++i) {
      acc[i] += g[i] * g[i];
      p[i] -= lr_ * g[i] / std::sqrt(acc[i]);
    }
  }

 private:
  float init_;
};

}  // namespace cppestimators
