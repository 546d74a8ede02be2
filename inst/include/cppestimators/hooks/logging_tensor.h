// hook_logging_tensor(): logs named tensors every N local iterations or every
// N seconds (the first run always logs), and/or once at the end:
//   "loss = 96.96749, step = 1" then "loss = 4.264659, step = 101 (0.124 sec)".
// Tensors are read only on triggering steps.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "../session/tensors.h"
#include "../session/hook.h"
#include "hook_env.h"
#include "timer.h"

namespace cppestimators {

class Services;

class LoggingTensorHook : public Hook {
 public:
  // (tags, values, elapsed seconds) -> the line to log
  using Formatter = TensorFormatter;

  // every_n_iter / every_n_secs < 0 when unset; tags and names in log order.
  LoggingTensorHook(std::vector<std::string> tags, std::vector<std::string> names,
                    std::int64_t every_n_iter, double every_n_secs, bool at_end,
                    Formatter formatter, Services& svc);
  // spec: tags, names, every_n_iter, every_n_secs, at_end, formatter (a host callable)
  LoggingTensorHook(const Spec& s, HookEnv& env);
  std::string constructor() const override;

  void begin(Session&) override;
  void after_create_session(Session& s) override;
  void before_run(RunContext&) override;
  void after_run(RunContext& ctx) override;
  void end(Session& s) override;

 private:
  void log(const Session& s, std::int64_t iter);

  std::vector<std::string> tags_, names_;
  SecondOrStepTimer timer_;
  bool at_end_;
  Formatter formatter_;
  Services& svc_;
  std::vector<TensorValue> values_;
  std::int64_t iter_ = 0;
  bool should_log_ = false;
};

}  // namespace cppestimators
