// Engine unit tests: the one registry shape of every family (kinds listed,
// unknown kinds refused by name), built-in hooks built from their specs, and
// hooks that find each other at begin() (an early stopper and an evaluator).
#include <testthat.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include <cppestimators/features/registry.h>
#include <cppestimators/hooks/eval_records.h>
#include <cppestimators/hooks/history_saver.h>
#include <cppestimators/hooks/hook_env.h>
#include <cppestimators/hooks/registry.h>
#include <cppestimators/model/heads/registry.h>
#include <cppestimators/model/optimizers/registry.h>
#include <cppestimators/model/registry.h>
#include <cppestimators/session/monitored_loop.h>

#include "test-helpers.h"

using namespace cppestimators;

using testing::error_of;

namespace {

bool lists(const std::vector<std::string>& kinds, const std::string& kind) {
  return std::find(kinds.begin(), kinds.end(), kind) != kinds.end();
}

Spec hook_spec(const std::string& kind) {
  Spec s;
  s.kind = kind;
  return s;
}

// y = 2x over `n` rows, a linear regressor and a session over them.
struct LineFit {
  std::vector<double> x, y;
  Dataset data;
  Estimator est;
  Session session;
  LineFit(int n, int batch, std::int64_t epochs)
      : x(rows(n, 1)),
        y(rows(n, 2)),
        data(dataset(x, y)),
        est(testing::linear({testing::numeric("x")}, "SGD", 0.01)),
        session(est, data, options(batch, epochs)) {}
  static std::vector<double> rows(int n, double slope) {
    std::vector<double> v;
    for (int i = 1; i <= n; ++i) v.push_back(slope * i);
    return v;
  }
  static Dataset dataset(const std::vector<double>& x, const std::vector<double>& y) {
    Dataset d;
    d.n = static_cast<std::int64_t>(x.size());
    d.features.push_back(testing::doubles("x", x));
    d.labels = y.data();
    return d;
  }
  static SessionOptions options(int batch, std::int64_t epochs) {
    SessionOptions o;
    o.batch_size = batch;
    o.num_epochs = epochs;
    return o;
  }
};

// Collects message() lines.
class Messages : public NullServices {
 public:
  void message(const std::string& text) override { lines.push_back(text); }
  std::vector<std::string> lines;
};

// An evaluator whose evaluations return a scripted loss, one per call.
class ScriptedEvalEnv : public PlainHookEnv {
 public:
  ScriptedEvalEnv(Services& svc, std::vector<double> losses)
      : PlainHookEnv(svc), losses_(std::move(losses)) {}
  EvaluationFn evaluation(const Spec&, const std::string&) override {
    return [this](Session&) {
      const double v = losses_[std::min(calls_, losses_.size() - 1)];
      ++calls_;
      return MetricList{{"loss", v}};
    };
  }
  std::size_t calls() const { return calls_; }

 private:
  std::vector<double> losses_;
  std::size_t calls_ = 0;
};

}  // namespace

context("Registries") {
  test_that("every family lists its kinds, sorted") {
    expect_true(lists(column_registry().kinds(), "hash_bucket"));
    expect_true(lists(head_registry().kinds(), "multi_class"));
    expect_true(lists(optimizer_registry().kinds(), "Ftrl"));
    expect_true(lists(model_registry().kinds(), "boosted_trees"));
    const auto hooks = hook_registry().kinds();
    expect_true(hooks.size() == 15);
    expect_true(lists(hooks, "early_stopping"));
    expect_true(lists(hooks, "reduce_lr_on_plateau"));
    expect_true(lists(hooks, "csv_logger"));
    expect_true(lists(hooks, "session_run_hook"));
    expect_true(std::is_sorted(hooks.begin(), hooks.end()));
  }

  test_that("an unknown kind is an error naming it and the known ones") {
    const std::string hook = error_of([] {
      Messages svc;
      PlainHookEnv env(svc);
      make_hook(hook_spec("progress_barr"), env);
    });
    expect_true(hook.find("unknown hook kind 'progress_barr'") != std::string::npos);
    expect_true(hook.find("'progress_bar'") != std::string::npos);
    const std::string opt = error_of([] { make_optimizer(testing::optimizer("Nadam", 0.1)); });
    expect_true(opt ==
                "Unsupported optimizer name: Nadam. Supported names are: Adagrad, Adam, Ftrl, "
                "Momentum, RMSProp, SGD");
    const std::string head = error_of([] { make_head("poisson", 1); });
    expect_true(head ==
                "unknown head 'poisson'; known heads are 'absolute_error', 'binary', "
                "'gamma_regression', 'huber', 'logistic_regression', 'multi_class', 'multi_label', "
                "'poisson_regression', 'pseudo_huber', 'quantile', 'regression', 'tweedie'");
    const std::string column = error_of([] { make_transform(testing::column("numerc", "x")); });
    expect_true(column.find("unknown feature column kind 'numerc'") != std::string::npos);
  }

  test_that("a kind registered twice is refused") {
    Registry<Hook, HookEnv&> r("hook");
    r.add<HistorySaverHook>("history_saver");
    const std::string e = error_of([&] { r.add<HistorySaverHook>("history_saver"); });
    expect_true(e == "the hook kind 'history_saver' is registered twice");
  }

  test_that("host callables are refused where the environment has none") {
    Messages svc;
    PlainHookEnv env(svc);
    Spec s = hook_spec("session_run_hook");
    const std::string e = error_of([&] { make_hook(s, env); });
    expect_true(e == "this environment cannot run a custom hook of the host");
    Spec ev = hook_spec("in_memory_evaluator");
    ev.handles["evaluate"] = 0;
    const std::string e2 = error_of([&] { make_hook(ev, env); });
    expect_true(e2 == "this environment cannot run an evaluation of the host");
  }
}

context("Hooks built from their specs") {
  test_that("spec fields reach the hook: stop_at_step and the history saver") {
    LineFit fit(4, 1, -1);
    Session& s = fit.session;
    Messages svc;
    PlainHookEnv env(svc);
    Spec stop = hook_spec("stop_at_step");
    stop.nums["num_steps"] = {5};
    Spec hist = hook_spec("history_saver");
    hist.nums["every_n_step"] = {2};
    auto hooks = make_hooks({stop, hist}, env);
    std::vector<Hook*> list{hooks[0].get(), hooks[1].get()};
    const LoopOutcome out = run_monitored(s, list, svc);
    expect_true(out.steps == 5);
    expect_true(hooks[0]->recorded_history() == nullptr);
    const History* h = hooks[1]->recorded_history();
    expect_true(h != nullptr);
    // every 2nd iteration, and the last one
    expect_true((h->steps == std::vector<std::int64_t>{2, 4, 5}));
  }

  test_that("an unknown early-stopping rule is an error, not a default") {
    Messages svc;
    PlainHookEnv env(svc);
    Spec s = hook_spec("early_stopping");
    s.strs["rule"] = {"no_decreasee"};
    s.strs["metric_name"] = {"loss"};
    s.strs["eval_dir"] = {"unused"};
    const std::string e = error_of([&] { make_hook(s, env); });
    expect_true(e.find("unknown early-stopping rule 'no_decreasee'") != std::string::npos);
  }

  test_that("an early stopper finds the evaluator at begin() and stops on its results") {
    LineFit fit(4, 2, -1);
    Session& s = fit.session;
    Messages svc;
    // evaluations at steps 0, 2, 4, 6, ...: the loss stops decreasing at step 2
    ScriptedEvalEnv env(svc, {5, 3, 4, 4, 4, 4, 4, 4});
    Spec stopper = hook_spec("early_stopping");
    stopper.strs["rule"] = {"no_decrease"};
    stopper.strs["metric_name"] = {"loss"};
    stopper.strs["eval_dir"] = {"unused"};
    stopper.nums["max_steps_without"] = {4};
    stopper.nums["run_every_steps"] = {1};
    stopper.nums["follow_evaluator"] = {1};
    Spec evaluator = hook_spec("in_memory_evaluator");
    evaluator.nums["every_n_iter"] = {2};
    evaluator.strs["name"] = {"holdout"};
    Spec limit = hook_spec("stop_at_step");
    limit.nums["num_steps"] = {100};
    // the stopper comes first: it finds the evaluator wherever it is
    auto hooks = make_hooks({stopper, evaluator, limit}, env);
    std::vector<Hook*> list{hooks[0].get(), hooks[1].get(), hooks[2].get()};
    const LoopOutcome out = run_monitored(s, list, svc);
    expect_true(out.steps == 6);
    EvalRecords* records = hooks[1]->evaluation_records();
    expect_true(records != nullptr);
    expect_true(records->name() == "holdout");
    expect_true(records->records().size() == 4);  // steps 0, 2, 4, 6
    expect_true(svc.lines.back() == "Requesting early stopping at global step 6");
    expect_true(s.hooks().empty());  // the loop's hooks are not kept past it
  }

  test_that("restore_best without an evaluator is refused at begin()") {
    LineFit fit(2, 2, 1);
    Session& s = fit.session;
    Messages svc;
    PlainHookEnv env(svc);
    Spec stopper = hook_spec("early_stopping");
    stopper.strs["rule"] = {"no_decrease"};
    stopper.strs["metric_name"] = {"loss"};
    stopper.strs["eval_dir"] = {"unused"};
    stopper.nums["follow_evaluator"] = {1};
    stopper.nums["restore_best"] = {1};
    auto hooks = make_hooks({stopper}, env);
    std::vector<Hook*> list{hooks[0].get()};
    const std::string e = error_of([&] { run_monitored(s, list, svc); });
    expect_true(e.find("restore_best = TRUE needs a hook_in_memory_evaluator()") !=
                std::string::npos);
  }
}
