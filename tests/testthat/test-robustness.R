# Edge cases found in review: state, persistence, interrupts, bad input.

test_that("reading the estimator from one of its own hooks does not rewind training", {
  est <- x_regressor(model_dir = tempfile())
  seen <- c()
  spy <- session_run_hook(after_run = function(context, values) {
    seen <<- c(seen, variable_value(est, "global_step")[[1]])
    predict(est, x_input(num_epochs = 1))
  })
  h <- quietly(train(est, x_input(), steps = 3, hooks = list(spy, hook_history_saver(1))))
  expect_equal(seen, c(1, 2, 3))
  expect_equal(wide(h)$steps, 1:3)
  twin <- x_regressor(model_dir = tempfile())
  quietly(train(twin, x_input(), steps = 3))
  expect_equal(variable_value(est), variable_value(twin))
  again <- session_run_hook(after_run = function(context, values) train(est, x_input(), steps = 1))
  expect_error(quietly(train(est, x_input(), steps = 1, hooks = list(again))),
               "already training: train\\(\\) cannot be called from one of its own hooks")
})

test_that("saveRDS() keeps weights restored from model_dir; print() works after readRDS()", {
  dir <- tempfile()
  quietly(train(x_regressor(model_dir = dir), x_input(), steps = 20))
  b <- x_regressor(model_dir = dir)
  expected <- predict(b, x_input(num_epochs = 1))
  f <- tempfile(fileext = ".rds")
  saveRDS(b, f)
  unlink(dir, recursive = TRUE)
  b2 <- readRDS(f)
  expect_output(print(b2), "global step: +saved")
  expect_identical(predict(b2, x_input(num_epochs = 1)), expected)
  expect_output(print(b2), "global step: +20")
})

test_that("an interrupt inside an R hook stops at the step boundary and still calls end()", {
  skip_on_cran()  # sends a signal to this process
  dir <- tempfile()
  est <- x_regressor(model_dir = dir)
  ended <- FALSE
  hook <- session_run_hook(
    after_run = function(context, values) {
      if (context$session$run("global_step") == 3) {
        tools::pskill(Sys.getpid(), tools::SIGINT)
        Sys.sleep(0.2)
      }
    },
    end = function(session) ended <<- TRUE)
  res <- tryCatch(quietly(train(est, x_input(), steps = 100, hooks = list(hook))),
                  interrupt = function(i) "interrupted")
  expect_equal(res, "interrupted")
  expect_true(ended)
  expect_equal(basename(latest_checkpoint(dir)), "model.ckpt-3.ckpt")
  expect_equal(variable_value(est, "global_step")[[1]], 3)
})

test_that("an infinite loss fails like a NaN loss instead of freezing training", {
  d <- data.frame(x = c(1, 2, 3, 4), y = c(1, 3e38, 3, 4))  # finite, but its squared error is not
  expect_error(quietly(train(x_regressor(), input_fn(d, response = "y", batch_size = 1L, shuffle = FALSE))),
               "Infinite loss during training at global step 2")
})

test_that("the verbose option shows train()'s own INFO lines", {
  old <- options(cppestimators.verbose = TRUE)
  on.exit(options(old))
  msgs <- messages_of(train(x_regressor(model_dir = tempfile()), x_input(), steps = 2))
  expect_true(any(grepl("^loss = [0-9.]+, step = 1$", msgs)))
  expect_true(any(grepl("^Saving checkpoints for 0 into ", msgs)))
})

test_that("batch buffers are sized by the data; out-of-range sizes are errors", {
  h <- quietly(train(x_regressor(), x_input(num_epochs = 1, batch_size = 1e8)))
  expect_equal(wide(h)$steps, 1)
  expect_error(x_input(batch_size = 3e9), "`batch_size` must be <= 2147483647")
  expect_error(x_input(num_epochs = 1e20), "`num_epochs` must be <= 2147483647")
})

test_that("training-only hooks are refused by evaluate() and predict()", {
  est <- x_regressor()
  ev <- hook_in_memory_evaluator(est, x_input(num_epochs = 1))
  expect_error(evaluate(est, x_input(num_epochs = 1), hooks = list(ev)),
               "hook_in_memory_evaluator evaluates during training and cannot be used with evaluate\\(\\)")
  expect_error(predict(est, x_input(num_epochs = 1), hooks = list(hook_stop_if_lower(est, "loss", 1))),
               "cannot be used with predict\\(\\)")
  quietly(train(est, x_input(), steps = 1))
  expect_silent(predict(est, x_input(num_epochs = 1), hooks = list(hook_global_step_waiter(0))))
})

test_that("errors from R code inside built-in hooks name that hook", {
  est <- x_regressor()
  inner <- session_run_hook(end = function(session) stop("inner boom"))
  ev <- hook_in_memory_evaluator(est, x_input(num_epochs = 1), hooks = list(inner))
  err <- tryCatch(quietly(train(est, x_input(), steps = 2, hooks = list(hook_history_saver(1), ev))),
                  error = function(e) e)
  expect_match(conditionMessage(err),
               paste0("^`after_create_session` of hook 2 \\(hook_in_memory_evaluator\\) failed: ",
                      "`end` of hook 1 \\(EstimatorSessionRunHook\\) failed: inner boom"))
  l <- checkpoint_saver_listener(before_save = function(session, global_step) stop("listener boom"))
  expect_error(quietly(train(x_regressor(), x_input(), steps = 1,
                             hooks = list(hook_checkpoint_saver(tempfile(), save_steps = 1, listeners = l)))),
               "`after_create_session` of hook 1 (hook_checkpoint_saver) failed: listener boom", fixed = TRUE)
  fmt <- hook_logging_tensor(list("loss"), every_n_iter = 1, formatter = function(v) stop("fmt boom"))
  expect_error(quietly(train(x_regressor(), x_input(), steps = 1, hooks = list(fmt))),
               "`after_run` of hook 1 (hook_logging_tensor) failed: fmt boom", fixed = TRUE)
})

test_that("repeated evaluations append to one event file per directory", {
  est <- x_regressor()
  ev <- hook_in_memory_evaluator(est, x_input(num_epochs = 1), every_n_iter = 1)
  quietly(train(est, x_input(), steps = 10, hooks = list(ev)))
  files <- list.files(file.path(model_dir(est), "eval"))
  expect_length(files, 1)
  expect_equal(unique(read_summaries(file.path(model_dir(est), "eval"))$step), 0:10)
})

test_that("with tf_random_seed, other calls do not change a training run", {
  run <- function(evaluate_between) {
    est <- x_regressor(config = run_config(tf_random_seed = 11))
    inp <- input_fn(data.frame(x = 1:16, y = 2 * (1:16)), response = "y", batch_size = 3L,
                    num_epochs = NULL)
    quietly(train(est, inp, steps = 5))
    if (evaluate_between) quietly(evaluate(est, inp, steps = 2))
    h <- quietly(train(est, inp, steps = 10, hooks = list(hook_history_saver(1))))
    list(wide(h), variable_value(est))
  }
  expect_identical(run(FALSE), run(TRUE))
  expect_error(run_config(tf_random_seed = 1e300), "tf_random_seed must be an integer between")
})

test_that("restore_best needs an in-memory evaluator; empty or misshapen input is refused", {
  est <- x_regressor()
  expect_error(train(est, x_input(), steps = 1, hooks = list(
    hook_stop_if_no_decrease(est, "loss", 10, restore_best = TRUE))),
    "restore_best = TRUE needs a hook_in_memory_evaluator")
  empty <- input_fn(data.frame(x = numeric(), y = numeric()), response = "y")
  quietly(train(est, x_input(), steps = 1))
  expect_error(quietly(evaluate(est, empty)), "evaluate\\(\\): the data has no rows",
               class = "cppestimators_empty_data")
  short <- column_numeric("x", normalizer_fn = function(x) x[-1])
  bad <- suppressMessages(linear_regressor(feature_columns(short)))
  expect_error(train(bad, x_input(), steps = 1),
               "the normalizer_fn of column 'x' returned 7 values for 8 rows")
  expect_error(predict(est, x_input(num_epochs = 1), checkpoint_path = tempdir()),
               "`checkpoint_path`: no checkpoint file")
})
