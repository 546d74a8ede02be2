// RMSPropOptimizer: the mean square starts at one; momentum slot at zero.
// Sparse updates leave rows that were not looked up alone (TF 1.x).
#pragma once
#include <cmath>

#include "optimizer.h"

namespace cppestimators {

class RmsPropOptimizer : public Optimizer {
 public:
  RmsPropOptimizer(const Spec& spec, std::string scope)
      : Optimizer(spec, std::move(scope)),
        decay_(param("decay")),
        momentum_(param("momentum")),
        eps_(param("epsilon")) {}
  std::vector<std::string> slot_names() const override { return {"RMSProp", "RMSProp_1"}; }
  std::vector<float> slot_initial_values() const override { return {1.0f, 0.0f}; }
  void apply_dense(float* p, const float* g, float* const* s, std::size_t n) override {
    float* ms = s[0];
    float* mom = s[1];
    for (std::size_t i = 0; i < n; ++i) {
      ms[i] += (g[i] * g[i] - ms[i]) * (1.0f - decay_);
      mom[i] = momentum_ * mom[i] + lr_ * g[i] / std::sqrt(ms[i] + eps_);
      p[i] -= mom[i];
    }
  }

 private:
  float decay_, momentum_, eps_;
};

}  // namespace cppestimators
