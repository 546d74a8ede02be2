# train() looks at model_dir once per call (open_training()): counted by
# tracing the package's functions.

# The calls of the package's function `fn` while `code` runs, and the value
# of `code`.
count_calls <- function(fn, code) {
  ns <- asNamespace("cppestimators")
  n <- 0L
  suppressMessages(trace(fn, tracer = function() n <<- n + 1L, where = ns, print = FALSE))
  on.exit(suppressMessages(untrace(fn, where = ns)), add = TRUE)
  value <- code
  list(calls = n, value = value)
}

test_that("train() syncs from model_dir once per call and resumes from another object's checkpoint", {
  dir <- tempfile()
  est <- x_regressor(model_dir = dir)
  quietly(train(est, x_input(), steps = 2))
  other <- x_regressor(model_dir = dir)
  quietly(train(other, x_input(), steps = 3))
  # est's next call starts from the checkpoint the other object wrote
  synced <- count_calls("sync_from_model_dir", quietly(train(est, x_input(), steps = 1)))
  expect_identical(synced$calls, 1L)
  expect_equal(max(wide(synced$value)$steps), 6)
  # the checkpoint index is read twice: by the sync before the session and
  # after it, to note the checkpoint the session wrote
  read <- count_calls("cpp_latest_checkpoint", quietly(train(est, x_input(), steps = 1)))
  expect_identical(read$calls, 2L)
  expect_equal(max(wide(read$value)$steps), 7)
  # the other object picks up est's steps at its next call, once
  synced <- count_calls("sync_from_model_dir", quietly(train(other, x_input(), steps = 1)))
  expect_identical(synced$calls, 1L)
  expect_equal(max(wide(synced$value)$steps), 8)
  # max_steps reached already: one sync, one read, no session
  skipped <- count_calls("cpp_latest_checkpoint", count_calls("sync_from_model_dir", expect_message(
    train(est, x_input(), max_steps = 8), "Skipping training since max_steps has already saved")))
  expect_identical(skipped$calls, 1L)
  expect_identical(skipped$value$calls, 1L)
  expect_equal(variable_value(est, "global_step")$global_step, 8)
})

test_that("train() with hooks, listeners and an in-memory evaluator still syncs once", {
  dir <- tempfile()
  est <- x_regressor(model_dir = dir)
  quietly(train(est, x_input(), steps = 2))
  listener <- checkpoint_saver_listener(after_save = function(session, global_step) NULL)
  evaluator <- hook_in_memory_evaluator(est, x_input(num_epochs = 1), every_n_iter = 2)
  synced <- count_calls("sync_from_model_dir", quietly(train(
    est, x_input(), steps = 4, hooks = list(evaluator, hook_global_step_waiter(1)),
    saving_listeners = list(listener))))
  expect_identical(synced$calls, 1L)
  expect_equal(max(wide(synced$value)$steps), 6)
})

test_that("train() of an input that repeats forever needs steps, max_steps or a hook that stops it", {
  est <- x_regressor()
  expect_error(quietly(train(est, x_input(num_epochs = NULL))),
               regexp = paste0("never end.*`num_epochs = NULL`.*`steps` or `max_steps`.*hook_stop_at_step.*",
                               "hook_stop_if_no_decrease"),
               class = "cppestimators_endless_training")
  # nothing trained
  expect_equal(cppestimators:::cpp_estimator_global_step(cppestimators:::estimator_ptr(est)), 0)
  # a hook that stops it
  quietly(train(est, x_input(num_epochs = NULL), hooks = list(hook_stop_at_step(last_step = 5))))
  expect_equal(cppestimators:::cpp_estimator_global_step(cppestimators:::estimator_ptr(est)), 5)
  stopper <- session_run_hook(after_run = function(context, values) context$request_stop())
  quietly(train(est, x_input(num_epochs = NULL), hooks = list(stopper)))
  expect_equal(cppestimators:::cpp_estimator_global_step(cppestimators:::estimator_ptr(est)), 6)
  quietly(train(est, x_input(num_epochs = NULL), steps = 3))
  expect_equal(cppestimators:::cpp_estimator_global_step(cppestimators:::estimator_ptr(est)), 9)
  # a finite input ends by itself
  quietly(train(est, x_input(num_epochs = 2)))
  expect_equal(cppestimators:::cpp_estimator_global_step(cppestimators:::estimator_ptr(est)), 25)
})

test_that("train() of a streaming dataset repeated forever needs steps or a stopping hook", {
  path <- tempfile(fileext = ".csv")
  write.csv(data.frame(x = 1:8, y = 2 * (1:8) + 1), path, row.names = FALSE)
  ds <- text_line_dataset(path, csv_record_spec(path)) %>% dataset_batch(4) %>% dataset_repeat()
  est <- x_regressor()
  expect_error(quietly(train(est, input_fn(ds, features = "x", response = "y"))),
               regexp = "dataset_repeat\\(\\) without `count`.*`steps` or `max_steps`",
               class = "cppestimators_endless_training")
  quietly(train(est, input_fn(ds, features = "x", response = "y"), max_steps = 4))
  expect_equal(cppestimators:::cpp_estimator_global_step(cppestimators:::estimator_ptr(est)), 4)
})

test_that("setTimeLimit() ends a long train() with R's time limit error, and training works afterwards", {
  n <- 2000
  df <- data.frame(x = seq_len(n) / n, y = 2 * seq_len(n) / n)
  est <- x_regressor()
  long <- input_fn(df, response = "y", batch_size = 4L, num_epochs = NULL)
  res <- tryCatch({
    setTimeLimit(elapsed = 1, transient = TRUE)
    quietly(train(est, long, steps = 1e12))
  }, error = function(e) e, interrupt = function(e) e)
  setTimeLimit()
  expect_s3_class(res, "error")
  expect_s3_class(res, "cppestimators_time_limit")
  expect_match(conditionMessage(res), "elapsed time limit")
  ptr <- cppestimators:::estimator_ptr(est)
  at <- cppestimators:::cpp_estimator_global_step(ptr)
  expect_gt(at, 0)
  expect_lt(at, 1e12)
  # the estimator is not left busy or locked: it trains again
  quietly(train(est, long, steps = 5))
  expect_equal(cppestimators:::cpp_estimator_global_step(ptr), at + 5)
  # a time limit met in a hook's R code is the same error
  slow <- session_run_hook(after_run = function(context, values) for (i in 1:1e5) sqrt(i))
  res <- tryCatch({
    setTimeLimit(elapsed = 1, transient = TRUE)
    quietly(train(est, long, steps = 1e12, hooks = list(slow)))
  }, error = function(e) e, interrupt = function(e) e)
  setTimeLimit()
  expect_s3_class(res, "cppestimators_time_limit")
  expect_match(conditionMessage(res), "elapsed time limit")
  quietly(train(est, long, steps = 2))
})
