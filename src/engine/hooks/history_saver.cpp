#include <cppestimators/hooks/history_saver.h>

#include <stdexcept>

#include <cppestimators/session/session.h>
#include <cppestimators/spec.h>

namespace cppestimators {

HistorySaverHook::HistorySaverHook(std::int64_t every_n_step) : every_(every_n_step) {
  if (every_ <= 0) throw std::invalid_argument("`every_n_step` must be a positive integer");
}

HistorySaverHook::HistorySaverHook(const Spec& s, HookEnv&)
    : HistorySaverHook(s.int_or("every_n_step", 10)) {}

std::string HistorySaverHook::constructor() const { return "hook_history_saver"; }

const History* HistorySaverHook::recorded_history() const { return &history_; }

void HistorySaverHook::begin(Session&) {
  iter_ = 0;
  last_recorded_ = false;
  history_ = History();
}

void HistorySaverHook::after_run(RunContext& ctx) {
  ++iter_;
  last_recorded_ = (iter_ % every_ == 0);
  if (last_recorded_) record(*ctx.session);
}

void HistorySaverHook::end(Session& s) {
  if (iter_ > 0 && !last_recorded_) record(s);
}

void HistorySaverHook::record(const Session& s) {
  const BatchLosses b = batch_losses(s);
  history_.mean_losses.push_back(b.mean);
  history_.total_losses.push_back(b.total);
  history_.steps.push_back(s.global_step());
}

}  // namespace cppestimators
