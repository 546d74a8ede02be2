#include <cppestimators/model/optimizers/momentum.h>

#include <utility>

namespace cppestimators {

MomentumOptimizer::MomentumOptimizer(const Spec& spec, std::string scope)
    : Optimizer(spec, std::move(scope)),
      momentum_(param("momentum")),
      nesterov_(spec.flag_or("use_nesterov", false)) {}

std::vector<std::string> MomentumOptimizer::slot_names() const { return {"Momentum"}; }

std::vector<float> MomentumOptimizer::slot_initial_values() const { return {0.0f}; }

void MomentumOptimizer::apply_dense(float* p, const float* g, float* const* s, std::size_t n) {
  float* acc = s[0];
  for (std::size_t i = 0; i < n; ++i) {
    acc[i] = momentum_ * acc[i] + g[i];
    p[i] -= nesterov_ ? lr_ * (g[i] + momentum_ * acc[i]) : lr_ * acc[i];
  }
}

}  // namespace cppestimators
