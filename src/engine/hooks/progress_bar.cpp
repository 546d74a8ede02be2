#include <cppestimators/hooks/progress_bar.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <utility>

#include <cppestimators/hooks/hook_env.h>
#include <cppestimators/services.h>
#include <cppestimators/session/session.h>
#include <cppestimators/spec.h>

namespace cppestimators {

std::string format_fixed2(double x) {
  if (std::isnan(x)) return "NaN";
  if (std::isinf(x)) return x > 0 ? "Inf" : "-Inf";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f", x);
  return buf;
}

std::string format_eta(double secs) {
  if (!(secs >= 0) || std::isinf(secs)) return "  ?";
  char buf[32];
  const double s = std::round(secs);
  if (s < 60)
    std::snprintf(buf, sizeof buf, "%2.0fs", s);
  else if (s < 3600)
    std::snprintf(buf, sizeof buf, "%2.0fm", std::round(s / 60));
  else if (s < 86400)
    std::snprintf(buf, sizeof buf, "%2.0fh", std::round(s / 3600));
  else
    std::snprintf(buf, sizeof buf, "%2.0fd", std::round(s / 86400));
  return buf;
}

ProgressBarHook::ProgressBarHook(std::string label, std::int64_t total, Services& svc, bool draw)
    : label_(std::move(label)), total_(total), svc_(svc), draw_(draw) {}

ProgressBarHook::ProgressBarHook(const Spec& s, HookEnv& env)
    : ProgressBarHook(s.str("label"), s.int_or("total", -1), env.services(),
                      s.flag_or("draw", true)) {}

std::string ProgressBarHook::constructor() const { return "hook_progress_bar"; }

void ProgressBarHook::begin(Session&) {
  n_ = 0;
  start_ = svc_.now();
  last_draw_ = -1e300;
}

void ProgressBarHook::after_run(RunContext& ctx) {
  ++n_;
  loss_ = ctx.session->loss();
  if (!draw_ || !svc_.interactive()) return;
  const double now = svc_.now();
  if (now - last_draw_ < 0.1) return;
  last_draw_ = now;
  svc_.console("\r" + line(now));
}

void ProgressBarHook::end(Session&) {
  if (n_ > 0 && draw_) {
    const std::string text = line(svc_.now());
    svc_.console(svc_.interactive() ? "\r" + text + "\n" : text + "\n");
  }
  if (total_ >= 0 && n_ != total_) {
    const std::string op = label_ == "Evaluating" ? "Evaluation" : label_;
    svc_.message(op + " completed after " + std::to_string(n_) + " steps but " +
                 std::to_string(total_) + " steps was specified");
  }
}

std::string ProgressBarHook::line(double now) const {
  const int width = std::min(svc_.console_width(), 80);
  if (total_ < 0) {
    static const char spin[] = {'-', '\\', '|', '/'};
    return std::string("[") + spin[n_ % 4] + "] " + label_ + " -- loss: " + format_fixed2(loss_) +
           ", step: " + std::to_string(n_);
  }
  const double elapsed = now - start_;
  const double ratio = total_ > 0 ? std::min(1.0, static_cast<double>(n_) / total_) : 1.0;
  const double eta = n_ > 0 ? elapsed / n_ * std::max<std::int64_t>(0, total_ - n_) : NAN;
  const std::string head = label_ + " " + std::to_string(n_) + "/" + std::to_string(total_) + " [";
  const std::string tail = "] - ETA: " + format_eta(eta) + " - loss: " + format_fixed2(loss_);
  const int bar = std::max(0, width - static_cast<int>(head.size() + tail.size()));
  const int done = static_cast<int>(std::lround(bar * ratio));
  return head + std::string(done, '=') + std::string(bar - done, '.') + tail;
}

}  // namespace cppestimators
