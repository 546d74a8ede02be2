# How soon an interrupt stops a large evaluation (the duration that
# test-reliability.R's interrupt test asserted before; tests check only
# that the process stops in order). A child process trains a DNN (64, 64)
# on 2e6 rows x 2 columns, then either evaluates the whole table in one
# batch 100 times ("batch") or trains with an in-memory evaluator of the
# table every step ("evaluator"); 1.5 s into that, it is sent SIGINT. The
# figure is the time from the signal to the child's exit (the time of one
# evaluation is printed beside it: an interrupt honoured only between
# evaluations would take up to that long).
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
  one <- system.time(suppressMessages(evaluate(est, big)))[["elapsed"]]
  cat(one, "\n", file = file.path(dir, "started"))
  if (what == "batch") {
    for (i in 1:100) suppressMessages(evaluate(est, big))
  } else {
    suppressMessages(train(est, small, steps = 1e6, hooks = list(hook_in_memory_evaluator(est, big, every_n_iter = 1))))
  }
  quit(save = "no")
}

script <- sub("^--file=", "", grep("^--file=", commandArgs(), value = TRUE))
if (!length(script)) script <- if (file.exists("bench")) "bench/interrupt.R" else "interrupt.R"
rows <- NULL
for (what in c("evaluator", "batch")) {
  dir <- tempfile("interrupt-")
  dir.create(dir)
  p <- processx::process$new(rscript, c(script, "child", what, dir))
  started <- file.path(dir, "started")
  deadline <- Sys.time() + 300
  while (!file.exists(started) && Sys.time() < deadline && p$is_alive()) Sys.sleep(0.05)
  Sys.sleep(1.5)
  sent <- Sys.time()
  p$interrupt()
  p$wait(120000)
  stopped <- as.numeric(difftime(Sys.time(), sent, units = "secs"))
  if (p$is_alive()) p$kill()
  rows <- rbind(rows, data.frame(what = what, one = as.numeric(readLines(started, warn = FALSE)[1]),
                                 stopped = stopped))
  unlink(dir, recursive = TRUE)
}
cat("| interrupted during | one evaluation (s) | signal to exit (s) |\n|---|---:|---:|\n")
cat(sprintf("| %s | %.2f | %.2f |\n", rows$what, rows$one, rows$stopped), sep = "")
