// hook_progress_bar(): "Training 2/2 [=====] - ETA:  0s - loss: 3136.10".
// Interactive consoles get in-place redraws at most every 0.1 s; elsewhere
// only the final line is printed, once, at end(). The bar goes to the
// console's diagnostic stream (stderr in R): stdout is the user's.
#pragma once
#include <cmath>
#include <cstdint>
#include <string>

#include "../session/hook.h"

namespace cppestimators {

class HookEnv;
class Services;
struct Spec;

std::string format_fixed2(double x);

// Terse remaining time, right-aligned in 3 characters: " 0s", "12s", " 3m".
std::string format_eta(double secs);

class ProgressBarHook : public Hook {
 public:
  // total < 0: unknown length (spinner form). draw = false: no bar, only the
  // message when fewer steps ran than were asked for.
  ProgressBarHook(std::string label, std::int64_t total, Services& svc, bool draw = true);
  // spec: label, total (absent: unknown), draw (absent: TRUE)
  ProgressBarHook(const Spec& s, HookEnv& env);
  std::string constructor() const override;

  void begin(Session&) override;
  void after_run(RunContext& ctx) override;
  void end(Session&) override;

  // The bar as it would be drawn now.
  std::string line(double now) const;

 private:
  std::string label_;
  std::int64_t total_;
  Services& svc_;
  std::int64_t n_ = 0;
  double loss_ = NAN;
  double start_ = 0, last_draw_ = 0;
  bool draw_ = true;
};

}  // namespace cppestimators
