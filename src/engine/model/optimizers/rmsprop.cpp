#include <cppestimators/model/optimizers/rmsprop.h>

#include <cmath>
#include <utility>

namespace cppestimators {

RmsPropOptimizer::RmsPropOptimizer(const Spec& spec, std::string scope)
    : Optimizer(spec, std::move(scope)),
      decay_(param("decay")),
      momentum_(param("momentum")),
      eps_(param("epsilon")) {}

std::vector<std::string> RmsPropOptimizer::slot_names() const { return {"RMSProp", "RMSProp_1"}; }

std::vector<float> RmsPropOptimizer::slot_initial_values() const { return {1.0f, 0.0f}; }

void RmsPropOptimizer::apply_dense(float* p, const float* g, float* const* s, std::size_t n) {
  float* ms = s[0];
  float* mom = s[1];
  for (std::size_t i = 0; i < n; ++i) {
    ms[i] += (g[i] * g[i] - ms[i]) * (1.0f - decay_);
    mom[i] = momentum_ * mom[i] + lr_ * g[i] / std::sqrt(ms[i] + eps_);
    p[i] -= mom[i];
  }
}

}  // namespace cppestimators
