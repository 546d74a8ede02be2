ckpt_files <- function(dir) sort(list.files(dir, pattern = "\\.ckpt$"))

test_that("train() saves at the start and the end; a new object on the same model_dir resumes", {
  dir <- tempfile()
  est <- x_regressor(model_dir = dir)
  quietly(train(est, x_input(), steps = 4))
  expect_equal(ckpt_files(dir), c("model.ckpt-0.ckpt", "model.ckpt-4.ckpt"))
  expect_equal(basename(latest_checkpoint(est)), "model.ckpt-4.ckpt")
  expect_equal(basename(latest_checkpoint(dir)), "model.ckpt-4.ckpt")
  w4 <- variable_value(est)
  est2 <- x_regressor(model_dir = dir)
  expect_equal(variable_value(est2), w4)
  h <- quietly(train(est2, x_input(), steps = 2))
  expect_equal(max(wide(h)$steps), 6)
  # the first object sees the second's progress on its next use
  expect_equal(variable_value(est, "global_step")$global_step, 6)
  expect_null(latest_checkpoint(tempfile()))
})

test_that("steps are incremental and max_steps absolute over several calls", {
  dir <- tempfile()
  est <- x_regressor(model_dir = dir)
  steps_after <- function(h) max(wide(h)$steps)
  expect_equal(steps_after(quietly(train(est, x_input(), steps = 3))), 3)
  expect_equal(steps_after(quietly(train(est, x_input(), max_steps = 5))), 5)
  expect_equal(steps_after(quietly(train(est, x_input(), steps = 3))), 8)
  expect_message(train(est, x_input(), max_steps = 8), "Skipping training since max_steps has already saved")
  est2 <- x_regressor(model_dir = dir)
  expect_message(train(est2, x_input(), max_steps = 7), "Skipping training")
  expect_equal(steps_after(quietly(train(est2, x_input(), max_steps = 10))), 10)
})

test_that("rotation keeps keep_checkpoint_max files and a consistent index", {
  dir <- tempfile()
  est <- x_regressor(model_dir = dir)
  for (i in 1:7) quietly(train(est, x_input(), steps = 1))
  files <- ckpt_files(dir)
  expect_equal(files, sprintf("model.ckpt-%d.ckpt", 3:7))
  idx <- readLines(file.path(dir, "checkpoint"))
  expect_equal(idx, c('model_checkpoint_path: "model.ckpt-7"',
                      sprintf('all_model_checkpoint_paths: "model.ckpt-%d"', 3:7)))
  keep_all <- x_regressor(model_dir = tempfile(), config = run_config(keep_checkpoint_max = 0))
  for (i in 1:7) quietly(train(keep_all, x_input(), steps = 1))
  expect_length(ckpt_files(model_dir(keep_all)), 8)
})

test_that("a flipped byte or a truncated file is an error naming the file; nothing changes", {
  dir <- tempfile()
  est <- x_regressor(model_dir = dir)
  quietly(train(est, x_input(), steps = 3))
  path <- latest_checkpoint(est)
  bytes <- readBin(path, "raw", file.size(path))
  flipped <- bytes
  flipped[40] <- as.raw(bitwXor(as.integer(flipped[40]), 1L))
  writeBin(flipped, path)
  other <- x_regressor(model_dir = dir)
  expect_error(quietly(train(other, x_input(), steps = 1)),
               paste0(basename(path), ".*checkpoint is corrupt \\(CRC mismatch\\)"))
  expect_length(ckpt_files(dir), 2)
  writeBin(bytes[1:20], path)
  expect_error(predict(x_regressor(model_dir = dir), x_input(num_epochs = 1)),
               paste0(basename(path), ".*truncated"))
  writeBin(charToRaw("this is not a checkpoint at all, just some text"), path)
  expect_error(evaluate(x_regressor(model_dir = dir), x_input(num_epochs = 1)), "bad magic")
  # a failed load leaves the estimator as it was
  before <- engine_values(x_regressor(model_dir = tempfile()))
  victim <- x_regressor(model_dir = tempfile())
  expect_error(cppestimators:::cpp_estimator_restore(cppestimators:::estimator_ptr(victim), path), "bad magic")
  expect_equal(engine_values(victim), before)
})

test_that("a checkpoint of another model is refused by name", {
  dir <- tempfile()
  quietly(train(x_regressor(model_dir = dir), x_input(), steps = 1))
  other <- suppressMessages(linear_regressor(feature_columns(column_numeric("z")), model_dir = dir))
  expect_error(variable_names(other), "holds a different model than this linear_regressor")
  # a directory written before models were recorded: the checkpoint's variables are checked
  unlink(file.path(dir, "cppestimators_model.txt"))
  expect_error(variable_names(other),
               "does not match this estimator: variable 'linear/linear_model/z/weights' is missing")
})

test_that("variable_names(), variable_value() and coef()", {
  fcs <- feature_columns(column_numeric("wt", "drat"))
  est <- suppressMessages(linear_regressor(fcs))
  quietly(train(est, input_fn(mtcars, response = "mpg", features = c("wt", "drat"), batch_size = 8L),
                steps = 4))
  nm <- variable_names(est)
  expect_equal(nm[1], "global_step")
  expect_equal(nm[-1], sort(nm[-1], method = "radix"))
  expect_true(all(c("linear/linear_model/bias_weights", "linear/linear_model/drat/weights",
                    "linear/linear_model/wt/weights", "linear/linear_model/wt/weights/Ftrl",
                    "linear/linear_model/wt/weights/Ftrl_1") %in% nm))
  expect_equal(variable_value(est, "global_step"), list(global_step = 4))
  expect_error(variable_value(est, "foo"), "Variable not found: foo")
  cf <- coef(est)
  expect_named(cf, c("(Intercept)", "drat", "wt"))
  w <- variable_value(est, "linear/linear_model/wt/weights")[[1]]
  expect_equal(unname(cf["wt"]), w[1, 1])
  p <- predict(est, input_fn(data.frame(wt = 2, drat = 3), features = c("wt", "drat")))$predictions
  expect_equal(p, unname(cf[1] + 2 * cf["wt"] + 3 * cf["drat"]), tolerance = 1e-5)
  ic <- suppressMessages(linear_classifier(feature_columns(column_numeric("Petal.Length")), n_classes = 3))
  quietly(train(ic, input_fn(iris, features = "Petal.Length", response = "Species"), steps = 1))
  expect_equal(dim(coef(ic)), c(2, 3))
})

test_that("evaluate() and predict() can use an older checkpoint_path", {
  dir <- tempfile()
  est <- x_regressor(model_dir = dir, config = run_config(save_checkpoints_steps = 2))
  quietly(train(est, x_input(), steps = 6))
  old <- file.path(dir, "model.ckpt-2")
  ev <- quietly(evaluate(est, x_input(num_epochs = 1), checkpoint_path = old))
  expect_equal(ev$global_step, 2)
  p_old <- predict(est, x_input(num_epochs = 1), checkpoint_path = paste0(old, ".ckpt"))
  p_new <- predict(est, x_input(num_epochs = 1))
  expect_false(isTRUE(all.equal(p_old, p_new)))
  expect_equal(variable_value(est, "global_step")$global_step, 6)
  expect_error(predict(est, x_input(num_epochs = 1), checkpoint_path = file.path(dir, "nope")),
               "`checkpoint_path`: no checkpoint file")
})

test_that("run_config(tf_random_seed =) makes training bit-identical", {
  run <- function() {
    est <- suppressMessages(linear_regressor(feature_columns(column_numeric("drat", "wt")),
                                             config = run_config(tf_random_seed = 42)))
    inp <- input_fn(mtcars, response = "mpg", features = c("drat", "wt"), batch_size = 5L,
                    num_epochs = NULL)
    h <- quietly(train(est, inp, steps = 20, hooks = list(hook_history_saver(1))))
    h2 <- quietly(train(est, inp, steps = 5, hooks = list(hook_history_saver(1))))
    list(h = wide(h), h2 = wide(h2), w = variable_value(est),
         p = predict(est, input_fn(mtcars, features = c("drat", "wt"))))
  }
  a <- run()
  set.seed(999)
  b <- run()
  expect_identical(a, b)
})

test_that("saveRDS()/readRDS() in a fresh R process predicts identical values", {
  skip_on_cran()  # spawns R processes
  est <- x_regressor()
  quietly(train(est, x_input(), steps = 5))
  expected <- predict(est, x_input(num_epochs = 1))$predictions
  rds <- tempfile(fileext = ".rds")
  saveRDS(est, rds)
  unlink(model_dir(est), recursive = TRUE)
  script <- tempfile(fileext = ".R")
  out <- tempfile(fileext = ".rds")
  writeLines(c(
    sprintf(".libPaths(c(%s))", paste(deparse(.libPaths()), collapse = "")),
    "library(cppestimators)",
    sprintf("est <- readRDS(%s)", deparse(rds)),
    "inp <- input_fn(data.frame(x = 1:8, y = 0), response = 'y', batch_size = 1L, shuffle = FALSE)",
    sprintf("saveRDS(predict(est, inp)$predictions, %s)", deparse(out))
  ), script)
  status <- system2(file.path(R.home("bin"), "Rscript"), c("--vanilla", shQuote(script)),
                    stdout = FALSE, stderr = FALSE)
  expect_equal(status, 0)
  expect_identical(readRDS(out), expected)
})

test_that("export_savedmodel() writes a directory that load_estimator() reads back", {
  est <- x_regressor()
  quietly(train(est, x_input(), steps = 5))
  dir <- export_savedmodel(est, tempfile())
  expect_setequal(list.files(dir), c("estimator.rds", "variables.ckpt"))
  est2 <- suppressMessages(load_estimator(dir))
  expect_s3_class(est2, "tf_estimator_regressor_linear_regressor")
  expect_identical(predict(est2, x_input(num_epochs = 1)), predict(est, x_input(num_epochs = 1)))
  h <- quietly(train(est2, x_input(), steps = 1))
  expect_equal(max(wide(h)$steps), 6)
  expect_error(load_estimator(tempfile()), "is not an export of export_savedmodel")
})

# Slow (about 10-20 s: 20 child processes), and deliberately run by `make test`.
test_that("[slow] a process killed while saving every step leaves a loadable latest checkpoint", {
  skip_on_cran()  # spawns R processes
  skip_if_not_installed("callr")
  rscript <- file.path(R.home("bin"), "Rscript")
  libs <- .libPaths()
  for (i in 1:20) {
    dir <- tempfile()
    proc <- callr::r_bg(function(dir, libs) {
      .libPaths(libs)
      library(cppestimators)
      est <- suppressMessages(linear_regressor(feature_columns(column_numeric("x")), model_dir = dir,
                                               config = run_config(save_checkpoints_steps = 1,
                                                                   keep_checkpoint_max = 2)))
      inp <- input_fn(data.frame(x = 1:8, y = 1:8), response = "y", batch_size = 1L, num_epochs = NULL)
      invisible(utils::capture.output(train(est, inp, steps = 1e6)))
    }, args = list(dir = dir, libs = libs))
    deadline <- Sys.time() + 300  # waits for the child's first checkpoint, not for a while
    while (is.null(latest_checkpoint(dir)) && Sys.time() < deadline && proc$is_alive()) Sys.sleep(0.02)
    Sys.sleep(stats::runif(1, 0, 0.2))
    proc$kill()  # SIGKILL
    expect_false(is.null(latest_checkpoint(dir)), label = paste("run", i))
    est <- x_regressor(model_dir = dir)
    step <- variable_value(est, "global_step")$global_step
    expect_gte(step, 0)
  }
})

test_that("a malformed checkpoint index is an error naming the file and the line", {
  dir <- tempfile()
  dir.create(dir)
  writeLines(c("garbage", 'model_checkpoint_path: "model.ckpt-1"'), file.path(dir, "checkpoint"))
  expect_error(latest_checkpoint(dir),
               "checkpoint: malformed checkpoint index \\(line 1: expected ':' after 'garbage'\\)")
})

test_that("checkpoints written before the engine's reshaping still load", {
  # written by cppestimators at commit 17b10f7: linear_regressor on drat and
  # wt with Adam, 4 steps over mtcars (batch 8, in order)
  fixture <- test_path("fixtures", "v0.1-linear-adam.ckpt")
  est <- suppressMessages(linear_regressor(feature_columns(column_numeric("drat", "wt")),
                                           optimizer = "Adam"))
  p <- predict(est, input_fn(mtcars, features = c("drat", "wt")), checkpoint_path = fixture)
  expect_equal(round(p$predictions, 5), readRDS(test_path("fixtures", "v0.1-linear-adam-predictions.rds")))
  dir <- model_dir(est)
  file.copy(fixture, file.path(dir, "model.ckpt-4.ckpt"))
  writeLines(c('model_checkpoint_path: "model.ckpt-4"', 'all_model_checkpoint_paths: "model.ckpt-4"'),
             file.path(dir, "checkpoint"))
  v <- variable_value(est, c("global_step", "beta1_power", "linear/linear_model/wt/weights/Adam_1"))
  expect_equal(v$global_step, 4)
  expect_equal(v$beta1_power, 0.9^5, tolerance = 1e-6)
  expect_equal(dim(v[[3]]), c(1L, 1L))
})
