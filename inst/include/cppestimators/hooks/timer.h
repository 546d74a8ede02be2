// SecondOrStepTimer: the trigger rule of every periodic hook (TF 1.x).
// The first call always triggers; then every `every_steps` steps, or on the
// first step at least `every_secs` seconds after the last trigger.
#pragma once
#include <cstdint>

namespace cppestimators {

class SecondOrStepTimer {
 public:
  // Exactly one of every_secs (> 0) and every_steps (> 0) is set; the other
  // is negative. Both negative: a timer that never triggers.
  SecondOrStepTimer(double every_secs, std::int64_t every_steps);
  bool never() const { return every_secs_ < 0 && every_steps_ < 0; }
  // Whether should_trigger() looks at the clock (callers skip reading it otherwise).
  bool by_time() const { return every_secs_ >= 0; }
  void reset() { triggered_ = false; }

  // inline: called after every step by each periodic hook
  bool should_trigger(std::int64_t step, double now) const {
    if (never()) return false;
    if (!triggered_) return true;
    if (step == last_step_) return false;
    if (every_secs_ >= 0) return now >= last_time_ + every_secs_;
    return step >= last_step_ + every_steps_;
  }

  // Records a trigger; elapsed_* are NaN / -1 on the first trigger.
  void update(std::int64_t step, double now, double* elapsed_secs, std::int64_t* elapsed_steps);
  bool triggered() const { return triggered_; }
  std::int64_t last_step() const { return last_step_; }

 private:
  double every_secs_;
  std::int64_t every_steps_;
  bool triggered_ = false;
  std::int64_t last_step_ = 0;
  double last_time_ = 0;
};

}  // namespace cppestimators
