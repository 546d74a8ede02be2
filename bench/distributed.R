# Training across processes on this machine (issue 37):
# - one round's combination (the engine's allreduce) of two workers'
#   gradients of 64 KB and of 4 MB: on a 2-worker socket cluster (the chief
#   combines and sends the result back) and under mpirun -np 2 (Rmpi:
#   allgatherv, then each rank combines); median microseconds per round;
# - boosted trees (1e6 x 20 numeric columns, 20 trees of depth 6, one batch
#   of the whole table a layer) and one DNN epoch (hidden units 64 and 64,
#   batch 1,000; 500 per worker) on 2 workers x 1 thread against one
#   process x 2 threads; median of 3 runs, the shards already on the
#   workers (the first call, which sends them, is timed apart).
# Prints markdown tables.
suppressPackageStartupMessages(library(cppestimators))
options(cppestimators.progress = FALSE)
args <- commandArgs(trailingOnly = TRUE)

# A worker's part of a round: a dense gradient of n float32 values, in the
# engine's layout (src/engine/session/step_exchange.cpp).
part_bytes <- function(n, observer = FALSE) {
  con <- rawConnection(raw(), "wb")
  on.exit(close(con))
  writeBin(827868483L, con, size = 4, endian = "little")  # "CEX1"
  head <- if (observer) numeric(8) else c(1, 1, 0, 1, 8, 8, 1, 8)
  writeBin(head, con, size = 8, endian = "little")
  writeBin(c(0L, 0L), con, size = 4, endian = "little")  # no per-example losses
  if (observer) {
    writeBin(0L, con, size = 4, endian = "little")
  } else {
    writeBin(c(1L, 1L, 0L, 0L, as.integer(n), 0L, 1L, 0L), con, size = 4, endian = "little")
    writeBin(stats::runif(n), con, size = 4, endian = "little")
  }
  rawConnectionValue(con)
}

# The 1e6 x 20 table of the whole-training runs, and what is trained on it.
make_table <- function() {
  set.seed(1)
  n <- 1e6
  x <- matrix(stats::rnorm(n * 20), n, 20, dimnames = list(NULL, paste0("x", 1:20)))
  d <- as.data.frame(x)
  d$y <- as.integer(x[, 1] + 0.5 * x[, 2] - x[, 3] * x[, 4] + stats::rnorm(n) > 0)
  d
}
quiet <- run_config(save_summary_steps = 0, log_step_count_steps = NULL,
                    save_checkpoints_steps = NULL, save_checkpoints_secs = NULL)
trees_of <- function(d, config = quiet) {
  cols <- feature_columns(column_numeric(starts_with("x")), names = d)
  boosted_trees_classifier(cols, n_batches_per_layer = 1, n_trees = 20, max_depth = 6, config = config)
}
dnn_of <- function(d, config = quiet) {
  dnn_classifier(c(64, 64), feature_columns(column_numeric(starts_with("x")), names = d), config = config)
}

if (identical(args[1], "mpi-train")) {
  # under mpirun -np 2, one thread a rank: rank 0 prints the median seconds
  # of 3 trainings of each model (every rank holds the table, reads its shard)
  options(cppestimators.threads = 1)
  world <- cppestimators:::mpi_world()
  d <- make_table()
  mpi <- quiet$replace(cluster = "mpi")
  run <- function(f) {
    Rmpi::mpi.barrier(0)
    t0 <- proc.time()[["elapsed"]]
    suppressMessages(f())
    proc.time()[["elapsed"]] - t0
  }
  trees <- function() train(trees_of(d, mpi), input_fn(d, response = "y", batch_size = nrow(d) / 2,
                                                       num_epochs = NULL, shuffle = FALSE))
  dnn <- function() train(dnn_of(d, mpi), input_fn(d, response = "y", batch_size = 500L, num_epochs = 1))
  out <- c(stats::median(vapply(1:3, function(i) run(trees), 0)), stats::median(vapply(1:3, function(i) run(dnn), 0)))
  if (world$rank == 0) cat(out, "\n")
  invisible(Rmpi::mpi.finalize())
  quit(save = "no")
}

if (identical(args[1], "mpi")) {
  # under mpirun: rank 0 prints the median microseconds of a round
  world <- cppestimators:::mpi_world()
  coll <- cppestimators:::mpi_collective(world)
  for (bytes in c(65536, 4194304)) {
    part <- part_bytes(bytes / 4)
    # (the clock's resolution is a millisecond: batches of 10 rounds, timed)
    times <- vapply(1:12, function(k) {
      t0 <- proc.time()[["elapsed"]]
      for (j in 1:10) coll$allcombine(part)
      (proc.time()[["elapsed"]] - t0) / 10
    }, 0)
    if (world$rank == 0) cat(bytes, stats::median(times[-(1:2)]) * 1e6, "\n")
  }
  invisible(Rmpi::mpi.finalize())
  quit(save = "no")
}

cl <- parallel::makePSOCKcluster(2)
on.exit(parallel::stopCluster(cl))
rounds <- function(bytes, reps = 120) {
  worker <- function(n, reps, rank, size, part_bytes) {
    con <- cppestimators:::master_connection()
    coll <- cppestimators:::worker_collective(con, rank, size)
    part <- part_bytes(n)
    for (k in seq_len(reps)) coll$allcombine(part)
    TRUE
  }
  environment(worker) <- globalenv()  # (sent to the workers without this frame)
  coll <- cppestimators:::chief_collective(cl, 60)
  for (i in 1:2) cppestimators:::node_start(cl, i, worker, list(bytes / 4, reps, i, 3L, part_bytes))
  mine <- part_bytes(0, observer = TRUE)
  # (the clock's resolution is a millisecond: batches of 10 rounds, timed)
  times <- vapply(seq_len(reps / 10), function(k) {
    t0 <- proc.time()[["elapsed"]]
    for (j in 1:10) coll$allcombine(mine)
    (proc.time()[["elapsed"]] - t0) / 10
  }, 0)
  for (i in 1:2) cppestimators:::node_value(cl, i, 60)
  stats::median(times[-1]) * 1e6
}
psock <- vapply(c(65536, 4194304), rounds, 0)
mpi <- c(NA, NA)
mpirun <- Sys.which("mpirun")
self <- if (file.exists("bench/distributed.R")) "bench/distributed.R" else "distributed.R"
if (nzchar(mpirun) && nzchar(system.file(package = "Rmpi"))) {
  out <- system2(mpirun, c("--oversubscribe", "-np", "2", file.path(R.home("bin"), "Rscript"), self, "mpi"),
                 stdout = TRUE, stderr = FALSE,
                 env = c("OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1", paste0("TMPDIR=", tempdir())))
  v <- utils::read.table(text = out)
  mpi <- v[[2]][match(c(65536, 4194304), v[[1]])]
}
cat("| round (allreduce) of | socket cluster, 2 workers (us) | mpirun -np 2 (us) |\n|---|---|---|\n")
cat(sprintf("| %s | %.0f | %s |\n", c("64 KB", "4 MB"), psock, ifelse(is.na(mpi), "n/a", sprintf("%.0f", mpi))),
    sep = "")

# ---- whole trainings: 2 workers x 1 thread against 1 process x 2 threads ----
d <- make_table()
n <- nrow(d)
trees <- function() trees_of(d)
dnn <- function() dnn_of(d)
time_of <- function(f) system.time(suppressMessages(f()))[["elapsed"]]
med3 <- function(f) stats::median(vapply(1:3, function(i) time_of(f), 0))
whole <- function(rows) input_fn(d, response = "y", batch_size = rows, num_epochs = NULL, shuffle = FALSE)
alone_trees <- function() train(trees(), whole(n))
across_trees <- function() train(trees(), whole(n / 2), cluster = cl)
alone_dnn <- function() train(dnn(), input_fn(d, response = "y", batch_size = 1000L, num_epochs = 1))
across_dnn <- function() {
  train(dnn(), input_fn(d, response = "y", batch_size = 500L, num_epochs = 1), cluster = cl)
}
options(cppestimators.threads = 2)
first_call <- time_of(across_trees)  # sends the shards
rows <- data.frame(
  task = c("boosted trees, 20 trees depth 6", "DNN 64-64, one epoch"),
  alone = c(med3(alone_trees), med3(alone_dnn)),
  across = c(med3(across_trees), med3(across_dnn)))
rows$ratio <- rows$across / rows$alone
rows$mpi <- NA
if (nzchar(mpirun) && nzchar(system.file(package = "Rmpi"))) {
  out <- system2(mpirun, c("--oversubscribe", "-np", "2", file.path(R.home("bin"), "Rscript"), self, "mpi-train"),
                 stdout = TRUE, stderr = FALSE,
                 env = c("OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1", paste0("TMPDIR=", tempdir())))
  rows$mpi <- as.numeric(strsplit(trimws(out[length(out)]), " +")[[1]])
}
cat("\n| 1e6 x 20 rows | 1 process x 2 threads (s) | socket cluster, 2 workers x 1 thread (s) | ratio |",
    " mpirun -np 2, 1 thread each (s) | ratio (goal <= 1.3) |\n|---|---|---|---|---|---|\n", sep = "")
cat(sprintf("| %s | %.2f | %.2f | %.2f | %.2f | %.2f |\n", rows$task, rows$alone, rows$across, rows$ratio,
            rows$mpi, rows$mpi / rows$alone), sep = "")
cat(sprintf("\nThe first call on a new cluster, which also sends the 1e6-row shards: %.2f s (trees).\n", first_call))
