# session_run_hook() checks each callback's signature when the hook is made.

test_that("callbacks with the wrong signature are errors naming the expected one", {
  expect_error(session_run_hook(after_run = function(values) NULL), class = "cppestimators_error",
               regexp = "`after_run` must be a function(context, values); it takes (values).", fixed = TRUE)
  expect_error(session_run_hook(begin = function(x) NULL), class = "cppestimators_error",
               regexp = "`begin` must be a function(); it takes (x).", fixed = TRUE)
  expect_error(session_run_hook(before_run = function() NULL), class = "cppestimators_error",
               regexp = "`before_run` must be a function(context); it takes ().", fixed = TRUE)
  expect_error(session_run_hook(after_create_session = function(session) NULL), class = "cppestimators_error",
               regexp = "`after_create_session` must be a function(session, coord); it takes (session).",
               fixed = TRUE)
  expect_error(session_run_hook(end = function(session, extra) NULL), class = "cppestimators_error",
               regexp = "`end` must be a function(session); it takes (session, extra).", fixed = TRUE)
  expect_snapshot(error = TRUE, session_run_hook(after_run = function(values) NULL))
})

test_that("`...`, defaults and other argument names are accepted", {
  expect_silent(session_run_hook(
    begin = function(...) NULL,
    after_create_session = function(s, c) NULL,
    before_run = function(ctx, extra = 1) NULL,
    after_run = function(...) NULL,
    end = function(session, ...) NULL))
  expect_silent(session_run_hook(after_run = function(context, ...) NULL, begin = function(verbose = TRUE) NULL))
  expect_silent(session_run_hook(end = print))  # a closure taking (x, ...)
  expect_silent(session_run_hook(before_run = identity))
  # the checked callbacks still run
  seen <- 0
  hook <- session_run_hook(after_run = function(...) seen <<- seen + 1)
  quietly(train(x_regressor(), x_input(), steps = 3, hooks = list(hook)))
  expect_equal(seen, 3)
})
