# Sparse columns cost what a batch touches, not the size of their tables:
# a linear classifier on 1e6 rows with 10 hash-bucket columns, at
# hash_bucket_size = 1e3 and 1e6. One size per process (so that peak memory
# is this run's own): Rscript bench/sparse_columns.R <hash_bucket_size>.
# Prints one line: size, microseconds per step, and memory figures in MB.
suppressPackageStartupMessages(library(cppestimators))

size <- as.numeric(commandArgs(TRUE)[1])
rows <- as.numeric(Sys.getenv("BENCH_SPARSE_ROWS", "1e6"))
steps <- as.integer(Sys.getenv("BENCH_SPARSE_STEPS", "4000"))
batch <- 128L
cols <- 10L

status_mb <- function(field) {
  line <- grep(paste0("^", field, ":"), readLines("/proc/self/status"), value = TRUE)
  as.numeric(sub("[^0-9]*([0-9]+).*", "\\1", line)) / 1024
}

set.seed(1)
df <- as.data.frame(lapply(stats::setNames(seq_len(cols), paste0("c", seq_len(cols))),
                           function(j) paste0("v", sample.int(1e5, rows, TRUE))),
                    stringsAsFactors = FALSE)
df$y <- as.integer(nchar(df$c1) %% 2 == 0)
data_mb <- as.numeric(utils::object.size(df)) / 2^20

quiet <- run_config(save_summary_steps = 0, log_step_count_steps = NULL,
                    save_checkpoints_steps = NULL, save_checkpoints_secs = NULL)
fcs <- feature_columns(column_categorical_with_hash_bucket(starts_with("c"), hash_bucket_size = size),
                       names = df)
est <- suppressMessages(linear_classifier(fcs, config = quiet))
input <- input_fn(df, response = "y", batch_size = batch, num_epochs = NULL)
# the baseline: data, packages and the estimator's R object, before the engine exists
invisible(gc())
base_mb <- status_mb("VmRSS")
run <- function(n) {
  system.time(invisible(utils::capture.output(suppressMessages(train(est, input, steps = n)))))[["elapsed"]]
}
invisible(run(10))  # builds the engine and its tables
# the difference of two runs removes what a train() call costs once (binding
# the data, keeping a copy of the weights in the R object)
t1 <- run(steps)
t2 <- run(3 * steps)
us <- (t2 - t1) / (2 * steps) * 1e6
# weights and two Ftrl slots per bucket, float32
model_mb <- (cols * size + 1) * 3 * 4 / 2^20
peak_mb <- status_mb("VmHWM")
cat(sprintf("%.0f %.3f %.1f %.1f %.1f %.1f\n", size, us, data_mb, model_mb, peak_mb - base_mb,
            base_mb))
