// hook_nan_tensor(): watches the loss every step. On NaN (or an infinite
// loss) it either fails
// ("NaN loss during training", naming the step and the last finite loss) or
// stops training softly after that step. The engine never applies an update
// whose loss is not finite, so the weights (and any checkpoint) stay at the
// last finite step.
#pragma once
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "../services.h"
#include "../session/tensors.h"
#include "hook.h"
#include "hook_env.h"

namespace cppestimators {

class NanLossError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class NanTensorHook : public Hook {
 public:
  NanTensorHook(std::string loss_tensor, bool fail_on_nan_loss, Services& svc)
      : name_(std::move(loss_tensor)), fail_(fail_on_nan_loss), svc_(svc) {}
  NanTensorHook(const Spec& s, HookEnv& env)
      : NanTensorHook(s.str("loss_tensor"), s.flag_or("fail_on_nan_loss", true), env.services()) {}
  std::string kind() const override { return "hook_nan_tensor"; }
  bool fails() const { return fail_; }

  void begin(Session&) override { last_finite_ = NAN; }
  void after_create_session(Session& s) override { require_tensor(s, name_, "hook_nan_tensor"); }
  void after_run(RunContext& ctx) override {
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

 private:
  std::string name_;
  bool fail_;
  Services& svc_;
  TensorValue value_;
  double last_finite_ = NAN;
};

}  // namespace cppestimators
