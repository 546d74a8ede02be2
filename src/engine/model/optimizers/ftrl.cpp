#include <cppestimators/model/optimizers/ftrl.h>

#include <cmath>
#include <utility>

namespace cppestimators {

FtrlOptimizer::FtrlOptimizer(const Spec& spec, std::string scope)
    : Optimizer(spec, std::move(scope)),
      power_(param("learning_rate_power")),
      init_(param("initial_accumulator_value")),
      l1_(param("l1_regularization_strength")),
      l2_(param("l2_regularization_strength")),
      shrink_(param("l2_shrinkage_regularization_strength")),
      per_step_(spec.flag_or("penalty_per_step", false)) {}

std::vector<std::string> FtrlOptimizer::slot_names() const { return {"Ftrl", "Ftrl_1"}; }

std::vector<float> FtrlOptimizer::slot_initial_values() const { return {init_, 0.0f}; }

void FtrlOptimizer::apply_dense(float* p, const float* g, float* const* s, std::size_t n) {
  const bool sqrt_power = (power_ == -0.5f);
  float* accum = s[0];
  float* linear = s[1];
  const float l1 = l1_at(), l2 = l2_at();
  const float shrink = regularized_ ? shrink_ : 0.0f;
  for (std::size_t i = 0; i < n; ++i) {
    // l2 shrinkage adds 2 * l2_shrinkage * w to the gradient `linear` sees
    const float grad = g[i];
    const float grad_shr = grad + 2.0f * shrink * p[i];
    const float acc_new = accum[i] + grad * grad;
    const float pow_new = sqrt_power ? std::sqrt(acc_new) : std::pow(acc_new, -power_);
    const float pow_old = sqrt_power ? std::sqrt(accum[i]) : std::pow(accum[i], -power_);
    linear[i] += grad_shr - (pow_new - pow_old) / lr_ * p[i];
    const float quadratic = pow_new / lr_ + 2.0f * l2;
    const float lin = linear[i];
    if (std::fabs(lin) > l1) {
      const float sign = lin > 0.0f ? 1.0f : -1.0f;
      p[i] = (sign * l1 - lin) / quadratic;
    } else {
      p[i] = 0.0f;
    }
    accum[i] = acc_new;
  }
}

// The weights FTRL computes are -(linear - sign * l1) / quadratic: with the
// accumulator at its initial value, the `linear` that gives back each
// starting weight w is -(w * quadratic + sign(w) * l1).
void FtrlOptimizer::start_from(const float* p, float* const* s, std::size_t n) {
  const float l1 = l1_at(), l2 = l2_at();
  for (std::size_t i = 0; i < n; ++i) {
    if (p[i] == 0.0f) continue;
    const float acc = s[0][i];
    const float pw = (power_ == -0.5f) ? std::sqrt(acc) : std::pow(acc, -power_);
    const float quadratic = pw / lr_ + 2.0f * l2;
    s[1][i] = -(p[i] * quadratic + (p[i] > 0.0f ? l1 : -l1));
  }
}

}  // namespace cppestimators
