// FtrlOptimizer (FTRL-Proximal, TF's ApplyFtrlV2 with l2 shrinkage).
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "optimizer.h"

namespace cppestimators {

class FtrlOptimizer : public Optimizer {
 public:
  FtrlOptimizer(const Spec& spec, std::string scope);
  std::vector<std::string> slot_names() const override;
  std::vector<float> slot_initial_values() const override;
  void apply_dense(float* p, const float* g, float* const* s, std::size_t n) override;

 private:
  float power_, init_, l1_, l2_, shrink_;
};

}  // namespace cppestimators
