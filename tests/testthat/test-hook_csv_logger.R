eval_x <- function() x_input(num_epochs = 1)
read_log <- function(path) utils::read.csv(path, check.names = FALSE)
# The history as a wide table with the log's columns: one row per step.
history_wide <- function(h) {
  long <- as.data.frame(h)
  steps <- sort(unique(long$step))
  out <- data.frame(step = steps)
  for (m in unique(long$metric)) {
    rows <- long[long$metric == m, ]
    out[[m]] <- rows$value[match(steps, rows$step)]
  }
  out
}

test_that("the log holds what the history holds, step by step", {
  est <- x_regressor()
  path <- local_test_file(fileext = ".csv")
  h <- quietly(train(est, x_input(), steps = 12,
                     hooks = list(hook_csv_logger(path), hook_history_saver(every_n_step = 1))))
  log <- read_log(path)
  expect_equal(names(log), c("step", "mean_losses", "total_losses"))
  expect_equal(log, history_wide(h), tolerance = 1e-6)
  expect_equal(log$step, 1:12)
})

test_that("every_n_step logs those iterations and the last one", {
  est <- x_regressor()
  path <- local_test_file(fileext = ".csv")
  h <- quietly(train(est, x_input(), steps = 11,
                     hooks = list(hook_csv_logger(path, every_n_step = 4), hook_history_saver(every_n_step = 4))))
  log <- read_log(path)
  expect_equal(log$step, c(4, 8, 11))
  expect_equal(log, history_wide(h), tolerance = 1e-6)
})

test_that("evaluations fill eval_ columns at their steps, NA elsewhere", {
  est <- x_regressor()
  path <- local_test_file(fileext = ".csv")
  # the evaluator after the logger: its evaluations at a step still join that step's row
  ev <- hook_in_memory_evaluator(est, eval_x(), every_n_iter = 4)
  h <- quietly(train(est, x_input(), steps = 10,
                     hooks = list(hook_csv_logger(path, every_n_step = 2), hook_history_saver(2), ev)))
  log <- read_log(path)
  expect_equal(names(log), c("step", "mean_losses", "total_losses", "eval_average_loss", "eval_label/mean",
                             "eval_loss", "eval_prediction/mean"))
  expect_equal(log$step, c(0, 2, 4, 6, 8, 10))
  expect_equal(log, history_wide(h)[names(log)], tolerance = 1e-6)
  expect_true(is.na(log$mean_losses[1]))
  expect_equal(is.na(log$eval_loss), c(FALSE, TRUE, FALSE, TRUE, FALSE, FALSE))
  # before the logger, and a second, named evaluator
  path2 <- local_test_file(fileext = ".csv")
  ev2 <- hook_in_memory_evaluator(est, eval_x(), every_n_iter = 3, name = "other")
  h2 <- quietly(train(est, x_input(), steps = 6,
                      hooks = list(ev, ev2, hook_csv_logger(path2, every_n_step = 1), hook_history_saver(1))))
  log2 <- read_log(path2)
  expect_true(all(c("eval_loss", "eval_other_loss") %in% names(log2)))
  expect_equal(log2$step, 10:16)
  expect_equal(log2, history_wide(h2)[names(log2)], tolerance = 1e-6)
})

test_that("train_and_evaluate() evaluations join the log", {
  est <- x_regressor(config = run_config(save_checkpoints_steps = 5))
  path <- local_test_file(fileext = ".csv")
  h <- quietly(train_and_evaluate(
    est, train_spec(x_input(), max_steps = 12, hooks = list(hook_csv_logger(path), hook_history_saver(1))),
    eval_spec(eval_x(), steps = NULL, throttle_secs = 0)))
  log <- read_log(path)
  expect_equal(log$step, 1:12)
  expect_equal(log$step[!is.na(log$eval_loss)], c(5, 10, 12))
  expect_equal(log, history_wide(h)[names(log)], tolerance = 1e-6)
})

test_that("a second train() appends without a second header; another header is an error", {
  est <- x_regressor()
  path <- local_test_file(fileext = ".csv")
  quietly(train(est, x_input(), steps = 3, hooks = list(hook_csv_logger(path))))
  quietly(train(est, x_input(), steps = 2, hooks = list(hook_csv_logger(path))))
  lines <- readLines(path)
  expect_equal(sum(grepl("^step,", lines)), 1L)
  expect_equal(read_log(path)$step, 1:5)
  before <- readLines(path)
  ev <- hook_in_memory_evaluator(est, eval_x(), every_n_iter = 2)
  expect_error(quietly(train(est, x_input(), steps = 2, hooks = list(hook_csv_logger(path), ev))),
               "has the columns 'step,mean_losses,total_losses', not those of this training",
               class = "cppestimators_error")
  expect_equal(readLines(path), before)
  # append = FALSE starts the file again
  quietly(train(est, x_input(), steps = 2, hooks = list(hook_csv_logger(path, append = FALSE), ev)))
  expect_equal(read_log(path)$step, 5:7)
})

test_that("the log is complete when another hook stops training with an error", {
  est <- x_regressor()
  path <- local_test_file(fileext = ".csv")
  seen <- 0
  boom <- session_run_hook(after_run = function(context, values) {
    seen <<- seen + 1
    if (seen >= 4) stop("boom at 4")
  })
  expect_error(quietly(train(est, x_input(), steps = 10, hooks = list(hook_csv_logger(path), boom))), "boom at 4")
  log <- read_log(path)
  expect_equal(log$step, 1:4)
  expect_false(anyNA(log))
  expect_match(readLines(path)[5], "^4,")
})

test_that("hook_csv_logger() checks its arguments", {
  err <- function(expr, msg) expect_error(expr, msg, class = "cppestimators_error")
  err(hook_csv_logger(), "`path` is required")
  err(hook_csv_logger(1), "`path` must be the path of a file")
  err(hook_csv_logger(file.path(tempfile(), "log.csv")), "the directory of `path` does not exist")
  err(hook_csv_logger(tempdir()), "`path` is a directory")
  err(hook_csv_logger(tempfile(), every_n_step = 0), "`every_n_step` must be >= 1")
  err(hook_csv_logger(tempfile(), append = NA), "`append` must be TRUE or FALSE")
  err(evaluate(x_regressor(), eval_x(), hooks = list(hook_csv_logger(tempfile()))),
      "hook_csv_logger logs training steps and cannot be used with evaluate\\(\\); pass it to train\\(\\)")
  # a directory that disappears before training: the engine's error names the file
  dir <- local_test_dir()
  hook <- hook_csv_logger(file.path(dir, "log.csv"))
  unlink(dir, recursive = TRUE)
  est <- x_regressor()
  expect_error(quietly(train(est, x_input(), steps = 1, hooks = list(hook))), "could not open the CSV log",
               class = "cppestimators_error")
})
