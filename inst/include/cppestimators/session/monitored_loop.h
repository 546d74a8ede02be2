// The MonitoredSession loop every mode shares:
//   begin* -> after_create_session* -> (before_run* -> step -> after_run*)* -> end*
// - hooks are called in list order, with one RunContext per step;
// - a stop request lets the current step finish, then the loop ends;
// - end of input skips that step's after_run and still calls end();
// - an exception (from the step or a hook) propagates and skips end();
// - a user interrupt is noticed between steps: end() runs, then the caller
//   is told through LoopOutcome::interrupted.
#pragma once
#include <cstdint>
#include <vector>

namespace cppestimators {

class Hook;
class Services;
class Session;

struct LoopOutcome {
  std::int64_t steps = 0;
  bool end_of_input = false;
  bool interrupted = false;
};

// Runs the session to its end (input exhausted, a stop request, an
// interrupt) calling the hooks in order; see the rules above.
LoopOutcome run_monitored(Session& s, const std::vector<Hook*>& hooks, Services& svc);

}  // namespace cppestimators
