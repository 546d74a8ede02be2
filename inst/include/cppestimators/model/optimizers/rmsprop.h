// RMSPropOptimizer: the mean square starts at one; momentum slot at zero.
// Sparse updates leave rows that were not looked up alone (TF 1.x).
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "optimizer.h"

namespace cppestimators {

class RmsPropOptimizer : public Optimizer {
 public:
  RmsPropOptimizer(const Spec& spec, std::string scope);
  std::vector<std::string> slot_names() const override;
  std::vector<float> slot_initial_values() const override;
  void apply_dense(float* p, const float* g, float* const* s, std::size_t n) override;

 private:
  float decay_, momentum_, eps_;
};

}  // namespace cppestimators
