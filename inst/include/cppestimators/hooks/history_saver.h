// hook_history_saver(every_n_step): records the mean and the sum of the
// per-example losses of the batch (weighted by the examples' weights when
// the input has a weight column: sum(w * loss) / sum(w) and sum(w * loss))
// and the global step at local iterations
// where iteration %% every_n_step == 0, plus the last iteration of the run
// when it was not recorded, so a history is never empty.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "hook.h"
#include "hook_env.h"

namespace cppestimators {

struct History {
  std::vector<double> mean_losses, total_losses;
  std::vector<std::int64_t> steps;
};

// The mean and the sum of the last batch's per-example losses (weighted by
// the examples' weights when the input has a weight column).
struct BatchLosses {
  double mean, total;
};

inline BatchLosses batch_losses(const Session& s) {
  const int d = s.head().per_example_dim(), m = s.rows() * d;
  const float* pe = s.per_example_losses();
  const float* w = s.weights();
  double sum = 0.0, weights = m;
  if (w == nullptr) {
    for (int i = 0; i < m; ++i) sum += pe[i];
  } else {
    weights = 0.0;
    for (int i = 0; i < m; ++i) {
      sum += static_cast<double>(w[i / d]) * pe[i];
      weights += w[i / d];
    }
  }
  return BatchLosses{weights > 0 ? sum / weights : 0.0, sum};
}

class HistorySaverHook : public Hook {
 public:
  explicit HistorySaverHook(std::int64_t every_n_step) : every_(every_n_step) {
    if (every_ <= 0) throw std::invalid_argument("`every_n_step` must be a positive integer");
  }
  HistorySaverHook(const Spec& s, HookEnv&) : HistorySaverHook(s.int_or("every_n_step", 10)) {}
  std::string kind() const override { return "hook_history_saver"; }
  const History* recorded_history() const override { return &history_; }

  void begin(Session&) override {
    iter_ = 0;
    last_recorded_ = false;
    history_ = History();
  }
  void after_run(RunContext& ctx) override {
    ++iter_;
    last_recorded_ = (iter_ % every_ == 0);
    if (last_recorded_) record(*ctx.session);
  }
  void end(Session& s) override {
    if (iter_ > 0 && !last_recorded_) record(s);
  }

  const History& history() const { return history_; }

 private:
  void record(const Session& s) {
    const BatchLosses b = batch_losses(s);
    history_.mean_losses.push_back(b.mean);
    history_.total_losses.push_back(b.total);
    history_.steps.push_back(s.global_step());
  }

  std::int64_t every_;
  std::int64_t iter_ = 0;
  bool last_recorded_ = false;
  History history_;
};

}  // namespace cppestimators
