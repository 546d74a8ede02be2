// AdagradOptimizer: A += g^2; w -= lr * g / sqrt(A) (no epsilon).
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "optimizer.h"

namespace cppestimators {

class AdagradOptimizer : public Optimizer {
 public:
  AdagradOptimizer(const Spec& spec, std::string scope);
  std::vector<std::string> slot_names() const override;
  std::vector<float> slot_initial_values() const override;
  void apply_dense(float* p, const float* g, float* const* s, std::size_t n) override;
  bool keeps_rows_without_gradient() const override { return true; }

 private:
  float init_;
};

}  // namespace cppestimators
