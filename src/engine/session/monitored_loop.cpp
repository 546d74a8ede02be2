#include <cppestimators/session/monitored_loop.h>

#include <cppestimators/session/hook.h>
#include <cppestimators/services.h>
#include <cppestimators/session/session.h>

namespace cppestimators {

namespace {
// Records which hook and phase runs, so an error can name them; clears the
// record only when the call returns normally.
template <class F>
void call_hook(Session& s, int i, const char* phase, F&& f) {
  s.enter_hook(i, phase);
  f();
  s.leave_hook();
}

struct ContextGuard {
  Session& s;
  ~ContextGuard() { s.set_current_context(nullptr); }
};

struct HooksGuard {
  Session& s;
  ~HooksGuard() {
    s.set_hooks(nullptr);
    s.set_interrupt_check(nullptr);
  }
};
}  // namespace

namespace {
LoopOutcome run_loop(Session& s, const std::vector<Hook*>& hooks, Services& svc);
}  // namespace

LoopOutcome run_monitored(Session& s, const std::vector<Hook*>& hooks, Services& svc) {
  if (!s.distributed()) return run_loop(s, hooks, svc);
  // Across ranks, a rank that leaves the loop otherwise than with the others
  // (its hooks stopped it, an interrupt, an error) tells them: the chief with
  // a last round asking every rank to stop, another rank by giving up.
  try {
    LoopOutcome out = run_loop(s, hooks, svc);
    s.end_rounds(out.interrupted ? "interrupted" : "stopped");
    return out;
  } catch (const std::exception& e) {
    s.end_rounds(e.what());
    throw;
  } catch (...) {
    s.end_rounds("an error");
    throw;
  }
}

namespace {
LoopOutcome run_loop(Session& s, const std::vector<Hook*>& hooks, Services& svc) {
  LoopOutcome out;
  const int n = static_cast<int>(hooks.size());
  s.set_hooks(&hooks);
  HooksGuard hooks_guard{s};
  // large evaluation and prediction batches check between their chunks
  s.set_interrupt_check([&svc] { return svc.interrupt_requested(); });
  for (int i = 0; i < n; ++i) call_hook(s, i, "begin", [&] { hooks[i]->begin(s); });
  try {
    for (int i = 0; i < n; ++i)
      call_hook(s, i, "after_create_session", [&] { hooks[i]->after_create_session(s); });
  } catch (const Interrupted&) {
    // an interrupt noticed inside a hook's first work (e.g. an evaluation)
    s.leave_hook();
    out.interrupted = true;
  }
  if (!out.interrupted) {
    ContextGuard guard{s};
    try {
      for (;;) {
        if (svc.interrupt_requested()) {
          out.interrupted = true;
          break;
        }
        RunContext ctx(&s);
        s.set_current_context(&ctx);
        for (int i = 0; i < n; ++i)
          call_hook(s, i, "before_run", [&] { hooks[i]->before_run(ctx); });
        if (!s.run_step()) {
          out.end_of_input = true;
          break;
        }
        ++out.steps;
        for (int i = 0; i < n; ++i) call_hook(s, i, "after_run", [&] { hooks[i]->after_run(ctx); });
        if (ctx.stop_requested) break;
      }
    } catch (const Interrupted&) {
      // an interrupt noticed inside a hook (e.g. while waiting): stop in order
      s.leave_hook();
      out.interrupted = true;
    }
  }
  for (int i = 0; i < n; ++i) {
    try {
      call_hook(s, i, "end", [&] { hooks[i]->end(s); });
    } catch (const Interrupted&) {
      // an interrupt inside a hook's last work (e.g. a final evaluation): the
      // other hooks still end (a final checkpoint is saved)
      s.leave_hook();
      out.interrupted = true;
    }
  }
  if (out.steps == 0 && s.mode() == Mode::Train)
    svc.message("Training with estimator made no steps. Perhaps input is empty or misspecified.");
  return out;
}
}  // namespace

}  // namespace cppestimators
