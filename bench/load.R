# Training while other processes keep the cores busy: each task of
# bench/load_task.R (DNN, linear, boosted trees, CSV parsing) at 1 and at 2
# threads, on a quiet machine and with 2 and then 4 processes that spin
# (started here, by fork(), and killed before the next setting). Every
# timing runs in a fresh Rscript. The figure that matters is the ratio of 2
# threads' time to 1 thread's under the same load: with threads that wait
# for each other at every step, a descheduled thread makes the 2-thread run
# many times slower than the 1-thread run.
#   Rscript bench/load.R           (prints a markdown table)
# BENCH_LOAD_SPINNERS (default "0,2,4") and BENCH_LOAD_TASKS (default
# "dnn,linear,trees,csv") choose the settings.
here <- local({
  f <- sub("^--file=", "", grep("^--file=", commandArgs(), value = TRUE))
  if (length(f)) dirname(normalizePath(f)) else "bench"
})
task_script <- file.path(here, "load_task.R")
rscript <- file.path(R.home("bin"), "Rscript")
spinners <- as.integer(strsplit(Sys.getenv("BENCH_LOAD_SPINNERS", "0,2,4"), ",")[[1]])
tasks <- strsplit(Sys.getenv("BENCH_LOAD_TASKS", "dnn,linear,trees,csv"), ",")[[1]]

spin <- function(k) {
  lapply(seq_len(k), function(i) parallel::mcparallel({
    x <- 0
    repeat x <- x + 1
  }, silent = TRUE))
}
stop_spinning <- function(jobs) {
  for (j in jobs) tools::pskill(j$pid)
  if (length(jobs)) invisible(suppressWarnings(parallel::mccollect(jobs, wait = TRUE)))
}
time_task <- function(task, threads) {
  out <- system2(rscript, c(shQuote(task_script), task, threads), stdout = TRUE)
  as.numeric(out[length(out)])
}

rows <- NULL
for (k in spinners) {
  jobs <- spin(k)
  tryCatch({
    Sys.sleep(if (k) 1 else 0)
    for (task in tasks) {
      t1 <- time_task(task, 1L)
      t2 <- time_task(task, 2L)
      rows <- rbind(rows, data.frame(task = task, spinners = k, one = t1, two = t2))
    }
  }, finally = stop_spinning(jobs))
}
cat("| task | spinning processes | 1 thread (s) | 2 threads (s) | 2 / 1 |\n|---|---:|---:|---:|---:|\n")
cat(sprintf("| %s | %d | %.3f | %.3f | %.2f |\n", rows$task, rows$spinners, rows$one, rows$two,
            rows$two / rows$one), sep = "")
