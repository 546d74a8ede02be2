# The model_dir lock under contention: two processes race 150 short train()
# calls each (linear_regressor on mtcars' drat, batch 8, 5 steps a call, a
# checkpoint every step) on one model_dir, with 2 processes spinning beside
# them (the cores are busy, as on a shared CI machine). Each racer records
# how long each call waited for the lock (lock_model_dir(), timed from
# inside the racer) and how long each call took. The figure that matters is
# the longest wait against one call: a fair lock hands over within about one
# holder's call; a lock taken by polling can starve a waiter for as long as
# the other process keeps calling train().
#   Rscript bench/lock.R            (prints a markdown table)
# BENCH_LOCK_SPINNERS (default 2) and BENCH_LOCK_CALLS (default 150) change
# the setting.
args <- commandArgs(trailingOnly = TRUE)
rscript <- file.path(R.home("bin"), "Rscript")

if (length(args) && args[1] == "racer") {
  # one racer: Rscript bench/lock.R racer <model_dir> <calls> <result file> <start file>
  suppressPackageStartupMessages(library(cppestimators))
  options(cppestimators.progress = FALSE)
  dir <- args[2]
  calls <- as.integer(args[3])
  asked <- numeric()  # when each call asked for the lock, and when it had it (seconds since 1970)
  took <- numeric()
  ns <- asNamespace("cppestimators")
  take <- get("lock_model_dir", ns)
  timed <- function(dir, timeout = 10) {
    asked[length(asked) + 1L] <<- as.numeric(Sys.time())
    took[length(asked)] <<- NA_real_  # stays NA when the wait fails
    unlock <- take(dir, timeout)
    took[length(asked)] <<- as.numeric(Sys.time())
    unlock
  }
  utils::assignInNamespace("lock_model_dir", timed, "cppestimators")
  est <- linear_regressor(feature_columns(column_numeric("drat")), model_dir = dir,
                          config = run_config(save_checkpoints_steps = 1, keep_checkpoint_max = 1,
                                              log_step_count_steps = NULL, save_summary_steps = 0))
  input <- input_fn(mtcars, features = "drat", response = "mpg", batch_size = 8, num_epochs = NULL)
  # both racers start together
  file.create(paste0(args[4], ".ready"))
  while (!file.exists(args[5])) Sys.sleep(0.01)
  seconds <- numeric(calls)
  errors <- character()
  for (i in seq_len(calls)) {
    t0 <- proc.time()[["elapsed"]]
    res <- tryCatch({
      suppressMessages(train(est, input, steps = 5))
      NULL
    }, error = conditionMessage)
    seconds[i] <- proc.time()[["elapsed"]] - t0
    errors <- c(errors, res)
  }
  saveRDS(list(asked = asked, took = took, seconds = seconds, errors = errors), args[4])
  quit(save = "no")
}

suppressPackageStartupMessages(library(cppestimators))
script <- sub("^--file=", "", grep("^--file=", commandArgs(), value = TRUE))
if (!length(script)) script <- if (file.exists("bench")) "bench/lock.R" else "lock.R"
n_spin <- as.integer(Sys.getenv("BENCH_LOCK_SPINNERS", "2"))
calls <- as.integer(Sys.getenv("BENCH_LOCK_CALLS", "150"))

spin <- function(i) {
  parallel::mcparallel({
    x <- 0
    repeat x <- x + 1
  }, silent = TRUE)
}
spinners <- lapply(seq_len(n_spin), spin)
stop_spinning <- function() {
  for (j in spinners) tools::pskill(j$pid)
  if (length(spinners)) invisible(suppressWarnings(parallel::mccollect(spinners, wait = TRUE)))
}
res <- tryCatch({
  dir <- tempfile("lock-bench-")
  start <- tempfile("start-")
  out <- c(tempfile("racer1-"), tempfile("racer2-"))
  env <- paste0("R_LIBS=", paste(.libPaths(), collapse = .Platform$path.sep))
  for (f in out) system2(rscript, c(shQuote(script), "racer", shQuote(dir), calls, shQuote(f), shQuote(start)),
                         wait = FALSE, env = env, stdout = FALSE, stderr = FALSE)
  deadline <- Sys.time() + 1800
  while (!all(file.exists(paste0(out, ".ready"))) && Sys.time() < deadline) Sys.sleep(0.1)
  file.create(start)  # sets both off together
  while (!all(file.exists(out)) && Sys.time() < deadline) Sys.sleep(0.2)
  lapply(out, readRDS)
}, finally = stop_spinning())
load <- readLines("/proc/loadavg", 1L)

waits <- unlist(lapply(res, function(r) r$took - r$asked))
# how many times the other process took the lock while one call waited for
# it: 1 (or 2, when both asked at once) with a fair lock
overtaken <- unlist(lapply(1:2, function(k) {
  other <- res[[3 - k]]$took
  mapply(function(a, t) sum(other > a & other < t, na.rm = TRUE), res[[k]]$asked, res[[k]]$took)
}))
seconds <- unlist(lapply(res, `[[`, "seconds"))
# a call's time without its wait for the lock: what a waiter waits for, at most, with a fair lock
held <- unlist(lapply(res, function(r) if (length(r$asked) == length(r$seconds)) r$seconds - (r$took - r$asked)))
errors <- unlist(lapply(res, `[[`, "errors"))
est <- suppressMessages(linear_regressor(feature_columns(column_numeric("drat")), model_dir = dir))
step <- variable_value(est, "global_step")[[1]]
ms <- function(x) sprintf("%.1f", 1000 * x)
cat(sprintf("Two processes x %d train() calls of 5 steps on one model_dir, %d spinning processes beside them, %s\n\n",
            calls, n_spin, format(Sys.Date())))
cat("| errors | last step | call without its wait: median (ms) | longest (ms) |",
    "lock wait: median (ms) | 99th percentile (ms) | longest (ms) | longest wait / median call |",
    "most takes by the other process during one wait |\n")
cat("|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
cat(sprintf("| %d | %d | %s | %s | %s | %s | %s | %.1f | %d |\n", length(errors), as.integer(step),
            ms(stats::median(held, na.rm = TRUE)), ms(max(held, na.rm = TRUE)), ms(stats::median(waits, na.rm = TRUE)),
            ms(stats::quantile(waits, 0.99, names = FALSE, na.rm = TRUE)), ms(max(waits, na.rm = TRUE)),
            max(waits, na.rm = TRUE) / stats::median(held, na.rm = TRUE), max(overtaken)))
if (length(errors)) cat(sprintf("\nFirst error: %s\n", errors[1]))
cat(sprintf("\nLoad average at the end: %s\n", load))
unlink(c(dir, start, out, paste0(out, ".ready")), recursive = TRUE)
