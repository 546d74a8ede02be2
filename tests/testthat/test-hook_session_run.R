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

# Fetches are compiled once and read again while the hook asks for the same
# tensors; these pin that every change is seen and nothing leaks between steps.

test_that("session_run_args() builds the same object as before, in one call", {
  args <- session_run_args(loss = "loss", options = list(x = 1))
  expect_s3_class(args, "cppestimators_session_run_args")
  expect_identical(unclass(args), list(fetches = list(loss = "loss"), feed_dict = NULL, options = list(x = 1)))
  expect_identical(unclass(session_run_args()), list(fetches = list(), feed_dict = NULL, options = NULL))
  expect_error(session_run_args(a = list("loss", 1)), class = "cppestimators_error",
               regexp = "session_run_args() takes tensor handles, tensor names or lists of them, not",
               fixed = TRUE)
  deep <- "loss"
  for (i in 1:101) deep <- list(deep)
  expect_error(session_run_args(a = deep), class = "cppestimators_error",
               regexp = "nested at most 100 levels deep")
})

test_that("fetches that change from step to step give each step its own values", {
  got <- list()
  step <- 0
  hook <- session_run_hook(
    before_run = function(context) {
      step <<- step + 1
      switch(step,
             session_run_args(a = "global_step"),
             session_run_args(a = "labels"),  # the same shape, another tensor
             session_run_args(b = "labels"),  # another name
             session_run_args(a = list("global_step", "labels")),  # another structure
             session_run_args(a = context$session$graph$get_tensor_by_name("global_step")),
             session_run_args(a = context$session$graph$get_tensor_by_name("global_step")),
             NULL,
             session_run_args(a = "global_step"))
    },
    after_run = function(context, values) got[step] <<- list(values$results))
  # one row per step: the labels of step k are 2 k + 1
  quietly(train(x_regressor(), x_input(), steps = 8, hooks = list(hook)))
  expect_identical(got[[1]], list(a = 1))
  expect_identical(got[[2]], list(a = 5))
  expect_identical(got[[3]], list(b = 7))
  expect_identical(got[[4]], list(a = list(4, 9)))
  expect_identical(got[[5]], list(a = 5))
  expect_identical(got[[6]], list(a = 6))
  expect_null(got[[7]])
  expect_identical(got[[8]], list(a = 8))
})

test_that("a fetch structure or handle changed in place is read again", {
  got <- list()
  fetches <- list(a = "global_step")
  handle <- NULL
  hook <- session_run_hook(
    before_run = function(context) {
      if (is.null(handle)) {
        handle <<- context$session$graph$get_tensor_by_name("global_step")
      } else {
        fetches$a <<- "labels"
        handle$name <<- "labels"
      }
      session_run_args(f = fetches, h = handle)
    },
    after_run = function(context, values) got[[length(got) + 1]] <<- values$results)
  quietly(train(x_regressor(), x_input(), steps = 2, hooks = list(hook)))
  expect_identical(got[[1]], list(f = list(a = 1), h = 1))
  expect_identical(got[[2]], list(f = list(a = 5), h = 5))
})

test_that("run values kept from one step are unchanged by the next ones", {
  kept <- list()
  plain <- list()
  fetching <- session_run_hook(
    before_run = function(context) session_run_args(step = "global_step", y = list("labels")),
    after_run = function(context, values) {
      kept[[length(kept) + 1]] <<- values
      values$results$step <- -1  # changes this function's copy only
    })
  no_fetches <- session_run_hook(after_run = function(context, values) {
    plain[[length(plain) + 1]] <<- values
    values$results <- "changed"
    names(values)[1] <- "x"
  })
  quietly(train(x_regressor(), x_input(), steps = 3, hooks = list(fetching, no_fetches)))
  expect_equal(vapply(kept, function(v) v$results$step, 0), c(1, 2, 3))
  expect_equal(vapply(kept, function(v) v$results$y[[1]], 0), c(3, 5, 7))
  expect_named(kept[[1]], c("results", "options", "run_metadata"))
  expect_length(plain, 3)
  for (v in plain) expect_identical(v, list(results = NULL, options = NULL, run_metadata = NULL))
})

test_that("fetch errors on later steps still name the hook and the phase", {
  step <- 0
  hook <- session_run_hook(
    before_run = function(context) {
      step <<- step + 1
      session_run_args(a = if (step < 3) "loss" else "lossy")
    },
    after_run = function(context, values) NULL)
  expect_error(quietly(train(x_regressor(), x_input(), steps = 5, hooks = list(hook))),
               class = "cppestimators_hook_error",
               regexp = "`before_run` of hook 1 (EstimatorSessionRunHook) failed: unknown tensor 'lossy'",
               fixed = TRUE)
  expect_equal(step, 3)
  # an object made by hand with a value that is not a fetch fails when read
  odd <- structure(list(fetches = list(a = "loss", b = 1)), class = "cppestimators_session_run_args")
  hook <- session_run_hook(before_run = function(context) odd, after_run = function(context, values) NULL)
  expect_error(quietly(train(x_regressor(), x_input(), steps = 2, hooks = list(hook))),
               class = "cppestimators_hook_error",
               regexp = "`after_run` of hook 1 (EstimatorSessionRunHook) failed: cannot fetch an object of type 'double'",
               fixed = TRUE)
  after <- session_run_hook(after_run = function(context, values) {
    if (context$session$run("global_step") == 2) stop("late")
  })
  expect_error(quietly(train(x_regressor(), x_input(), steps = 3,
                             hooks = list(session_run_hook(before_run = function(context) {
                               session_run_args(l = context$session$graph$get_collection("losses"))
                             }), after))),
               class = "cppestimators_hook_error",
               regexp = "`after_run` of hook 2 (EstimatorSessionRunHook) failed: late", fixed = TRUE)
})

test_that("each session checks the fetches of a hook again", {
  seen <- list()
  hook <- session_run_hook(before_run = function(context) session_run_args(y = "labels"),
                           after_run = function(context, values) seen[[length(seen) + 1]] <<- values$results$y)
  est <- x_regressor()
  quietly(train(est, x_input(), steps = 2, hooks = list(hook)))
  expect_equal(unlist(seen), c(3, 5))
  # predictions have no labels: the same hook fails in predict()'s first before_run
  expect_error(predict(est, x_input(num_epochs = 1), hooks = list(hook)),
               class = "cppestimators_hook_error",
               regexp = "`before_run` of hook 1 (EstimatorSessionRunHook) failed: unknown tensor 'labels'",
               fixed = TRUE)
})

test_that("session_run_args() gives equal fetches equal answers, and a changed answer is a copy", {
  losses <- list(cppestimators:::tensor("per_example_loss"))
  a <- session_run_args(losses = losses)
  b <- session_run_args(losses = losses)
  expect_identical(a, b)
  a$fetches$losses <- "loss"  # the caller's copy changes, the next answer does not
  expect_identical(session_run_args(losses = losses)$fetches$losses, losses)
  expect_identical(session_run_args(other = losses)$fetches, list(other = losses))
  expect_identical(session_run_args(losses = "global_step")$fetches, list(losses = "global_step"))
  expect_error(session_run_args(losses = 42), "session_run_args\\(\\) takes tensor handles")
  expect_identical(session_run_args(losses = losses)$fetches, list(losses = losses))
})
