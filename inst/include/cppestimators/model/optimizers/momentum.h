// MomentumOptimizer (TF 1.x): accum = momentum * accum + g, then
// w -= lr * accum, or with Nesterov's momentum w -= lr * (g + momentum *
// accum). One slot, "Momentum", starting at zero.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "optimizer.h"

namespace cppestimators {

class MomentumOptimizer : public Optimizer {
 public:
  MomentumOptimizer(const Spec& spec, std::string scope);
  std::vector<std::string> slot_names() const override;
  std::vector<float> slot_initial_values() const override;
  void apply_dense(float* p, const float* g, float* const* s, std::size_t n) override;

 private:
  float momentum_;
  bool nesterov_;
};

}  // namespace cppestimators
