// Engine unit tests: the CSV logger (hooks/csv_logger.h) -- its rows beside
// the history saver's, the evaluations of an in-memory evaluator placed
// after it, appending with the same header, refusing another header, and
// the row still pending when a later hook fails.
#include <testthat.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <cppestimators/hooks/csv_logger.h>
#include <cppestimators/hooks/history_saver.h>
#include <cppestimators/hooks/in_memory_evaluator.h>
#include <cppestimators/session/monitored_loop.h>

#include "test-helpers.h"

using namespace cppestimators;
using namespace cppestimators::testing;

namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

std::vector<std::string> fields_of(const std::string& line) {
  std::vector<std::string> out;
  std::istringstream in(line);
  for (std::string f; std::getline(in, f, ',');) out.push_back(f);
  return out;
}

std::string temp_csv(const std::string& name) {
  const auto p = std::filesystem::temp_directory_path() / ("cppestimators-" + name + ".csv");
  std::filesystem::remove(p);
  return p.string();
}

// A hook that fails in after_run at its n-th iteration.
class FailAt : public Hook {
 public:
  explicit FailAt(int n) : n_(n) {}
  std::string constructor() const override { return "fail_at"; }
  void after_run(RunContext&) override {
    if (++iter_ == n_) throw std::runtime_error("failed on purpose");
  }

 private:
  int n_, iter_ = 0;
};

}  // namespace

context("CSV logger") {
  test_that("rows hold the history's losses and, at their steps, the evaluations") {
    LineData d;
    Estimator est(linear({numeric("x")}));
    Session s(est, d.data, batches_of(2, 2));  // 6 steps
    CapturingServices svc;
    const std::string path = temp_csv("rows");
    CsvLoggerHook logger(path, 1, true, nullptr);
    HistorySaverHook history(1);
    double calls = 0;
    InMemoryEvaluatorHook evaluator(3, [&](Session&) {
      calls += 1;
      return MetricList{{"average_loss", calls}, {"loss", 10 * calls}};
    });
    const std::vector<Hook*> hooks{&logger, &history, &evaluator};
    run_monitored(s, hooks, svc);
    const auto lines = lines_of(slurp(path));
    expect_true(lines.size() == 8);  // header, the evaluation before step 1, steps 1 to 6
    // the columns of the head's metrics; those an evaluation lacks are NA
    expect_true(lines[0] ==
                "step,mean_losses,total_losses,eval_average_loss,eval_label/mean,eval_loss,"
                "eval_prediction/mean");
    expect_true(lines[1] == "0,NA,NA,1,NA,10,NA");
    const History& h = history.history();
    for (int k = 1; k <= 6; ++k) {
      const auto f = fields_of(lines[static_cast<std::size_t>(k) + 1]);
      expect_true(f.size() == 7);
      expect_true(std::stoll(f[0]) == h.steps[static_cast<std::size_t>(k) - 1]);
      expect_true(std::abs(std::stod(f[1]) - h.mean_losses[static_cast<std::size_t>(k) - 1]) <=
                  1e-6 * (1 + std::abs(h.mean_losses[static_cast<std::size_t>(k) - 1])));
      expect_true(std::abs(std::stod(f[2]) - h.total_losses[static_cast<std::size_t>(k) - 1]) <=
                  1e-6 * (1 + std::abs(h.total_losses[static_cast<std::size_t>(k) - 1])));
      // evaluations at steps 3 and 6 (the evaluator comes after the logger)
      const bool evaluated = (k == 3 || k == 6);
      expect_true((f[3] == "NA") == !evaluated);
    }
    expect_true(fields_of(lines[7])[5] == "30");
    std::filesystem::remove(path);
  }

  test_that("a second run appends under the same header; another header is refused") {
    LineData d;
    Estimator est(linear({numeric("x")}));
    CapturingServices svc;
    const std::string path = temp_csv("append");
    {
      Session s(est, d.data, batches_of(2, 1));
      CsvLoggerHook logger(path, 2, true, nullptr);
      run_monitored(s, {&logger}, svc);
    }
    {
      Session s(est, d.data, batches_of(2, 1));
      CsvLoggerHook logger(path, 2, true, nullptr);
      run_monitored(s, {&logger}, svc);
    }
    auto lines = lines_of(slurp(path));
    // every 2nd iteration and the last: steps 2, 3, then 5, 6
    expect_true(lines.size() == 5);
    expect_true((fields_of(lines[1])[0] == "2" && fields_of(lines[2])[0] == "3"));
    expect_true((fields_of(lines[3])[0] == "5" && fields_of(lines[4])[0] == "6"));
    const std::string before = slurp(path);
    Session s(est, d.data, batches_of(2, 1));
    CsvLoggerHook logger(path, 1, true, nullptr);
    InMemoryEvaluatorHook evaluator(1, [](Session&) { return MetricList{{"loss", 1.0}}; });
    const std::string e = error_of([&] { run_monitored(s, {&logger, &evaluator}, svc); });
    expect_true(contains(e, "has the columns 'step,mean_losses,total_losses', not those"));
    expect_true(slurp(path) == before);
    std::filesystem::remove(path);
  }

  test_that("the pending row is written when a later hook fails") {
    LineData d;
    Estimator est(linear({numeric("x")}));
    Session s(est, d.data, batches_of(1, 1));
    CapturingServices svc;
    const std::string path = temp_csv("fail");
    {
      CsvLoggerHook logger(path, 1, true, nullptr);
      FailAt fail(4);
      expect_error_as(run_monitored(s, {&logger, &fail}, svc), std::runtime_error);
    }
    const auto lines = lines_of(slurp(path));
    expect_true(lines.size() == 5);
    expect_true(fields_of(lines[4])[0] == "4");
    std::filesystem::remove(path);
  }
}
