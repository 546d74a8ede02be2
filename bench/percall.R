# Per-call cost of train(), evaluate() and predict(): what a call costs
# beyond its steps, as the number of columns grows. 256 rows of p numeric
# columns, a linear_regressor over all of them (quiet run_config(), progress
# off); after one warm-up call each, the median wall time of single calls,
# repeated on the same estimator and the same data: train(steps = 1) and
# evaluate(steps = 1) over the data frame, predict() of its 256 rows.
#   Rscript bench/percall.R        prints a table (and the same calls through an input_fn())
#   Rscript bench/percall.R csv    prints CSV: columns,train_ms,evaluate_ms,predict_ms
# BENCH_PERCALL_REPS: calls timed per cell (default 50); BENCH_PERCALL_COLUMNS:
# comma-separated column counts (default 5,50,500,2000); BENCH_PERCALL_THREADS:
# options(cppestimators.threads) for the run (default: the package's).
suppressPackageStartupMessages(library(cppestimators))
options(cppestimators.progress = FALSE)
threads <- Sys.getenv("BENCH_PERCALL_THREADS")  # default: the package's (2)
if (nzchar(threads)) options(cppestimators.threads = as.integer(threads))

args <- commandArgs(trailingOnly = TRUE)
csv <- identical(args[1], "csv")
reps <- as.integer(Sys.getenv("BENCH_PERCALL_REPS", "50"))
widths <- as.integer(strsplit(Sys.getenv("BENCH_PERCALL_COLUMNS", "5,50,500,2000"), ",")[[1]])
rows <- 256L
quiet <- run_config(save_summary_steps = 0, log_step_count_steps = NULL,
                    save_checkpoints_steps = NULL, save_checkpoints_secs = NULL)

make_data <- function(p) {
  set.seed(p)
  df <- as.data.frame(matrix(stats::rnorm(rows * p), rows, p, dimnames = list(NULL, paste0("x", seq_len(p)))))
  df$y <- 0.5 + rowSums(df[, seq_len(min(p, 5L)), drop = FALSE]) + 0.1 * stats::rnorm(rows)
  df
}

# Median milliseconds of one call of `f`, after one warm-up call.
per_call_ms <- function(f) {
  f()
  times <- vapply(seq_len(reps), function(i) {
    t0 <- Sys.time()
    f()
    as.numeric(Sys.time()) - as.numeric(t0)
  }, 0)
  stats::median(times) * 1000
}

measure <- function(p) {
  df <- make_data(p)
  fcs <- feature_columns(column_numeric(starts_with("x")), names = df)
  est <- suppressMessages(linear_regressor(fcs, config = quiet))
  input <- input_fn(df, response = "y", batch_size = rows)
  features <- df[setdiff(names(df), "y")]
  on.exit(unlink(model_dir(est), recursive = TRUE))
  quietly <- function(expr) suppressMessages(expr)
  out <- data.frame(
    columns = p,
    train_ms = per_call_ms(function() quietly(train(est, df, response = "y", steps = 1))),
    evaluate_ms = per_call_ms(function() quietly(evaluate(est, df, response = "y", steps = 1))),
    predict_ms = per_call_ms(function() predict(est, features))
  )
  if (!csv) {
    out$train_input_fn_ms <- per_call_ms(function() quietly(train(est, input, steps = 1)))
    out$evaluate_input_fn_ms <- per_call_ms(function() quietly(evaluate(est, input, steps = 1)))
    out$predict_input_fn_ms <- per_call_ms(function() predict(est, input))
  }
  out
}

res <- do.call(rbind, lapply(widths, measure))
if (csv) {
  utils::write.csv(res, stdout(), row.names = FALSE)
} else {
  cat(sprintf("Per-call cost, %d rows, linear_regressor over every column, median of %d calls (ms)\n\n",
              rows, reps))
  print(format(res, digits = 3, nsmall = 2), row.names = FALSE)
}
