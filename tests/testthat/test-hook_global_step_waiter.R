test_that("a reached or non-positive target starts at once", {
  msgs <- messages_of(h <- train(x_regressor(), x_input(), steps = 2,
                                 hooks = list(hook_global_step_waiter(0))))
  expect_equal(max(wide(h)$steps), 2)
  expect_length(grep("Waiting", msgs), 0)
  est <- x_regressor()
  quietly(train(est, x_input(), steps = 3))
  msgs <- messages_of(h <- train(est, x_input(), steps = 1, hooks = list(hook_global_step_waiter(3))))
  expect_equal(max(wide(h)$steps), 4)
  expect_equal(msgs[grep("Waiting", msgs)], "Waiting for global step 3 before starting training.")
})

test_that("another process training into model_dir releases the waiter", {
  skip_on_cran()  # spawns R processes
  skip_if_not_installed("callr")
  dir <- tempfile()
  go <- tempfile("go-")
  libs <- .libPaths()
  bg <- callr::r_bg(function(dir, go, libs) {
    .libPaths(libs)
    library(cppestimators)
    # trains once the waiter waits (its file), not after a while
    deadline <- Sys.time() + 300
    while (!file.exists(go) && Sys.time() < deadline) Sys.sleep(0.01)
    est <- suppressMessages(linear_regressor(feature_columns(column_numeric("x")), model_dir = dir,
                                             config = run_config(save_checkpoints_steps = 1)))
    inp <- input_fn(data.frame(x = 1:8, y = 1:8), response = "y", batch_size = 1L, num_epochs = NULL)
    invisible(utils::capture.output(train(est, inp, steps = 5)))
  }, args = list(dir = dir, go = go, libs = libs))
  on.exit(bg$kill(), add = TRUE)
  waiter <- x_regressor(model_dir = tempfile())
  waiter$spec$model_dir <- dir
  msgs <- character()
  withCallingHandlers(
    utils::capture.output(train(waiter, x_input(), steps = 1, hooks = list(hook_global_step_waiter(5)))),
    message = function(m) {
      msgs <<- c(msgs, conditionMessage(m))
      if (grepl("Waiting for global step", conditionMessage(m), fixed = TRUE)) file.create(go)
      invokeRestart("muffleMessage")
    })
  expect_true(any(grepl("Waiting for global step 5 before starting training.", msgs, fixed = TRUE)))
  # it started from the other process's step 5, after waiting for it
  expect_equal(variable_value(waiter, "global_step")[[1]], 6)
  bg$wait(120000)
  expect_equal(bg$get_exit_status(), 0)
})

test_that("hook_global_step_waiter() validates its argument", {
  expect_error(hook_global_step_waiter(), "`wait_until_step` must not be NULL")
  expect_error(hook_global_step_waiter(1.5), "`wait_until_step` must be a single whole number")
})
