#include <cppestimators/model/optimizers/sgd.h>

namespace cppestimators {

void SgdOptimizer::apply_dense(float* p, const float* g, float* const*, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) p[i] -= lr_ * g[i];
}

}  // namespace cppestimators
