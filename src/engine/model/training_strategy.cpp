#include <cppestimators/model/training_strategy.h>

#include <algorithm>

#include <cstddef>

#include <cppestimators/model/model.h>

namespace cppestimators {

bool TrainingStrategy::fused_step(const FeatureBatch&, const Head&, Workspace&, float*, float*,
                                  double&, StepStats&) {
  return false;
}

bool TrainingStrategy::finished() const { return false; }

bool TrainingStrategy::loss_is_batch_mean() const { return false; }

bool TrainingStrategy::needs_head_gradients(const Head&) const { return true; }

std::vector<std::pair<std::string, double>> TrainingStrategy::importances() const { return {}; }

GradientStep::GradientStep(Model& model) : model_(model) {}

StepStats GradientStep::compute(const FeatureBatch& batch, const float* /*logits*/,
                                const float* dlogits, const Head& /*head*/, Workspace& ws) {
  StepStats stats;
  stats.gradients = &model_.backward(batch, dlogits, ws);
  return stats;
}

void GradientStep::apply(const StepStats& stats, const Optimizers& optimizers, Workspace&) {
  if (stats.gradients == nullptr) return;
  for (const Gradient& g : *stats.gradients) {
    Parameter& p = *g.param;
    if (!p.trainable) continue;
    Optimizer& opt = *optimizers[static_cast<std::size_t>(p.group)];
    float* slots[Optimizer::kMaxSlots] = {nullptr, nullptr, nullptr, nullptr};
    for (std::size_t s = 0; s < p.slots.size(); ++s) slots[s] = p.slots[s].data();
    opt.set_regularized(p.regularized);
    // (a dense variable's gradient given by rows, for an optimizer that
    // moves rows without a gradient too: the dense gradient it stands for)
    const bool by_rows = g.sparse && !(g.zero_elsewhere && !opt.keeps_rows_without_gradient());
    if (by_rows) {
      opt.apply_sparse(p.value.data(), slots, p.row_width, p.rows(), g.rows, g.values, g.count);
    } else if (g.sparse) {
      dense_.assign(p.value.size(), 0.0f);
      for (std::size_t k = 0; k < g.count; ++k)
        std::copy(g.values + k * p.row_width, g.values + (k + 1) * p.row_width,
                  dense_.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(g.rows[k]) *
                                                               p.row_width));
      opt.apply_dense(p.value.data(), dense_.data(), slots, p.value.size());
    } else {
      opt.apply_dense(p.value.data(), g.dense, slots, p.value.size());
    }
    if (p.lower.empty()) continue;
    const auto clamp = [&p](std::size_t b, std::size_t e) {
      for (std::size_t i = b; i < e; ++i)
        p.value[i] = std::min(p.upper[i], std::max(p.lower[i], p.value[i]));
    };
    if (by_rows) {
      for (std::size_t k = 0; k < g.count; ++k) {
        const std::size_t r = static_cast<std::size_t>(g.rows[k]) * p.row_width;
        clamp(r, r + p.row_width);
      }
    } else {
      clamp(0, p.value.size());
    }
  }
  for (auto& o : optimizers) o->finish_step();
}

}  // namespace cppestimators
