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

test_that("a misspelt variable in a hook gets the nearest name and the variables", {
  logging <- hook_logging_tensor(list("linear/linear_model/x/weight"), every_n_iter = 1)
  expect_error(quietly(train(x_regressor(), x_input(), steps = 1, hooks = list(logging))),
               class = "cppestimators_error",
               regexp = paste0("hook_logging_tensor\\(\\): 'linear/linear_model/x/weight' is not a tensor of this session; ",
                               "known names are .*, and the estimator's variables; did you mean ",
                               "'linear/linear_model/x/weights'\\? The estimator's variables are ",
                               "linear/linear_model/bias_weights, "))
  fetching <- session_run_hook(before_run = function(context) session_run_args(w = "linear/linear_model/x/weigths"),
                               after_run = function(context, values) NULL)
  expect_error(quietly(train(x_regressor(), x_input(), steps = 1, hooks = list(fetching))),
               "unknown tensor 'linear/linear_model/x/weigths'; known names are .*; did you mean 'linear/linear_model/x/weights'\\?",
               class = "cppestimators_error")
})
