// GradientDescentOptimizer: w -= lr * g.
#pragma once
#include "optimizer.h"

namespace cppestimators {

class SgdOptimizer : public Optimizer {
 public:
  using Optimizer::Optimizer;
  void apply_dense(float* p, const float* g, float* const*, std::size_t n) override {
    for (std::size_t i = 0; i < n; ++i) p[i] -= lr_ * g[i];
  }
};

}  // namespace cppestimators
