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
