// The session-run-hook protocol (TF 1.x SessionRunHook): five optional
// callbacks, called in list order. A native hook reads what it needs from the
// session after the step, so on steps where it does nothing it costs a call.
//
// Hooks that cooperate find each other at begin() through Session::hooks()
// and the roles below (an early stopper follows an evaluator's records; the
// glue reads the history saver's history), never by position.
#pragma once
#include <string>

namespace cppestimators {

class EvalRecords;
struct History;
class Session;
struct RunContext;

class Hook {
 public:
  virtual ~Hook() = default;
  // The R function that makes the hook, for messages, e.g.
  // "hook_progress_bar" (an R closure hook: "session_run_hook").
  virtual std::string constructor() const = 0;

  // Roles. An evaluator publishes the results of its evaluations.
  virtual EvalRecords* evaluation_records();
  // A history saver publishes the training history it records.
  virtual const History* recorded_history() const;

  virtual void begin(Session&);
  virtual void after_create_session(Session&);
  virtual void before_run(RunContext&);
  virtual void after_run(RunContext&);
  virtual void end(Session&);
};

}  // namespace cppestimators
