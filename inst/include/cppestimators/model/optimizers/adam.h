// AdamOptimizer: bias correction folded into the step size, epsilon added
// after it; beta1_power and beta2_power are variables of their own. Its
// sparse update still decays the moments of every row (TF 1.x), so it
// equals the dense update with zero gradients elsewhere.
#pragma once
#include <algorithm>
#include <cmath>

#include "optimizer.h"

namespace cppestimators {

class AdamOptimizer : public Optimizer {
 public:
  AdamOptimizer(const Spec& spec, std::string scope)
      : Optimizer(spec, std::move(scope)),
        b1_(param("beta1")),
        b2_(param("beta2")),
        eps_(param("epsilon")) {
    reset_extra();
  }
  std::vector<std::string> slot_names() const override { return {"Adam", "Adam_1"}; }
  std::vector<float> slot_initial_values() const override { return {0.0f, 0.0f}; }
  std::vector<std::pair<std::string, float*>> extra_variables() override {
    return {{scope_ + "beta1_power", &beta1_power_}, {scope_ + "beta2_power", &beta2_power_}};
  }
  void reset_extra() override {
    beta1_power_ = b1_;
    beta2_power_ = b2_;
  }
  void apply_dense(float* p, const float* g, float* const* s, std::size_t n) override {
    const float lr_t = step_size();
    float* m = s[0];
    float* v = s[1];
    for (std::size_t i = 0; i < n; ++i) {
      m[i] += (g[i] - m[i]) * (1.0f - b1_);
      v[i] += (g[i] * g[i] - v[i]) * (1.0f - b2_);
      p[i] -= lr_t * m[i] / (std::sqrt(v[i]) + eps_);
    }
  }
  void apply_sparse(float* p, float* const* s, std::size_t width, std::size_t table_rows,
                    const std::int64_t* rows, const float* g, std::size_t count) override {
    const float lr_t = step_size();
    float* m = s[0];
    float* v = s[1];
    const std::size_t n = width * table_rows;
    for (std::size_t i = 0; i < n; ++i) {
      m[i] *= b1_;
      v[i] *= b2_;
    }
    for (std::size_t k = 0; k < count; ++k) {
      const std::size_t at = static_cast<std::size_t>(rows[k]) * width;
      for (std::size_t j = 0; j < width; ++j) {
        const float gj = g[k * width + j];
        m[at + j] += (1.0f - b1_) * gj;
        v[at + j] += (1.0f - b2_) * gj * gj;
      }
    }
    for (std::size_t i = 0; i < n; ++i) p[i] -= lr_t * m[i] / (std::sqrt(v[i]) + eps_);
  }
  void finish_step() override {
    beta1_power_ *= b1_;
    beta2_power_ *= b2_;
  }

 private:
  float step_size() const { return lr_ * std::sqrt(1.0f - beta2_power_) / (1.0f - beta1_power_); }
  float b1_, b2_, eps_;
  float beta1_power_ = 0.9f, beta2_power_ = 0.999f;
};

}  // namespace cppestimators
