# One task of bench/load.R, timed in this process at a given thread count:
#   Rscript bench/load_task.R TASK THREADS
# TASK: "dnn" (the MLP of bench/mlp.R: 64 -> 256 -> 256 -> 10, batch 256,
# 200 steps), "linear" (linear_regressor, 100,000 rows x 50 numeric columns
# in one batch, 30 steps), "trees" (boosted_trees_classifier, 100,000 rows x
# 20 columns, 10 trees of depth 6, the whole set in one batch) or "csv"
# (dataset_collect() of a 1,000,000-row CSV file of 8 numeric columns).
# Prints the median seconds of 3 runs, after one run that is not timed.
suppressPackageStartupMessages(library(cppestimators))
args <- commandArgs(trailingOnly = TRUE)
task <- args[1]
threads <- as.integer(args[2])
options(cppestimators.threads = threads, cppestimators.progress = FALSE)
set.seed(1)
quiet <- run_config(save_summary_steps = 0, log_step_count_steps = NULL,
                    save_checkpoints_steps = NULL, save_checkpoints_secs = NULL, tf_random_seed = 1)
numeric_frame <- function(n, p) {
  x <- matrix(stats::rnorm(n * p), n, p, dimnames = list(NULL, paste0("x", seq_len(p))))
  as.data.frame(x)
}
fresh <- function(make) function() suppressMessages(make())
run <- switch(task,
  dnn = {
    df <- numeric_frame(256L * 64L, 64L)
    df$y <- max.col(as.matrix(df) %*% matrix(stats::rnorm(64 * 10), 64, 10)) - 1L
    input <- input_fn(df, response = "y", batch_size = 256L, num_epochs = NULL)
    make <- fresh(function() {
      dnn_classifier(hidden_units = c(256, 256), n_classes = 10, optimizer = optimizer_adagrad(0.05),
                     feature_columns = feature_columns(column_numeric(starts_with("x")), names = df),
                     config = quiet)
    })
    function() train(make(), input, steps = 200L)
  },
  linear = {
    df <- numeric_frame(100000L, 50L)
    df$y <- rowSums(df[1:10]) + stats::rnorm(nrow(df))
    input <- input_fn(df, response = "y", batch_size = nrow(df), num_epochs = NULL, shuffle = FALSE)
    make <- fresh(function() {
      linear_regressor(feature_columns = feature_columns(column_numeric(starts_with("x")), names = df),
                       config = quiet)
    })
    function() train(make(), input, steps = 30L)
  },
  trees = {
    df <- numeric_frame(100000L, 20L)
    df$y <- as.integer(df$x1 + df$x2 * df$x3 + stats::rnorm(nrow(df)) > 0)
    input <- input_fn(df, response = "y", batch_size = nrow(df), num_epochs = NULL)
    make <- fresh(function() {
      boosted_trees_classifier(feature_columns = feature_columns(column_numeric(starts_with("x")), names = df),
                               n_batches_per_layer = 1, n_trees = 10, max_depth = 6, config = quiet)
    })
    function() train(make(), input, steps = 60L)
  },
  csv = {
    path <- tempfile(fileext = ".csv")
    utils::write.csv(numeric_frame(1000000L, 8L), path, row.names = FALSE)
    spec <- csv_record_spec(path, types = "dddddddd")
    function() dataset_collect(text_line_dataset(path, spec, parallel_records = threads), chunk_size = 65536L)
  },
  stop("unknown task: ", task))
invisible(utils::capture.output(run()))
times <- vapply(1:3, function(i) system.time(invisible(utils::capture.output(run())))[["elapsed"]], 0)
cat(sprintf("%.4f\n", stats::median(times)))
