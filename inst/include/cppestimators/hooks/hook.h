// The session-run-hook protocol (TF 1.x SessionRunHook): five optional
// callbacks, called in list order. A native hook reads what it needs from the
// session after the step, so on steps where it does nothing it costs a call.
#pragma once
#include <string>

#include "../session/session.h"

namespace cppestimators {

class Hook {
 public:
  virtual ~Hook() = default;
  // A short name for messages, e.g. "hook_progress_bar".
  virtual std::string kind() const = 0;
  virtual void begin(Session&) {}
  virtual void after_create_session(Session&) {}
  virtual void before_run(RunContext&) {}
  virtual void after_run(RunContext&) {}
  virtual void end(Session&) {}
};

}  // namespace cppestimators
