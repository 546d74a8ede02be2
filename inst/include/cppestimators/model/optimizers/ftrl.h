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
  void set_regularized(bool on) override { regularized_ = on; }
  void start_from(const float* p, float* const* s, std::size_t n) override;
  // (penalties that grow with the steps, and l2 shrinkage, move rows
  // without a gradient)
  bool keeps_rows_without_gradient() const override {
    return shrink_ == 0.0f && (!per_step_ || (l1_ == 0.0f && l2_ == 0.0f));
  }

 private:
  // the L1/L2 strengths of step t (0-based), times t + 1 with
  // penalty_per_step: FTRL's linear slot sums the gradients of every step,
  // so strengths that grow with it penalize the mean loss of a step
  float l1_at() const { return regularized_ ? l1_ * multiplier() : 0.0f; }
  float l2_at() const { return regularized_ ? l2_ * multiplier() : 0.0f; }
  float multiplier() const { return per_step_ ? static_cast<float>(step_ + 1) : 1.0f; }
  float power_, init_, l1_, l2_, shrink_;
  bool per_step_;
  bool regularized_ = true;
};

}  // namespace cppestimators
