# The engine's threads: the default thread count, forked and socket workers,
# errors and interrupts inside parallel pieces.

# A DNN fit whose steps split over the threads (a batch large enough for
# dnn_model's parallel rule); returns its trained variables.
threads_fit <- function(seed) {
  set.seed(seed)
  d <- data.frame(x1 = stats::runif(2048), x2 = stats::runif(2048))
  d$y <- d$x1 - 2 * d$x2
  est <- suppressMessages(dnn_regressor(c(64, 64), feature_columns(column_numeric("x1", "x2")),
                                        config = run_config(tf_random_seed = seed, save_checkpoints_steps = NULL,
                                                            save_checkpoints_secs = NULL, save_summary_steps = 0)))
  quietly(train(est, input_fn(d, response = "y", batch_size = 2048L, num_epochs = NULL, shuffle = FALSE),
                         steps = 5L))
  unlist(lapply(variable_names(est), function(v) as.vector(variable_value(est, v)[[1]])))
}

test_that("the default is 2 threads, the option wins, \"auto\" counts the cores", {
  skip_if(in_worker_process(), "this R process is itself a worker of a parallel computation")
  old <- options(cppestimators.threads = NULL)
  on.exit(options(old))
  expect_identical(engine_threads(), 2L)
  options(cppestimators.threads = 3)
  expect_identical(engine_threads(), 3L)
  options(cppestimators.threads = "auto")
  expected <- if (requireNamespace("parallelly", quietly = TRUE)) as.integer(parallelly::availableCores()) else 2L
  expect_identical(engine_threads(), expected)
  options(cppestimators.threads = 0)
  expect_error(engine_threads(), "whole number of threads >= 1 or \"auto\", not numeric 0",
               class = "cppestimators_error")
  options(cppestimators.threads = "many")
  expect_error(engine_threads(), "not character \"many\"", class = "cppestimators_error")
})

test_that("after the parent trained on 2 threads, fits in mclapply() children return, as sequential fits", {
  skip_on_os("windows")  # no fork()
  old <- options(cppestimators.threads = 2)
  on.exit(options(old))
  parent <- threads_fit(1)
  expect_gte(cpp_threads_info()$workers, 1L)  # the parent's workers exist before the fork
  options(cppestimators.threads = 1)
  sequential <- lapply(1:4, threads_fit)
  options(cppestimators.threads = NULL)  # the children's default
  # mclapply runs inside a forked job, so that a hang fails this test
  # instead of the suite
  job <- parallel::mcparallel(list(
    default = parallel::mclapply(1:4, function(i) list(threads = engine_threads(), fit = threads_fit(i)),
                                 mc.cores = 2),
    two = parallel::mclapply(1, function(i) {
      options(cppestimators.threads = 2)
      list(fit = threads_fit(1), workers = cpp_threads_info()$workers)
    }, mc.cores = 1)[[1]]
  ), silent = TRUE)
  res <- parallel::mccollect(job, wait = FALSE, timeout = 600)  # a hang, not a busy machine
  if (is.null(res)) {
    tools::pskill(job$pid)
    parallel::mccollect(job)
    fail("the forked children did not return within 600 s")
  }
  res <- res[[1]]
  expect_false(inherits(res, "try-error"), info = paste(res))
  expect_identical(vapply(res$default, function(r) r$threads, 0L), rep(1L, 4))
  for (i in 1:4) expect_identical(res$default[[i]]$fit, sequential[[i]])
  # a child that asks for 2 threads starts its own worker and matches the parent
  expect_identical(res$two$workers, 1L)
  expect_identical(res$two$fit, parent)
})

test_that("a socket cluster's worker defaults to 1 thread and takes the option", {
  skip_on_cran()  # starts an R process
  cl <- parallel::makePSOCKcluster(1)
  on.exit(parallel::stopCluster(cl))
  parallel::clusterCall(cl, function(libs) .libPaths(libs), .libPaths())
  got <- parallel::clusterEvalQ(cl, {
    ns <- asNamespace("cppestimators")
    first <- ns$engine_threads()
    options(cppestimators.threads = 2)
    c(first, ns$engine_threads())
  })[[1]]
  expect_identical(got, c(1L, 2L))
})

test_that("a callr child defaults to 1 thread", {
  skip_on_cran()  # starts an R process
  skip_if_not_installed("callr")
  got <- callr::r(function(libs) {
    .libPaths(libs)
    asNamespace("cppestimators")$engine_threads()
  }, list(libs = .libPaths()))
  expect_identical(got, 1L)
})

test_that("an error inside a parallel piece reaches R as the serial path's error, and the pool still works", {
  old <- options(cppestimators.threads = 2)
  on.exit(options(old))
  n <- 50000
  d <- data.frame(x = as.numeric(seq_len(n)), y = 1)
  d$x[n - 10] <- NA  # in the last chunks of the block, built by the second thread
  fc <- feature_columns(column_numeric("x"))
  fit <- function() train(linear_regressor(fc), input_fn(d, response = "y", batch_size = n), steps = 1)
  options(cppestimators.threads = 1)
  serial <- tryCatch(quietly(fit()), error = function(e) e)
  options(cppestimators.threads = 2)
  parallel <- tryCatch(quietly(fit()), error = function(e) e)
  expect_s3_class(serial, "cppestimators_error")
  expect_identical(class(parallel), class(serial))
  expect_identical(conditionMessage(parallel), conditionMessage(serial))
  expect_identical(threads_fit(2), threads_fit(2))
})

test_that("an interrupt during parallel steps stops training and leaves one engine thread", {
  skip_on_cran()  # spawns an R process and signals it
  skip_if_not_installed("callr")
  dir <- tempfile("interrupt-")
  dir.create(dir)
  run <- function(dir, libs) {
    .libPaths(libs)
    library(cppestimators)
    options(cppestimators.threads = 2, cppestimators.progress = FALSE)
    set.seed(1)
    d <- data.frame(x1 = stats::runif(4096), x2 = stats::runif(4096))
    d$y <- d$x1 + d$x2
    est <- dnn_regressor(c(128, 128), feature_columns(column_numeric("x1", "x2")),
                         config = run_config(save_checkpoints_steps = NULL, save_checkpoints_secs = NULL,
                                             save_summary_steps = 0))
    input <- input_fn(d, response = "y", batch_size = 4096L, num_epochs = NULL, shuffle = FALSE)
    suppressMessages(train(est, input, steps = 2))
    # the parent interrupts once this file is there: written by a hook of the
    # training it interrupts, within the tryCatch
    go <- session_run_hook(after_run = function(context, values) {
      if (!file.exists(file.path(dir, "started"))) cat("go\n", file = file.path(dir, "started"))
    })
    tryCatch({
      suppressMessages(train(est, input, steps = 1e6, hooks = list(go)))
      list(res = "finished")
    }, interrupt = function(e) {
      list(res = "interrupted", at = as.numeric(Sys.time()),
           workers = asNamespace("cppestimators")$cpp_threads_info()$workers)
    })
  }
  p <- callr::r_bg(run, list(dir = dir, libs = .libPaths()))
  deadline <- Sys.time() + 300  # waits for the child's file, not for a while
  while (!file.exists(file.path(dir, "started")) && Sys.time() < deadline && p$is_alive()) Sys.sleep(0.02)
  expect_true(file.exists(file.path(dir, "started")))
  p$interrupt()
  p$wait(timeout = 300000)
  out <- p$get_result()
  expect_identical(out$res, "interrupted")
  expect_identical(out$workers, 1L)
  # how soon (within 50 ms) is measured by bench/interrupt.R, not here
})
