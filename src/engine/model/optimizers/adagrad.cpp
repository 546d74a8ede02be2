#include <cppestimators/model/optimizers/adagrad.h>

#include <cmath>
#include <utility>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

namespace cppestimators {

AdagradOptimizer::AdagradOptimizer(const Spec& spec, std::string scope)
    : Optimizer(spec, std::move(scope)), init_(param("initial_accumulator_value")) {}

std::vector<std::string> AdagradOptimizer::slot_names() const { return {"Adagrad"}; }

std::vector<float> AdagradOptimizer::slot_initial_values() const { return {init_}; }

void AdagradOptimizer::apply_dense(float* p, const float* g, float* const* s, std::size_t n) {
  float* acc = s[0];
  std::size_t i = 0;
#ifdef __SSE2__
  // four at a time (a scalar square root cannot be vectorized by the
  // compiler because of errno); the same correctly rounded operations, so
  // the same results
  const __m128 lr = _mm_set1_ps(lr_);
  for (; i + 4 <= n; i += 4) {
    const __m128 gi = _mm_loadu_ps(g + i);
    const __m128 ai = _mm_add_ps(_mm_loadu_ps(acc + i), _mm_mul_ps(gi, gi));
    _mm_storeu_ps(acc + i, ai);
    _mm_storeu_ps(p + i,
                  _mm_sub_ps(_mm_loadu_ps(p + i), _mm_div_ps(_mm_mul_ps(lr, gi), _mm_sqrt_ps(ai))));
  }
#endif
  for (; i < n; ++i) {
    acc[i] += g[i] * g[i];
    p[i] -= lr_ * g[i] / std::sqrt(acc[i]);
  }
}

}  // namespace cppestimators
