# How soon an interrupt stops training or a large evaluation (the durations
# that test-reliability.R's and test-threads.R's interrupt tests asserted
# before, 2 s and 50 ms; the tests check only that the process stops in
# order). A child process trains a DNN (64, 64) on 2e6 rows x 2 columns,
# then either evaluates the whole table in one batch 100 times ("batch") or
# trains with an in-memory evaluator of the table every step ("evaluator");
# or ("steps") trains a DNN (128, 128) on 2 threads, batch 4096. 1.5 s into
# that, it is sent SIGINT. The figures are the time from the signal to the
# R condition in the child, and to the child's exit (the time of one
# evaluation, or step, is printed beside them: an interrupt honoured only
# between evaluations would take up to that long).
#   Rscript bench/interrupt.R      (prints a markdown table)
args <- commandArgs(trailingOnly = TRUE)
rscript <- file.path(R.home("bin"), "Rscript")

if (length(args) && args[1] == "child") {
  # Rscript bench/interrupt.R child <what> <model_dir>
  suppressPackageStartupMessages(library(cppestimators))
  options(cppestimators.progress = FALSE)
  what <- args[2]
  dir <- args[3]
  n <- 2e6
  set.seed(1)
  d <- data.frame(x1 = stats::runif(n), x2 = stats::runif(n), y = stats::runif(n))
  est <- dnn_regressor(c(64, 64), feature_columns(column_numeric("x1", "x2")), model_dir = dir)
  small <- input_fn(d[1:1000, ], features = c("x1", "x2"), response = "y", batch_size = 100, num_epochs = NULL)
  big <- input_fn(d, features = c("x1", "x2"), response = "y", batch_size = if (what == "batch") n else 1000)
  suppressMessages(train(est, small, steps = 5))
  if (what == "steps") {
    options(cppestimators.threads = 2)
    d <- d[1:4096, ]
    d$y <- d$x1 + d$x2
    est <- dnn_regressor(c(128, 128), feature_columns(column_numeric("x1", "x2")),
                         config = run_config(save_checkpoints_steps = NULL, save_checkpoints_secs = NULL,
                                             save_summary_steps = 0))
    small <- input_fn(d, response = "y", batch_size = 4096L, num_epochs = NULL, shuffle = FALSE)
    suppressMessages(train(est, small, steps = 2))
    one <- system.time(suppressMessages(train(est, small, steps = 20)))[["elapsed"]] / 20
  } else {
    one <- system.time(suppressMessages(evaluate(est, big)))[["elapsed"]]
  }
  cat(one, "\n", file = file.path(dir, "started"))
  tryCatch({
    if (what == "batch") {
      for (i in 1:100) suppressMessages(evaluate(est, big))
    } else if (what == "steps") {
      suppressMessages(train(est, small, steps = 1e6))
    } else {
      suppressMessages(train(est, small, steps = 1e6,
                             hooks = list(hook_in_memory_evaluator(est, big, every_n_iter = 1))))
    }
  }, interrupt = function(e) cat(sprintf("%.6f\n", as.numeric(Sys.time())), file = file.path(dir, "stopped")))
  quit(save = "no")
}

script <- sub("^--file=", "", grep("^--file=", commandArgs(), value = TRUE))
if (!length(script)) script <- if (file.exists("bench")) "bench/interrupt.R" else "interrupt.R"
rows <- NULL
for (what in c("evaluator", "batch", "steps")) {
  dir <- tempfile("interrupt-")
  dir.create(dir)
  p <- processx::process$new(rscript, c(script, "child", what, dir))
  started <- file.path(dir, "started")
  deadline <- Sys.time() + 300
  while (!file.exists(started) && Sys.time() < deadline && p$is_alive()) Sys.sleep(0.05)
  Sys.sleep(1.5)
  sent <- as.numeric(Sys.time())
  p$interrupt()
  p$wait(120000)
  exited <- as.numeric(Sys.time()) - sent
  if (p$is_alive()) p$kill()
  stopped <- file.path(dir, "stopped")
  rows <- rbind(rows, data.frame(what = what, one = as.numeric(readLines(started, warn = FALSE)[1]),
                                 stopped = if (file.exists(stopped)) as.numeric(readLines(stopped)[1]) - sent else NA,
                                 exited = exited))
  unlink(dir, recursive = TRUE)
}
cat("| interrupted during | one evaluation or step (s) | signal to the R condition (s) | signal to exit (s) |\n")
cat("|---|---:|---:|---:|\n")
cat(sprintf("| %s | %.3f | %.3f | %.2f |\n", rows$what, rows$one, rows$stopped, rows$exited), sep = "")
