// AdamOptimizer: bias correction folded into the step size, epsilon added
// after it; beta1_power and beta2_power are variables of their own. Its
// sparse update still decays the moments of every row (TF 1.x), so it
// equals the dense update with zero gradients elsewhere.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "optimizer.h"

namespace cppestimators {

class AdamOptimizer : public Optimizer {
 public:
  AdamOptimizer(const Spec& spec, std::string scope);
  std::vector<std::string> slot_names() const override;
  std::vector<float> slot_initial_values() const override;
  std::vector<std::pair<std::string, float*>> extra_variables() override;
  void reset_extra() override;
  void apply_dense(float* p, const float* g, float* const* s, std::size_t n) override;
  void apply_sparse(float* p, float* const* s, std::size_t width, std::size_t table_rows,
                    const std::int64_t* rows, const float* g, std::size_t count) override;
  void finish_step() override;

 private:
  float step_size() const;
  float b1_, b2_, eps_;
  float beta1_power_ = 0.9f, beta2_power_ = 0.999f;
};

}  // namespace cppestimators
