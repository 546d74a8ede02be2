// Engine unit tests: example weights (TF's weight_column) through the
// session: the weighted training loss and its reductions, a boosted-trees
// layer grown from weighted gradients and hessians (values by hand), and the
// check of the weights themselves.
#include <testthat.h>

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include <cppestimators/model/boosted_trees.h>

#include "test-helpers.h"

using namespace cppestimators;
using namespace cppestimators::testing;

namespace {

bool near(double a, double b) { return std::fabs(a - b) < 1e-5; }

struct WeightedData {
  std::vector<double> a{3, 1, 4, 2}, b{1, 2, 3, 4}, y{1, 1, 5, 5}, w{3, 1, 1, 2};
  Dataset data;
  WeightedData() {
    data.n = 4;
    data.features = {doubles("a", a), doubles("b", b)};
    data.labels = y.data();
    data.weights = w.data();
    data.weight_key = "w";
  }
};

SessionOptions full_batches(Mode mode) {
  SessionOptions o;
  o.mode = mode;
  o.batch_size = 4;
  o.num_epochs = mode == Mode::Predict ? 1 : -1;
  return o;
}

// The message of the invalid_argument `f` throws ("" when none).
template <class F>
std::string message_of(F f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

}  // namespace

context("Example weights") {
  test_that("linear: the training loss is sum(w * loss), its mean sum(w * loss) / sum(w)") {
    WeightedData d;
    Estimator est(linear({numeric("a"), numeric("b")}, "SGD", 0.01));
    Session s(est, d.data, full_batches(Mode::Train));
    expect_true(s.run_step());
    // weights 0 at the start: every prediction is 0, losses y^2
    expect_true(near(s.loss(), 3 * 1 + 1 * 1 + 1 * 25 + 2 * 25));
    expect_true(near(s.average_loss(), 79.0 / 7.0));
    expect_true(s.weights() != nullptr);
    expect_true(s.weights()[0] == 3.0f);
  }

  test_that("boosted trees: one layer grown from weighted gradients and hessians") {
    WeightedData d;
    EstimatorSpec spec = linear({numeric("a"), numeric("b")}, "SGD", 0.1);
    spec.model.kind = "boosted_trees";
    spec.model.nums["n_trees"] = {1};
    spec.model.nums["max_depth"] = {1};
    spec.model.nums["learning_rate"] = {0.5};
    spec.model.nums["n_batches_per_layer"] = {1};
    Estimator est(spec);
    Session s(est, d.data, full_batches(Mode::Train));
    expect_true(s.run_step());
    // SUM_OVER_BATCH_SIZE: sum(w * y^2) / B with B = 4 rows (no weights in
    // the denominator); g = 2 w (0 - y) / 4 = (-1.5, -0.5, -2.5, -5),
    // h = 2 w / 4 = (1.5, 0.5, 0.5, 1); G = -9.5, H = 3.5.
    expect_true(near(s.loss(), (3.0 + 1 + 25 + 50) / 4));
    const auto& m = dynamic_cast<const BoostedTreesModel&>(est.model());
    // b <= bucket 1 (rows 1, 2; TF buckets a value equal to a boundary into
    // that boundary's bucket): 2^2 / 2 + 7.5^2 / 1.5 = 39.5, the best of
    // every candidate (a's best: 28.83); gain 39.5 - 9.5^2 / 3.5 = 96 / 7.
    // Leaf weights -G / H = 1 and 5: the weighted means of y on each side.
    expect_true(m.node_feature(0, 0) == 1);
    expect_true(m.node_threshold(0, 0) == 1);
    expect_true(near(m.node_gain(0, 0), 96.0 / 7.0));
    expect_true(near(m.node_value(0, 1), 0.5 * 1.0));
    expect_true(near(m.node_value(0, 2), 0.5 * 5.0));
  }

  test_that("evaluation weights its metrics; prediction reads no weights") {
    WeightedData d;
    Estimator est(linear({numeric("a"), numeric("b")}, "SGD", 0.01));
    SessionOptions o = full_batches(Mode::Eval);
    o.num_epochs = 1;
    Session s(est, d.data, o);
    expect_true(s.run_step());
    for (const auto& kv : s.metrics().result()) {
      if (kv.first == "average_loss") expect_true(near(kv.second, 79.0 / 7.0));
      if (kv.first == "label/mean") expect_true(near(kv.second, (3.0 + 1 + 5 + 10) / 7.0));
      if (kv.first == "loss") expect_true(near(kv.second, 79.0));
    }
    d.w[1] = -1;  // never read when predicting
    Session p(est, d.data, full_batches(Mode::Predict));
    expect_true(p.run_step());
    expect_true(p.weights() == nullptr);
  }

  test_that("weights must be finite and >= 0; the message names the column and the row") {
    WeightedData d;
    Estimator est(linear({numeric("a"), numeric("b")}, "SGD", 0.01));
    const auto open = [&] { Session s(est, d.data, full_batches(Mode::Train)); };
    d.w[2] = -0.5;
    expect_true(message_of(open) ==
                "weight column 'w' contains negative values (-0.5), first at row 3: weights must "
                "be >= 0");
    d.w[2] = std::nan("");
    expect_true(message_of(open) ==
                "weight column 'w' contains missing values (NA), first at row 3");
    d.w[2] = 1;
    d.w[0] = INFINITY;
    expect_true(message_of(open) == "weight column 'w' contains infinite values, first at row 1");
    d.w[0] = 0;
    expect_true(message_of(open).empty());  // weight 0 is allowed
  }
}
