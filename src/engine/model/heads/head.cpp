#include <cppestimators/model/heads/head.h>

#include <cstddef>

namespace cppestimators {

double Head::loss(const float* logits, const float* labels, int rows, float* per_example,
                  float* dlogits, const float* weights) const {
  const double total = unweighted_loss(logits, labels, rows, per_example, dlogits);
  if (weights == nullptr) return total;
  return apply_weights(weights, rows, per_example, per_example_dim(), dlogits, logits_dim());
}

bool Head::hessian(const float* logits, const float* labels, int rows, float* out,
                   const float* weights) const {
  if (!unweighted_hessian(logits, labels, rows, out)) return false;
  if (weights != nullptr) apply_weights(weights, rows, nullptr, 0, out, logits_dim());
  return true;
}

void Head::add_base_stats(const float* labels, const float* weights, int rows,
                          double* stats) const {
  const int d = label_dim();
  for (int r = 0; r < rows; ++r) {
    const double w = weights != nullptr ? weights[r] : 1.0;
    stats[0] += w;
    const float* y = labels + static_cast<std::size_t>(r) * d;
    for (int j = 0; j < d; ++j) stats[1 + j] += w * y[j];
  }
}

void Head::base_logits(const double* stats, float* out) const {
  const int d = label_dim(), k = logits_dim();
  if (!(stats[0] > 0.0)) return;
  for (int c = 0; c < k; ++c)
    out[c] = static_cast<float>(link(stats[1 + (d == k ? c : 0)] / stats[0]));
}

bool Head::unweighted_hessian(const float* /*logits*/, const float* /*labels*/, int /*rows*/,
                              float* /*out*/) const {
  return false;
}

double Head::apply_weights(const float* weights, int rows, const float* losses, int loss_width,
                           float* scaled, int width) {
  double total = 0.0;
  for (int i = 0; i < rows; ++i) {
    const float w = weights[i];
    if (losses != nullptr) {
      const float* li = losses + static_cast<std::size_t>(i) * loss_width;
      for (int j = 0; j < loss_width; ++j) total += static_cast<double>(w) * li[j];
    }
    if (scaled != nullptr) {
      float* si = scaled + static_cast<std::size_t>(i) * width;
      for (int j = 0; j < width; ++j) si[j] *= w;
    }
  }
  return total;
}

}  // namespace cppestimators
