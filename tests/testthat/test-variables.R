# variable_names() and variable_value(): what an unknown name says.

test_that("an unknown variable lists the known ones with the nearest match", {
  est <- x_regressor()
  quietly(train(est, x_input(), steps = 1))
  expect_error(variable_value(est, "linear/linear_model/x/weight"), class = "cppestimators_unknown_variable",
               regexp = paste0("Variable not found: linear/linear_model/x/weight; did you mean ",
                               "'linear/linear_model/x/weights'? The estimator's variables are global_step, ",
                               "linear/linear_model/bias_weights, "), fixed = TRUE)
  expect_error(variable_value(est, c("global_step", "bias")), class = "cppestimators_error",
               regexp = "Variable not found: bias; did you mean '.*'\\? The estimator's variables are .*\\(see variable_names\\(\\)\\)\\.$")
  expect_equal(variable_value(est, "global_step"), list(global_step = 1))
  expect_named(variable_value(est, "linear/linear_model/x/weights"), "linear/linear_model/x/weights")
})
