// Engine unit tests: a training step split into the strategy's two calls.
// Computing the statistics changes no variable; applying them (here after a
// stand-in for a sum across processes: one process and an empty one) gives
// what a session's training step gives, for a linear model's gradient step
// and a boosted trees layer (whose split is also checked by hand).
#include <testthat.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include <cppestimators/model/boosted_trees.h>
#include <cppestimators/model/estimator_io.h>

#include "test-helpers.h"

using namespace cppestimators;
using namespace cppestimators::testing;

namespace {

bool near(double a, double b, double tol = 1e-6) { return std::fabs(a - b) <= tol; }

// Every variable's values, to compare two estimators or two moments.
std::vector<std::vector<float>> snapshot(const Estimator& est) {
  std::vector<std::vector<float>> out;
  for (const VariableRef& v : est.variables()) out.emplace_back(v.data, v.data + v.size);
  return out;
}

// A batch of every row of `data`, bound and gathered as a session would for
// one training step, with its logits and logit gradients.
struct ManualStep {
  Estimator& est;
  const Dataset& data;
  std::unique_ptr<FeatureSet::Binding> binding;
  FeatureBatch batch;
  std::unique_ptr<Workspace> ws;
  std::vector<int> rows;
  std::vector<float> labels, logits, dlogits, per_example;

  ManualStep(Estimator& e, const Dataset& d) : est(e), data(d) {
    const FeatureSet& fs = est.model().features();
    const int n = static_cast<int>(data.n);
    binding = fs.bind(data);
    fs.allocate(*binding, n, batch);
    batch.data_rows = data.n;
    est.model().begin_session(*binding, data.n, nullptr, Mode::Train, 1);
    ws = est.model().new_workspace(batch, n, 1);
    for (int i = 0; i < n; ++i) rows.push_back(i);
    for (int i = 0; i < n; ++i) labels.push_back(static_cast<float>(data.labels[i]));
    logits.assign(static_cast<std::size_t>(n), 0.0f);
    dlogits.assign(static_cast<std::size_t>(n), 0.0f);
    per_example.assign(static_cast<std::size_t>(n), 0.0f);
  }

  // The forward pass and the loss's gradients, scaled as the session does.
  void forward() {
    const int n = static_cast<int>(data.n);
    est.model().features().gather(*binding, rows.data(), n, batch);
    batch.distinct_rows = true;
    est.model().forward(batch, Mode::Train, *ws, logits.data());
    est.head().loss(logits.data(), labels.data(), n, per_example.data(), dlogits.data());
    if (est.model().training().loss_is_batch_mean())
      for (float& g : dlogits) g /= static_cast<float>(n);
  }

  StepStats compute() {
    return est.model().training().compute(batch, logits.data(), dlogits.data(), est.head(), *ws);
  }
  void apply(const StepStats& stats) {  // (and, as a session, the variables' table kept up)
    est.model().training().apply(stats, est.optimizers(), *ws);
    if (est.model().take_resized()) est.refresh_variables();
  }
};

// A session's first training step over every row, in one batch.
void session_step(Estimator& est, const Dataset& data) {
  SessionOptions o;
  o.batch_size = static_cast<int>(data.n);
  o.num_epochs = -1;
  Session s(est, data, o);
  s.run_step();
}

EstimatorSpec stump(const std::string& column) {
  EstimatorSpec e;
  e.model.kind = "boosted_trees";
  e.model.lists["feature_columns"] = {numeric(column)};
  e.model.nums = {
      {"n_trees", {1}}, {"max_depth", {1}}, {"n_batches_per_layer", {1}}, {"learning_rate", {0.1}}};
  e.optimizers.push_back(optimizer("SGD", 0.1));
  return e;
}

}  // namespace

context("Training strategies: statistics, then their application") {
  test_that("a gradient step's statistics applied once equal a linear model's training step") {
    std::vector<double> x{1, 2, 3}, y{1, 1, 1};
    Dataset d;
    d.n = 3;
    d.features = {doubles("x", x)};
    d.labels = y.data();
    Estimator by_session(linear({numeric("x")}, "Adagrad", 0.1)),
        by_parts(linear({numeric("x")}, "Adagrad", 0.1));
    session_step(by_session, d);

    ManualStep step(by_parts, d);
    step.forward();
    const auto before = snapshot(by_parts);
    const StepStats stats = step.compute();
    expect_true((stats.gradients != nullptr && stats.sums == nullptr && !stats.empty()));
    expect_true((snapshot(by_parts) == before));  // computing changes nothing
    // the summed loss's gradients: dlogits = 2 (0 - 1) per row
    for (const Gradient& g : *stats.gradients) {
      if (g.param->views.front().name == "linear/linear_model/x/weights")
        expect_true((near(g.dense[0], -12.0)));
      if (g.param->views.front().name == "linear/linear_model/bias_weights")
        expect_true((near(g.dense[0], -6.0)));
    }
    step.apply(stats);
    expect_true((snapshot(by_parts) == snapshot(by_session)));
    expect_true((!by_parts.model().training().finished() &&
                 !by_parts.model().training().loss_is_batch_mean()));
    expect_true((by_parts.model().training().importances().empty()));
  }

  test_that(
      "a boosting layer's statistics, summed with an empty process's and applied, grow the "
      "session's split") {
    std::vector<double> x{1, 2, 3, 4, 5, 6, 7, 8}, y{0, 0, 0, 0, 1, 1, 1, 1};
    Dataset d;
    d.n = 8;
    d.features = {doubles("x", x)};
    d.labels = y.data();
    Estimator by_session(stump("x")), by_parts(stump("x"));
    session_step(by_session, d);
    expect_true((by_session.model().training().finished()));  // one tree of depth 1: one step

    ManualStep step(by_parts, d);
    step.forward();
    const auto before = snapshot(by_parts);
    StepStats stats = step.compute();
    expect_true((stats.gradients == nullptr && stats.sums != nullptr && !stats.empty()));
    expect_true((snapshot(by_parts) == before));  // computing changes nothing
    // the root's totals close its statistics: G = sum 2 (0 - y) / 8 = -1, H = 8 x 2 / 8 = 2
    expect_true((near(stats.sums[stats.sum_count - 2], -1.0) &&
                 near(stats.sums[stats.sum_count - 1], 2.0)));
    // another process's statistics of an empty share, added in
    const std::vector<double> other(stats.sum_count, 0.0);
    for (std::size_t i = 0; i < stats.sum_count; ++i) stats.sums[i] += other[i];
    step.apply(stats);
    expect_true((snapshot(by_parts) == snapshot(by_session)));

    // by hand: x <= 4 (bucket 3 of boundaries 1..8, TF's lower_bound) goes left: G = 0, H = 1 on
    // the left, G = -1, H = 1 on the right; gain 0 + 1 - 1/2; right weight 1
    const auto& model = static_cast<const BoostedTreesModel&>(by_parts.model());
    expect_true((model.node_feature(0, 0) == 0 && model.node_threshold(0, 0) == 3));
    expect_true((near(model.node_gain(0, 0), 0.5)));
    expect_true((model.node_value(0, 1) == 0.0f && near(model.node_value(0, 2), 0.1)));
    expect_true((model.finished_trees() == 1.0 && by_parts.model().training().finished()));
    const auto imp = by_parts.model().training().importances();
    expect_true((imp.size() == 1 && imp[0].first == "x" && near(imp[0].second, 0.5)));
    // once finished, a step computes nothing and applying nothing changes nothing
    step.forward();
    const auto done = snapshot(by_parts);
    const StepStats none = step.compute();
    expect_true((none.empty()));
    step.apply(none);
    expect_true((snapshot(by_parts) == done));
  }

  test_that(
      "layers grown through the strategy's two calls match a session's over several batches") {
    std::vector<double> x, z, y;
    for (int i = 0; i < 64; ++i) {
      x.push_back((i * 37) % 64);
      z.push_back((i * 11) % 7);
      y.push_back(((i * 37) % 64) > 20 ? 1.0 + 0.1 * ((i * 11) % 7) : -0.5);
    }
    Dataset d;
    d.n = 64;
    d.features = {doubles("x", x), doubles("z", z)};
    d.labels = y.data();
    EstimatorSpec spec = stump("x");
    spec.model.lists["feature_columns"] = {numeric("x"), numeric("z")};
    spec.model.nums["n_trees"] = {3};
    spec.model.nums["max_depth"] = {3};
    spec.model.nums["n_batches_per_layer"] = {2};
    spec.model.nums["l2_regularization"] = {0.5};
    Estimator by_session(spec), by_parts(spec);
    {
      SessionOptions o;
      o.batch_size = 64;
      o.num_epochs = -1;
      Session s(by_session, d, o);
      while (s.run_step()) {
      }
    }
    ManualStep step(by_parts, d);
    int steps = 0;
    while (!by_parts.model().training().finished() && steps < 100) {
      step.forward();
      step.apply(step.compute());
      ++steps;
    }
    expect_true((by_session.model().training().finished() && steps > 2));
    expect_true((snapshot(by_parts) == snapshot(by_session)));
  }
}
