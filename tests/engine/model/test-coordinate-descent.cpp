// Engine unit tests: the linear model's coordinate-descent solver against
// closed forms (least squares, a lasso of one column, the logistic fit of
// a two-level factor) and its refusals.
#include <testthat.h>

#include <cmath>
#include <string>
#include <vector>

#include "test-helpers.h"

using namespace cppestimators;
using namespace cppestimators::testing;

namespace {

EstimatorSpec solved(std::vector<Spec> columns, double l1, double l2,
                     const std::string& head = "regression") {
  EstimatorSpec e = linear(std::move(columns), "Ftrl", 0.2, head, head == "regression" ? 1 : 2);
  e.model.strs["solver"] = {"coordinate_descent"};
  e.model.nums["solver_l1"] = {l1};
  e.model.nums["solver_l2"] = {l2};
  return e;
}

float variable(const Estimator& est, const std::string& name) {
  return est.find_variable(name)->data[0];
}

// Trains every row at each step until the solver ends training (at most
// `epochs` steps); returns the steps taken.
int train_all(Estimator& est, const Dataset& data, int epochs = 100, int batch = 0) {
  SessionOptions o = batches_of(batch > 0 ? batch : static_cast<int>(data.n), epochs);
  Session s(est, data, o);
  int steps = 0;
  while (s.run_step()) ++steps;
  return steps;
}

}  // namespace

context("Coordinate descent") {
  test_that("least squares: one Newton step is the exact fit, and training then ends") {
    LineData d;  // y = 2x + 1
    Estimator est(solved({numeric("x")}, 0.0, 0.0));
    const int steps = train_all(est, d.data);
    expect_true((std::fabs(variable(est, "linear/linear_model/x/weights") - 2.0f) < 1e-4f));
    expect_true((std::fabs(variable(est, "linear/linear_model/bias_weights") - 1.0f) < 1e-4f));
    expect_true((steps >= 1 && steps <= 3));
    // a finished fit freed its copy of the rows; training again copies them
    // again, finds nothing to lower and ends after one step
    const float w = variable(est, "linear/linear_model/x/weights");
    expect_true(train_all(est, d.data) == 1);
    expect_true(std::fabs(variable(est, "linear/linear_model/x/weights") - w) < 1e-6f);
  }
  test_that("a lasso of one column is the soft-thresholded slope, the bias unpenalized") {
    // sum (y - b - w x)^2 + 14 |w| over x = 1..6, y = 2x + 1:
    // w = (2 * 35 - 14) / (2 * 17.5) = 1.6, b = mean(y) - w mean(x) = 2.4
    LineData d;
    Estimator est(solved({numeric("x")}, 14.0, 0.0));
    train_all(est, d.data);
    expect_true((std::fabs(variable(est, "linear/linear_model/x/weights") - 1.6f) < 1e-4f));
    expect_true((std::fabs(variable(est, "linear/linear_model/bias_weights") - 2.4f) < 1e-4f));
    // and a ridge: w = 70 / (35 + 2 * 10)
    Estimator ridge(solved({numeric("x")}, 0.0, 10.0));
    train_all(ridge, d.data);
    expect_true(
        (std::fabs(variable(ridge, "linear/linear_model/x/weights") - 70.0f / 55.0f) < 1e-4f));
  }
  test_that("a logistic fit of a two-level factor: the logits of each level's share of 1s") {
    // level "a": 1 of 4 rows is 1; level "b": 3 of 4
    std::vector<std::string> g = {"a", "a", "a", "a", "b", "b", "b", "b"};
    std::vector<double> y = {1, 0, 0, 0, 1, 1, 1, 0};
    Dataset data;
    data.n = 8;
    data.features.push_back(strings("g", g));
    data.labels = y.data();
    Spec col = column("vocabulary_list", "g");
    col.strs["key"] = {"g"};
    col.strs["vocabulary"] = {"a", "b"};
    Estimator est(solved({col}, 0.0, 0.0, "binary"));
    train_all(est, data);
    const float* w = est.find_variable("linear/linear_model/g/weights")->data;
    const float b = variable(est, "linear/linear_model/bias_weights");
    expect_true((std::fabs(b + w[0] - std::log(1.0 / 3.0)) < 1e-3));
    expect_true((std::fabs(b + w[1] - std::log(3.0)) < 1e-3));
  }
  test_that("batches of some rows and embedding columns are refused with what to do") {
    LineData d;
    Estimator est(solved({numeric("x")}, 0.0, 0.0));
    const std::string e = error_of([&] { train_all(est, d.data, 3, 4); });
    expect_true(contains(e, "every row of the data in memory, in order"));
    Spec cat = column("vocabulary_list", "g");
    cat.strs["key"] = {"g"};
    cat.strs["vocabulary"] = {"a", "b"};
    Spec emb = column("embedding", "g_embedding");
    emb.lists["categorical_column"] = {cat};
    emb.nums["dimension"] = {2};
    const std::string e2 = error_of([&] { Estimator bad(solved({emb}, 0.0, 0.0)); });
    expect_true(contains(e2, "embedding column 'g_embedding'"));
  }
}
