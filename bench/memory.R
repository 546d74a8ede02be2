# Training's peak memory against the data's size, in a fresh process.
# Rscript bench/memory.R [rows] [columns]; prints a markdown section.
# A data frame of `columns` numeric features (default 50) and a response,
# BENCH_MEMORY_ROWS rows (default 2e6: 778 MB), built column by column (no
# copy of the whole); then linear_regressor() over the features without
# normalizers trains 200 steps of 512 rows from it (its first training:
# the scale check reads every column). The peak is the process's VmHWM
# (/proc/self/status) at the end, which includes R itself and the data.
suppressPackageStartupMessages(library(cppestimators))
options(cppestimators.progress = FALSE)
if (nzchar(Sys.getenv("BENCH_CACHE_BYTES"))) options(cppestimators.cache_bytes = as.numeric(Sys.getenv("BENCH_CACHE_BYTES")))
args <- commandArgs(trailingOnly = TRUE)
n <- as.integer(if (length(args) >= 1L) as.numeric(args[1]) else as.numeric(Sys.getenv("BENCH_MEMORY_ROWS", "2e6")))
p <- as.integer(if (length(args) >= 2L) args[2] else 50L)

status_kb <- function(field) {
  line <- grep(paste0("^", field, ":"), readLines("/proc/self/status"), value = TRUE)
  as.numeric(gsub("[^0-9]", "", line))
}

set.seed(1)
cols <- lapply(seq_len(p), function(j) rnorm(n, sd = j))
names(cols) <- paste0("x", seq_len(p))
cols$y <- rnorm(n)
df <- structure(cols, class = "data.frame", row.names = .set_row_names(n))
rm(cols)
data_mb <- as.numeric(utils::object.size(df)) / 2^20
invisible(gc())
before_mb <- status_kb("VmHWM") / 1024

quiet <- run_config(save_summary_steps = 0, log_step_count_steps = NULL,
                    save_checkpoints_steps = NULL, save_checkpoints_secs = NULL)
est <- suppressMessages(linear_regressor(feature_columns(column_numeric(paste0("x", seq_len(p)))), config = quiet))
elapsed <- system.time(suppressWarnings(suppressMessages(
  train(est, df, response = "y", batch_size = 512, steps = 200)
)))[["elapsed"]]
peak_mb <- status_kb("VmHWM") / 1024
unlink(model_dir(est), recursive = TRUE)

cat(sprintf("| %s x %d numeric columns + response | %.0f MB | %.0f MB | %.0f MB | %.2fx | %.1f s |\n",
            format(n, big.mark = ",", scientific = FALSE), p, data_mb, before_mb, peak_mb, peak_mb / data_mb, elapsed))
