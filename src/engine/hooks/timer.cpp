#include <cppestimators/hooks/timer.h>

#include <cmath>
#include <stdexcept>

namespace cppestimators {

SecondOrStepTimer::SecondOrStepTimer(double every_secs, std::int64_t every_steps)
    : every_secs_(every_secs), every_steps_(every_steps) {
  if (every_secs >= 0 && every_steps >= 0)
    throw std::invalid_argument("Can not provide both every_secs and every_steps.");
}

void SecondOrStepTimer::update(std::int64_t step, double now, double* elapsed_secs,
                               std::int64_t* elapsed_steps) {
  if (elapsed_secs) *elapsed_secs = triggered_ ? now - last_time_ : NAN;
  if (elapsed_steps) *elapsed_steps = triggered_ ? step - last_step_ : -1;
  triggered_ = true;
  last_step_ = step;
  last_time_ = now;
}

}  // namespace cppestimators
