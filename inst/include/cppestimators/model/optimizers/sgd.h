// GradientDescentOptimizer: w -= lr * g.
#pragma once
#include <cstddef>

#include "optimizer.h"

namespace cppestimators {

class SgdOptimizer : public Optimizer {
 public:
  using Optimizer::Optimizer;
  void apply_dense(float* p, const float* g, float* const* s, std::size_t n) override;
  bool keeps_rows_without_gradient() const override { return true; }
};

}  // namespace cppestimators
