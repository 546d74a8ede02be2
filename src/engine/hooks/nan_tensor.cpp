#include <cppestimators/hooks/nan_tensor.h>

#include <cmath>
#include <cstdio>
#include <utility>

#include <cppestimators/hooks/hook_env.h>
#include <cppestimators/services.h>
#include <cppestimators/session/session.h>
#include <cppestimators/spec.h>

namespace cppestimators {

NanTensorHook::NanTensorHook(std::string loss_tensor, bool fail_on_nan_loss, Services& svc)
    : name_(std::move(loss_tensor)), fail_(fail_on_nan_loss), svc_(svc) {}

NanTensorHook::NanTensorHook(const Spec& s, HookEnv& env)
    : NanTensorHook(s.str("loss_tensor"), s.flag_or("fail_on_nan_loss", true), env.services()) {}

std::string NanTensorHook::constructor() const { return "hook_nan_tensor"; }

void NanTensorHook::begin(Session&) { last_finite_ = NAN; }

void NanTensorHook::after_create_session(Session& s) {
  require_tensor(s, name_, "hook_nan_tensor");
}

void NanTensorHook::after_run(RunContext& ctx) {
  read_tensor(*ctx.session, name_, value_);
  const double v = value_.data.empty() ? NAN : value_.data[0];
  if (std::isfinite(v)) {
    last_finite_ = v;
    return;
  }
  // An infinite loss counts too: the engine skips such updates, so
  // training would otherwise go on without learning.
  const char* what = std::isnan(v) ? "NaN" : "Infinite";
  char buf[160];
  if (std::isnan(last_finite_))
    std::snprintf(buf, sizeof buf, "at global step %lld (no finite loss before it)",
                  static_cast<long long>(ctx.session->global_step()));
  else
    std::snprintf(buf, sizeof buf, "at global step %lld (last finite loss: %s)",
                  static_cast<long long>(ctx.session->global_step()),
                  format_number(last_finite_, false).c_str());
  if (fail_) throw NanLossError(std::string(what) + " loss during training " + buf + ".");
  svc_.message(std::string("Model diverged with loss = ") + (std::isnan(v) ? "NaN " : "Inf ") +
               buf + "; stopping training with the weights of the last finite step.");
  ctx.request_stop();
}

}  // namespace cppestimators
