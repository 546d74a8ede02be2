// hook_nan_tensor(): watches the loss every step. On NaN (or an infinite
// loss) it either fails
// ("NaN loss during training", naming the step and the last finite loss) or
// stops training softly after that step. The engine never applies an update
// whose loss is not finite, so the weights (and any checkpoint) stay at the
// last finite step.
#pragma once
#include <cmath>
#include <stdexcept>
#include <string>

#include "../session/tensors.h"
#include "../session/hook.h"

namespace cppestimators {

class HookEnv;
class Services;
struct Spec;

class NanLossError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class NanTensorHook : public Hook {
 public:
  NanTensorHook(std::string loss_tensor, bool fail_on_nan_loss, Services& svc);
  NanTensorHook(const Spec& s, HookEnv& env);
  std::string constructor() const override;
  bool fails() const { return fail_; }

  void begin(Session&) override;
  void after_create_session(Session& s) override;
  void after_run(RunContext& ctx) override;

 private:
  std::string name_;
  bool fail_;
  Services& svc_;
  TensorValue value_;
  double last_finite_ = NAN;
};

}  // namespace cppestimators
