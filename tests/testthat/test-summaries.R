test_that("hook_summary_saver(save_steps = 8) over 30 steps writes at 1, 9, 17 and 25", {
  dir <- tempfile()
  quietly(train(x_regressor(), x_input(), steps = 30,
                hooks = list(hook_summary_saver(save_steps = 8, output_dir = dir))))
  s <- read_summaries(dir)
  expect_named(s, c("step", "tag", "value", "wall_time"))
  expect_equal(unique(s$step), c(1, 9, 17, 25))
  expect_setequal(unique(s$tag), c("loss", "average_loss"))
  expect_length(list.files(dir, pattern = "^events\\.out\\.tfevents\\.[0-9]+\\."), 1)
})

test_that("hundreds of scalars round-trip through the writer and read_summaries()", {
  dir <- tempfile()
  h <- quietly(train(x_regressor(), x_input(batch_size = 2L), steps = 300,
                     hooks = list(hook_summary_saver(save_steps = 1, output_dir = dir,
                                                     summary_op = "learning_rate"),
                                  hook_history_saver(1))))
  s <- read_summaries(dir)
  expect_equal(nrow(s), 900)
  loss <- s[s$tag == "loss", ]
  hist <- wide(h)
  expect_equal(loss$step, hist$steps)
  expect_equal(loss$value, hist$total_losses, tolerance = 1e-6)
  expect_equal(s$value[s$tag == "average_loss"], hist$mean_losses, tolerance = 1e-6)
  expect_true(all(s$value[s$tag == "learning_rate"] == as.numeric(as.single(0.2)) |
                    abs(s$value[s$tag == "learning_rate"] - 0.2) < 1e-7))
  expect_true(all(abs(s$wall_time - as.numeric(Sys.time())) < 600))
})

test_that("train() writes default summaries and steps/sec to model_dir", {
  dir <- tempfile()
  est <- x_regressor(model_dir = dir, config = run_config(save_summary_steps = 5,
                                                          log_step_count_steps = 5))
  quietly(train(est, x_input(), steps = 12))
  s <- read_summaries(est)
  expect_equal(unique(s$step[s$tag == "loss"]), c(1, 6, 11))
  expect_equal(s$step[s$tag == "global_step/sec"], c(6, 11))
  expect_true(all(s$value[s$tag == "global_step/sec"] > 0))
  none <- x_regressor(model_dir = tempfile(), config = run_config(save_summary_steps = 0,
                                                                  log_step_count_steps = NULL))
  quietly(train(none, x_input(), steps = 3))
  expect_equal(nrow(read_summaries(none)), 0)
})

test_that("evaluate() writes its metrics at the global step into eval or eval_<name>", {
  dir <- tempfile()
  est <- x_regressor(model_dir = dir)
  quietly(train(est, x_input(), steps = 4))
  expect_message(ev <- utils::capture.output(r <- evaluate(est, x_input(num_epochs = 1))),
                 "Saving dict for global step 4: average_loss = ")
  quietly(evaluate(est, x_input(num_epochs = 1), name = "test"))
  s <- read_summaries(file.path(dir, "eval"))
  expect_setequal(s$tag, c("average_loss", "label/mean", "loss", "prediction/mean"))
  expect_equal(unique(s$step), 4)
  expect_equal(s$value[s$tag == "average_loss"], r$average_loss, tolerance = 1e-6)
  expect_true(dir.exists(file.path(dir, "eval_test")))
  all <- read_summaries(dir)
  expect_true("run" %in% names(all))
  expect_setequal(unique(all$run), c(".", "eval", "eval_test"))
  expect_error(evaluate(est, x_input(num_epochs = 1), name = "a/b"), "`name` must be NULL or a name without slashes")
})

test_that("a corrupt event file is an error naming the file and offset", {
  dir <- tempfile()
  quietly(train(x_regressor(), x_input(), steps = 3,
                hooks = list(hook_summary_saver(save_steps = 1, output_dir = dir))))
  f <- list.files(dir, full.names = TRUE)
  bytes <- readBin(f, "raw", file.size(f))
  n <- length(bytes)
  bytes[n - 6] <- as.raw(bitwXor(as.integer(bytes[n - 6]), 0xff))
  writeBin(bytes, f)
  expect_error(read_summaries(dir), paste0(basename(f), ": bad record CRC at offset [0-9]+"))
  expect_error(read_summaries(tempfile()), "`dir` must be an existing directory")
})

test_that("plot() overlays evaluation points when the model has them", {
  dir <- tempfile()
  est <- x_regressor(model_dir = dir)
  h <- quietly(train(est, x_input(), steps = 6, hooks = list(hook_history_saver(1))))
  quietly(evaluate(est, x_input(num_epochs = 1)))
  pts <- cppestimators:::eval_points(h, as.data.frame(h))
  expect_equal(unique(pts$step), 6)
  expect_setequal(pts$metric, c("eval_loss", "eval_average_loss"))
  f <- tempfile(fileext = ".png")
  grDevices::png(f)
  plot(h, method = "base")
  grDevices::dev.off()
  expect_gt(file.size(f), 1000)
})

test_that("hook_summary_saver() validates its arguments", {
  expect_error(hook_summary_saver(), "exactly one of `save_steps` and `save_secs` must be given")
  expect_error(hook_summary_saver(save_steps = 1, save_secs = 1), "exactly one of")
  expect_error(hook_summary_saver(save_steps = 0), "`save_steps` must be >= 1")
  expect_error(hook_summary_saver(save_steps = 1, scaffold = 1), "not supported")
  expect_error(hook_summary_saver(save_steps = 1, summary_op = list(1)), "`summary_op` must hold tensor names")
  bad <- hook_summary_saver(save_steps = 1, output_dir = tempfile(), summary_op = "nope")
  expect_error(quietly(train(x_regressor(), x_input(), steps = 1, hooks = list(bad))),
               "hook_summary_saver\\(\\): 'nope' is not a tensor")
})
