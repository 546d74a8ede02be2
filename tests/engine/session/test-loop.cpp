// Engine unit tests: the MonitoredSession loop and the hook protocol
// (order, stop requests, end of input, errors, interrupts).
#include <testthat.h>

#include <stdexcept>
#include <string>
#include <vector>

#include <cppestimators/session/hook.h>
#include <cppestimators/session/monitored_loop.h>

#include "test-helpers.h"

using namespace cppestimators;

namespace {

struct Fixture {
  std::vector<double> x{1, 2, 3, 4, 5, 6}, y{3, 5, 7, 9, 11, 13};
  Dataset data;
  Estimator est;
  Fixture() : est(spec()) {
    data.n = 6;
    data.features.push_back(testing::doubles("x", x));
    data.labels = y.data();
  }
  static EstimatorSpec spec() { return testing::linear({testing::numeric("x")}, "SGD", 0.01); }
  SessionOptions opts(int batch, std::int64_t epochs) {
    SessionOptions o;
    o.batch_size = batch;
    o.num_epochs = epochs;
    return o;
  }
};

// Records every callback as "<name>:<phase>[:global step]".
class Recorder : public Hook {
 public:
  Recorder(std::string name, std::vector<std::string>& log) : name_(std::move(name)), log_(log) {}
  std::string constructor() const override { return name_; }
  void begin(Session&) override { log_.push_back(name_ + ":begin"); }
  void after_create_session(Session&) override { log_.push_back(name_ + ":create"); }
  void before_run(RunContext& c) override {
    log_.push_back(name_ + ":before");
    if (stop_in_before) c.request_stop();
  }
  void after_run(RunContext& c) override {
    log_.push_back(name_ + ":after:" + std::to_string(c.session->global_step()) +
                   (c.stop_requested ? ":stop" : ""));
    if (throw_at == c.session->global_step()) throw std::runtime_error("boom");
    if (stop_at == c.session->global_step()) c.request_stop();
  }
  void end(Session&) override { log_.push_back(name_ + ":end"); }
  bool stop_in_before = false;
  std::int64_t stop_at = -1, throw_at = -1;

 private:
  std::string name_;
  std::vector<std::string>& log_;
};

class InterruptAfter : public NullServices {
 public:
  explicit InterruptAfter(int n) : n_(n) {}
  bool interrupt_requested() override { return calls_++ >= n_; }

 private:
  int n_, calls_ = 0;
};

}  // namespace

context("Monitored loop") {
  test_that("hooks run in list order, one context per step; a stop ends after that step") {
    Fixture f;
    Session s(f.est, f.data, f.opts(2, -1));
    std::vector<std::string> log;
    Recorder a("A", log), b("B", log);
    a.stop_at = 2;
    NullServices svc;
    LoopOutcome out = run_monitored(s, {&a, &b}, svc);
    std::vector<std::string> expected = {
        "A:begin",   "B:begin",  "A:create", "B:create",  "A:before",       "B:before", "A:after:1",
        "B:after:1", "A:before", "B:before", "A:after:2", "B:after:2:stop", "A:end",    "B:end"};
    expect_true(log == expected);
    expect_true(out.steps == 2);
    expect_false(out.end_of_input);
  }

  test_that("a stop requested in before_run still runs the step and every after_run") {
    Fixture f;
    Session s(f.est, f.data, f.opts(2, -1));
    std::vector<std::string> log;
    Recorder a("A", log), b("B", log);
    a.stop_in_before = true;
    NullServices svc;
    run_monitored(s, {&a, &b}, svc);
    expect_true(log[6] == "A:after:1:stop");
    expect_true(log[7] == "B:after:1:stop");
    expect_true(s.global_step() == 1);
  }

  test_that("end of input skips that step's after_run and calls end()") {
    Fixture f;
    Session s(f.est, f.data, f.opts(4, 1));  // 6 rows: batches of 4 and 2
    std::vector<std::string> log;
    Recorder a("A", log);
    NullServices svc;
    LoopOutcome out = run_monitored(s, {&a}, svc);
    expect_true(out.end_of_input);
    expect_true(out.steps == 2);
    expect_true(log.back() == "A:end");
    expect_true(log[log.size() - 2] == "A:before");
  }

  test_that("an exception skips later after_runs and every end(), naming the hook") {
    Fixture f;
    Session s(f.est, f.data, f.opts(2, -1));
    std::vector<std::string> log;
    Recorder a("A", log), b("B", log);
    a.throw_at = 1;
    NullServices svc;
    expect_error_as(run_monitored(s, {&a, &b}, svc), std::runtime_error);
    expect_true(log.back() == "A:after:1");
    expect_true(s.current_hook() == 0);
    expect_true(std::string(s.current_phase()) == "after_run");
    expect_true(s.global_step() == 1);  // the completed step is kept
  }

  test_that("an interrupt stops between steps and still calls end()") {
    Fixture f;
    Session s(f.est, f.data, f.opts(2, -1));
    std::vector<std::string> log;
    Recorder a("A", log);
    InterruptAfter svc(3);
    LoopOutcome out = run_monitored(s, {&a}, svc);
    expect_true(out.interrupted);
    expect_true(out.steps == 3);
    expect_true(log.back() == "A:end");
  }

  test_that("the training loss and gradient step match a hand computation") {
    Fixture f;
    Session s(f.est, f.data, f.opts(2, 1));
    NullServices svc;
    expect_true(s.run_step());
    // rows x = 1, 2 with y = 3, 5 at zero weights: loss = 9 + 25
    expect_true(s.loss() == 34.0);
    // SGD: w -= 0.01 * sum(2 * (0 - y) * x) = 0.01 * 26; b -= 0.01 * 16
    const VariableRef* w = f.est.find_variable("linear/linear_model/x/weights");
    const VariableRef* b = f.est.find_variable("linear/linear_model/bias_weights");
    expect_true(std::fabs(w->data[0] - 0.26f) < 1e-6);
    expect_true(std::fabs(b->data[0] - 0.16f) < 1e-6);
  }
}
