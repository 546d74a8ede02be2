// Engine unit tests: the early-stopping hook (hooks/early_stopping.h) fed by
// in-memory evaluation records: a stop once the metric has not decreased for
// max_steps_without steps, the messages it gives, and a missing metric.
#include <testthat.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <cppestimators/hooks/early_stopping.h>

#include "test-helpers.h"

using namespace cppestimators;
using namespace cppestimators::testing;

namespace {

// The hook under test: stop when `metric` has not decreased for
// `max_steps_without` steps, reading the results of `records`.
std::unique_ptr<EarlyStoppingHook> no_decrease_hook(const std::string& metric,
                                                    std::int64_t max_steps_without,
                                                    EvalRecords& records, Services& svc) {
  EarlyStoppingSpec spec;
  spec.rule = StopRule::NoDecrease;
  spec.metric = metric;
  spec.max_steps_without = max_steps_without;
  auto hook = std::make_unique<EarlyStoppingHook>(spec, svc);
  hook->attach(&records);
  return hook;
}

EvalRecord record(std::int64_t step, double loss) {
  return {step, {{"average_loss", 0.0}, {"loss", loss}}};
}

}  // namespace

context("Early stopping") {
  test_that("a stop is requested once the metric has not decreased for max_steps_without steps") {
    LineData d;
    Estimator est(linear({numeric("x")}));
    Session s(est, d.data, batches_of(2, -1));
    CapturingServices svc;
    EvalRecords records;
    auto hook = no_decrease_hook("loss", 3, records, svc);
    hook->begin(s);
    // best 4 at step 2; steps 3 and 4 are within 3 steps of it; step 5 is not
    const double losses[] = {5.0, 4.0, 4.5, 4.2, 4.1};
    for (int step = 1; step <= 5; ++step) {
      RunContext ctx(&s);
      records.add(record(step, losses[step - 1]), s, &ctx);
      expect_true(ctx.stop_requested == (step == 5));
    }
    expect_true(svc.messages.size() == 2);
    expect_true(svc.messages[0] ==
                "No decrease in metric \"loss\" for 3 steps, which is greater than or equal to max "
                "steps (3) "
                "configured for early stopping.");
    expect_true(svc.messages[1] == "Requesting early stopping at global step 5");
    // once stopped, later results ask nothing more
    RunContext later(&s);
    records.add(record(6, 9.0), s, &later);
    expect_true(!later.stop_requested);
    expect_true(svc.messages.size() == 2);
  }

  test_that("a decrease resets the count; a result outside a step stops at the next one") {
    LineData d;
    Estimator est(linear({numeric("x")}));
    Session s(est, d.data, batches_of(2, -1));
    CapturingServices svc;
    EvalRecords records;
    auto hook = no_decrease_hook("loss", 2, records, svc);
    hook->begin(s);
    records.add(record(10, 3.0), s, nullptr);
    records.add(record(11, 2.0), s, nullptr);  // a decrease: the count starts again at step 11
    records.add(record(12, 2.5), s, nullptr);
    expect_true(svc.messages.empty());
    records.add(record(13, 2.0), s, nullptr);  // no decrease for 13 - 11 = 2 steps
    expect_true(svc.messages.size() == 2);
    expect_true(svc.messages[1] == "Requesting early stopping at global step 13");
    RunContext next(&s);
    hook->after_run(next);
    expect_true(next.stop_requested);
  }

  test_that("a metric the evaluation does not have is an error naming the ones it has") {
    LineData d;
    Estimator est(linear({numeric("x")}));
    Session s(est, d.data, batches_of(2, -1));
    CapturingServices svc;
    EvalRecords records;
    auto hook = no_decrease_hook("accuracy", 2, records, svc);
    hook->begin(s);
    std::string msg = error_of([&] { records.add(record(1, 1.0), s, nullptr); });
    expect_true(msg ==
                "`metric_name`: metric 'accuracy' is not among the evaluation's metrics "
                "(average_loss, loss); give one of these to this early-stopping hook");
  }
}
