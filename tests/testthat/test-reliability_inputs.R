# Inputs at the edges (issue 24): huge step counts, dates given as numbers,
# fetches nested past the documented depth, and the order of the classes of
# every condition the package raises.

test_that("a huge num_steps or last_step names the argument and the limit", {
  expect_error(hook_stop_at_step(num_steps = 1e19), class = "cppestimators_error",
               regexp = "`num_steps` must be <= 2^53 (9007199254740992), given: 1e+19.", fixed = TRUE)
  expect_error(hook_stop_at_step(last_step = 2^60), class = "cppestimators_error",
               regexp = "`last_step` must be <= 2^53 (9007199254740992)", fixed = TRUE)
  expect_error(train(linear_regressor(feature_columns(column_numeric("drat"))),
                     input_fn(mtcars, features = "drat", response = "mpg"), steps = 1e19),
               class = "cppestimators_error",
               regexp = "`steps` must be <= 2^53 (9007199254740992), given: 1e+19.", fixed = TRUE)
  expect_s3_class(hook_stop_at_step(num_steps = 2^53), "cppestimators_hook")
})

test_that("Date, POSIXct and difftime features are refused by column_numeric(), with how to convert", {
  d <- data.frame(y = 1:6, when = as.Date("2020-01-01") + 0:5,
                  at = as.POSIXct("2020-01-01", tz = "UTC") + 3600 * (0:5),
                  lag = as.difftime(1:6, units = "hours"))
  fit <- function(col, ...) {
    est <- linear_regressor(feature_columns(column_numeric(col, ...)))
    quietly(train(est, input_fn(d, features = col, response = "y"), steps = 1))
  }
  expect_error(fit("when"), class = "cppestimators_feature_type", fixed = TRUE,
               regexp = paste0("the feature 'when' of column_numeric('when') is a Date, which it would read as ",
                               "days since 1970-01-01. Convert it on purpose: e.g. data$when <- ",
                               "as.numeric(data$when), a column of its year or month, or a normalizer_fn ",
                               "that converts it."))
  expect_error(fit("at"), class = "cppestimators_feature_type", fixed = TRUE,
               regexp = "is a date-time (POSIXct), which it would read as seconds since 1970-01-01 00:00:00 UTC")
  expect_error(fit("lag"), class = "cppestimators_feature_type", fixed = TRUE,
               regexp = "is a difftime, which it would read as a count of hours")
  # tidymodels users are pointed to recipes' step_date() (step_time() for date-times)
  expect_error(fit("when"), class = "cppestimators_feature_type", fixed = TRUE,
               regexp = paste0("a normalizer_fn that converts it. With tidymodels, a recipe's step_date() makes ",
                               "its year, month and day of the week columns."))
  expect_error(fit("at"), class = "cppestimators_feature_type",
               regexp = "as\\.numeric\\(data\\$at\\).*step_date\\(\\) \\(and step_time\\(\\)")
  lag_error <- tryCatch(fit("lag"), error = conditionMessage)
  expect_false(grepl("step_date", lag_error, fixed = TRUE))
  # feature_columns_from_data() too
  expect_error(feature_columns_from_data(d["when"]), class = "cppestimators_error",
               regexp = "is a Date vector of length 6: .*as\\.numeric\\(\\) of it.*step_date\\(\\)")
  # the data frame path refuses them as well
  est <- linear_regressor(feature_columns(column_numeric("when")))
  expect_error(quietly(train(est, d[c("when", "y")], response = "y", steps = 1)),
               class = "cppestimators_feature_type")
  # converting on purpose trains, and a normalizer that returns a Date is refused
  history <- fit("when", normalizer_fn = function(x) as.numeric(x - as.Date("2020-01-01")))
  expect_equal(unique(as.data.frame(history)$step), 1)
  expect_error(fit("when", normalizer_fn = function(x) x + 1), class = "cppestimators_error",
               regexp = "the normalizer_fn of column 'when' returned a Date vector of length 6; it must return numbers",
               fixed = TRUE)
})

test_that("session_run_args() refuses fetches nested more than 100 levels deep", {
  deep <- "loss"
  for (i in seq_len(1e6)) deep <- list(deep)
  expect_error(session_run_args(a = deep), class = "cppestimators_error", fixed = TRUE,
               regexp = "session_run_args() takes lists of tensors nested at most 100 levels deep")
  ok <- "loss"
  for (i in seq_len(99)) ok <- list(ok)
  expect_s3_class(session_run_args(a = ok), "cppestimators_session_run_args")
  # and the fetch at that depth comes back in after_run()
  got <- NULL
  hook <- session_run_hook(before_run = function(context) session_run_args(a = ok),
                           after_run = function(context, values) {
                             v <- values$results$a
                             for (i in seq_len(99)) v <- v[[1]]
                             got <<- v
                           })
  est <- linear_regressor(feature_columns(column_numeric("drat")))
  quietly(train(est, input_fn(mtcars, features = "drat", response = "mpg"), steps = 1, hooks = list(hook)))
  expect_true(is.numeric(got) && length(got) == 1 && got > 0)
})

test_that("the package's conditions put the most specific class first", {
  est <- linear_regressor(feature_columns(column_numeric("drat")))
  input <- input_fn(mtcars, features = "drat", response = "mpg", batch_size = 8)
  failing <- session_run_hook(after_run = function(context, values) stop("boom"))
  classes <- function(expr) class(tryCatch(expr, error = identity))
  package_order <- function(cls) {
    ours <- grep("^cppestimators_", cls)
    # every class of ours before "error", the catch-all of ours after the specific ones
    expect_true(all(ours < match("error", cls)))
    expect_equal(cls[max(ours)], "cppestimators_error")
  }
  hook_err <- classes(quietly(train(est, input, steps = 2, hooks = list(failing))))
  expect_equal(hook_err, c("cppestimators_hook_error", "cppestimators_error", "error", "condition"))
  quietly(train(est, input, steps = 2))
  expect_equal(classes(quietly(evaluate(est, input, hooks = list(failing))))[1:2],
               c("cppestimators_hook_error", "cppestimators_error"))
  evaluator <- hook_in_memory_evaluator(est, input, every_n_iter = 1, hooks = list(failing))
  expect_equal(classes(quietly(train(est, input, steps = 2, hooks = list(evaluator))))[1:2],
               c("cppestimators_hook_error", "cppestimators_error"))
  for (cls in list(hook_err, classes(variable_value(est, "nope")),
                   classes(session_run_hook(begin = function(x) x)),
                   classes(train(est, data.frame(drat = as.Date("2020-01-01") + 1:3, mpg = 1:3),
                                 response = "mpg", steps = 1)),
                   classes(train(est, input, steps = 0)))) {
    package_order(cls)
  }
})
