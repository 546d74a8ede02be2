// Engine unit tests: the named tensors of a session (session/tensors.h):
// fixed names and the estimator's variables resolve to their values, ":0"
// suffixes are accepted, names a mode lacks or nobody knows are refused.
#include <testthat.h>

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include <cppestimators/session/tensors.h>

#include "test-helpers.h"

using namespace cppestimators;
using namespace cppestimators::testing;

context("Tensor registry") {
  test_that("fixed names and variables resolve to the last step's values") {
    LineData d;
    Estimator est(linear({numeric("x")}, "SGD", 0.01));
    Session s(est, d.data, batches_of(3, 1));
    expect_true(s.run_step());
    TensorValue v;
    expect_true(read_tensor(s, "loss", v));
    expect_true(v.shape.empty());
    expect_true(v.data == (std::vector<double>{83.0}));  // 3^2 + 5^2 + 7^2 from zero weights
    expect_true(read_tensor(s, "global_step:0", v));
    expect_true(v.integer);
    expect_true(v.data == (std::vector<double>{1.0}));
    expect_true(format_tensor(v) == "1");
    expect_true(read_tensor(s, "labels", v));
    expect_true(v.shape == (std::vector<int>{3}));
    expect_true(v.data == (std::vector<double>{3.0, 5.0, 7.0}));
    expect_true(read_tensor(s, "per_example_loss", v));
    expect_true(v.data == (std::vector<double>{9.0, 25.0, 49.0}));
    expect_true(read_tensor(s, "average_loss", v));
    expect_true(std::fabs(v.data[0] - 83.0 / 3.0) < 1e-5);
    expect_true(read_tensor(s, "logits", v));
    expect_true(v.data ==
                (std::vector<double>{0.0, 0.0, 0.0}));  // the forward pass before the update
    // SGD from zero: w = 0.01 * 2 * (3 + 10 + 21) = 0.68
    expect_true(read_tensor(s, "linear/linear_model/x/weights", v));
    expect_true(v.shape == (std::vector<int>{1, 1}));
    expect_true(std::fabs(v.data[0] - 0.68) < 1e-6);
    expect_true(format_tensor(v) == "[0.68]");
  }

  test_that("unknown names and names the mode lacks are refused, naming the known ones") {
    LineData d;
    Estimator est(linear({numeric("x")}));
    Session s(est, d.data, batches_of(3, 1, Mode::Predict));
    expect_true(s.run_step());
    TensorValue v;
    expect_true(!read_tensor(s, "labels", v));  // predict sessions have none
    expect_true(!tensor_exists(s, "labels"));
    expect_true(tensor_exists(s, "predictions"));
    expect_true(!read_tensor(s, "no_such_tensor", v));
    expect_true(!tensor_exists(s, "no_such_tensor:0"));
    expect_true(tensor_exists(s, "linear/linear_model/bias_weights:0"));
    const std::string msg =
        error_of([&] { require_tensor(s, "no_such_tensor", "hook_logging_tensor"); });
    const std::string known =
        "known names are loss, per_example_loss, average_loss, global_step, learning_rate, "
        "logits, predictions, labels, and the estimator's variables";
    expect_true(msg.rfind("hook_logging_tensor(): 'no_such_tensor' is not a tensor of this "
                          "session; " +
                              known + "; did you mean '",
                          0) == 0);
    expect_error_as(require_tensor(s, "labels", "hook_logging_tensor"), std::invalid_argument);
    // a name the session lacks a value of gets no suggestion
    expect_true(error_of([&] { require_tensor(s, "labels", "hook_nan_tensor"); }) ==
                "hook_nan_tensor(): 'labels' is not a tensor of this session; " + known);
  }

  test_that("a misspelt variable is refused with the nearest name and the variables") {
    LineData d;
    Estimator est(linear({numeric("x")}, "SGD", 0.01));
    Session s(est, d.data, batches_of(3, 1));
    const std::string msg = error_of(
        [&] { require_tensor(s, "linear/linear_model/x/weight:0", "hook_logging_tensor"); });
    expect_true(msg.find("and the estimator's variables; did you mean "
                         "'linear/linear_model/x/weights'? The estimator's variables are "
                         "linear/linear_model/bias_weights, linear/linear_model/x/weights") !=
                std::string::npos);
    expect_true(detail::edit_distance("kitten", "sitting") == 3);
    expect_true(detail::edit_distance("", "abc") == 3);
    expect_true(detail::edit_distance("same", "same") == 0);
  }
}
