// hook_summary_saver(): writes the training loss (and average_loss, and any
// scalar tensors named in summary_op) as TensorBoard scalars after the first
// step and then every N global steps or N seconds: with save_steps = 8 over
// 30 steps, at global steps 1, 9, 17 and 25. Flushes at end(). When the
// rate changes during training (a learning-rate schedule, or the scale of
// hook_reduce_lr_on_plateau()) it also writes "learning_rate", the rate of
// the step just run (and, for two optimizers, "linear/learning_rate" and
// "dnn/learning_rate").
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "../session/tensors.h"
#include "../session/hook.h"
#include "timer.h"

namespace cppestimators {

class EventFileSink;
class HookEnv;
class Services;
struct Spec;

class SummarySaverHook : public Hook {
 public:
  SummarySaverHook(std::int64_t save_steps, double save_secs, std::vector<std::string> tensors,
                   EventFileSink* sink, Services& svc);
  // spec: save_steps, save_secs, tensors (absent: none), output_dir
  SummarySaverHook(const Spec& s, HookEnv& env);
  std::string constructor() const override;

  void begin(Session&) override;
  void after_create_session(Session& s) override;
  void after_run(RunContext& ctx) override;
  void end(Session&) override;

 private:
  SecondOrStepTimer timer_;
  std::vector<std::string> tensors_;
  EventFileSink* sink_;
  Services& svc_;
  std::vector<std::pair<std::string, float>> values_;
  TensorValue tmp_;
  bool lr_listed_ = false;  // summary_op names it already
};

}  // namespace cppestimators
