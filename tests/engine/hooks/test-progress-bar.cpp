// Engine unit tests: the progress bar hook (hooks/progress_bar.h) through a
// capturing Services: the final line on a plain console, in-place redraws
// on an interactive one, the short-run message, and the number formats.
#include <testthat.h>

#include <memory>
#include <string>
#include <vector>

#include <cppestimators/hooks/progress_bar.h>
#include <cppestimators/session/monitored_loop.h>

#include "test-helpers.h"

using namespace cppestimators;
using namespace cppestimators::testing;

namespace {

// The hook under test: a bar labelled `label` for `total` steps.
std::unique_ptr<ProgressBarHook> progress_bar(const std::string& label, std::int64_t total,
                                              Services& svc) {
  return std::make_unique<ProgressBarHook>(label, total, svc);
}

// Two steps of SGD (learning rate 0.01) over x = 1..6 in batches of 3:
// the first from zero weights moves w to 0.68 and b to 0.3, so the second
// batch (x = 4, 5, 6) has the summed squared loss
// 5.98^2 + 7.3^2 + 8.62^2 = 163.3548.
struct TwoSteps {
  LineData d;
  Estimator est{linear({numeric("x")}, "SGD", 0.01)};
  Session s{est, d.data, batches_of(3, 1)};
};

}  // namespace

context("Progress bar") {
  test_that("a plain console gets only the final line, full width, at the end") {
    TwoSteps run;
    CapturingServices svc;
    svc.width = 60;
    auto bar = progress_bar("Training", 2, svc);
    const LoopOutcome out = run_monitored(run.s, {bar.get()}, svc);
    expect_true(out.steps == 2);
    const std::string tail = "] - ETA:  0s - loss: 163.35\n";
    const std::string head = "Training 2/2 [";
    expect_true(svc.console_text ==
                head + std::string(60 - head.size() - (tail.size() - 1), '=') + tail);
    expect_true(svc.console_text.size() == 61);
    expect_true(svc.messages.empty());
  }

  test_that("an interactive console is redrawn in place at most every 0.1 s, and ends the line") {
    TwoSteps run;
    CapturingServices svc;
    svc.is_interactive = true;
    svc.width = 60;
    auto bar = progress_bar("Training", 4, svc);
    bar->begin(run.s);
    for (int i = 0; i < 2; ++i) {
      run.s.run_step();
      RunContext ctx(&run.s);
      bar->after_run(ctx);  // the clock stands still: only the first step draws
    }
    expect_true(svc.console_text ==
                "\rTraining 1/4 [=====...............] - ETA:  0s - loss: 83.00");
    svc.console_text.clear();
    svc.clock = 4.0;
    bar->end(run.s);
    // 2 of 4 steps in 4 s: 4 s to go
    expect_true(svc.console_text ==
                "\rTraining 2/4 [==========.........] - ETA:  4s - loss: 163.35\n");
    expect_true(svc.messages.size() == 1);
    expect_true(svc.messages[0] == "Training completed after 2 steps but 4 steps was specified");
  }

  test_that("an unknown length shows a spinner; numbers are formatted tersely") {
    TwoSteps run;
    CapturingServices svc;
    auto bar = progress_bar("Evaluating", -1, svc);
    run_monitored(run.s, {bar.get()}, svc);
    expect_true(svc.console_text == "[|] Evaluating -- loss: 163.35, step: 2\n");
    expect_true(format_eta(0.4) == " 0s");
    expect_true(format_eta(59.4) == "59s");
    expect_true(format_eta(150) == " 3m");
    expect_true(format_eta(7200) == " 2h");
    expect_true(format_eta(-1) == "  ?");
    expect_true(format_fixed2(1.0 / 3.0) == "0.33");
  }
}
