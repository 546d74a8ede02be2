#include <cppestimators/model/optimizers/adam.h>

#include <cmath>

namespace cppestimators {

AdamOptimizer::AdamOptimizer(const Spec& spec, std::string scope)
    : Optimizer(spec, std::move(scope)),
      b1_(param("beta1")),
      b2_(param("beta2")),
      eps_(param("epsilon")) {
  reset_extra();
}

std::vector<std::string> AdamOptimizer::slot_names() const { return {"Adam", "Adam_1"}; }

std::vector<float> AdamOptimizer::slot_initial_values() const { return {0.0f, 0.0f}; }

std::vector<std::pair<std::string, float*>> AdamOptimizer::extra_variables() {
  return {{scope_ + "beta1_power", &beta1_power_}, {scope_ + "beta2_power", &beta2_power_}};
}

void AdamOptimizer::reset_extra() {
  beta1_power_ = b1_;
  beta2_power_ = b2_;
}

void AdamOptimizer::apply_dense(float* p, const float* g, float* const* s, std::size_t n) {
  const float lr_t = step_size();
  float* m = s[0];
  float* v = s[1];
  for (std::size_t i = 0; i < n; ++i) {
    m[i] += (g[i] - m[i]) * (1.0f - b1_);
    v[i] += (g[i] * g[i] - v[i]) * (1.0f - b2_);
    p[i] -= lr_t * m[i] / (std::sqrt(v[i]) + eps_);
  }
}

void AdamOptimizer::apply_sparse(float* p, float* const* s, std::size_t width,
                                 std::size_t table_rows, const std::int64_t* rows, const float* g,
                                 std::size_t count) {
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

void AdamOptimizer::finish_step() {
  beta1_power_ *= b1_;
  beta2_power_ *= b2_;
}

float AdamOptimizer::step_size() const {
  return lr_ * std::sqrt(1.0f - beta2_power_) / (1.0f - beta1_power_);
}

}  // namespace cppestimators
