# The linear-model grid: batch size x number of features, a linear regressor
# with SGD over shuffled batches of 16384 rows, as the PyTorch peer's
# torch_linear_grid.py ("gather" pipeline) does.
#   Rscript bench/grid.R          prints CSV: batch,p,us_per_step (BENCH_GRID_THREADS threads, default 2)
#   Rscript bench/grid.R memory   prints: data MB, peak growth of training MB, and
#                                 (data + growth) / data (500 features, batch 4096)
suppressPackageStartupMessages(library(cppestimators))

n <- as.integer(Sys.getenv("BENCH_GRID_ROWS", "16384"))
options(cppestimators.threads = as.integer(Sys.getenv("BENCH_GRID_THREADS", "2")))
target <- as.numeric(Sys.getenv("BENCH_GRID_SECONDS", "0.5"))
quiet <- run_config(save_summary_steps = 0, log_step_count_steps = NULL,
                    save_checkpoints_steps = NULL, save_checkpoints_secs = NULL)

status_mb <- function(field) {
  line <- grep(paste0("^", field, ":"), readLines("/proc/self/status"), value = TRUE)
  as.numeric(sub("[^0-9]*([0-9]+).*", "\\1", line)) / 1024
}

# Column by column, so that no temporary matrix inflates the peak memory.
make_data <- function(p) {
  set.seed(p)
  w <- stats::rnorm(p)
  df <- list()
  y <- 0.5 + 0.1 * stats::rnorm(n)
  for (j in seq_len(p)) {
    df[[paste0("x", j)]] <- stats::rnorm(n)
    y <- y + w[j] * df[[j]]
  }
  df$y <- y
  as.data.frame(df)
}

setup <- function(df, b) {
  fcs <- feature_columns(column_numeric(starts_with("x")), names = df)
  est <- suppressMessages(linear_regressor(fcs, optimizer = optimizer_sgd(1e-5), config = quiet))
  input <- input_fn(df, response = "y", batch_size = b, num_epochs = NULL, shuffle = TRUE)
  list(est = est, input = input)
}

train_seconds <- function(s, steps) {
  system.time(invisible(utils::capture.output(suppressMessages(
    train(s$est, s$input, steps = steps)))))[["elapsed"]]
}

args <- commandArgs(TRUE)
if (length(args) && args[1] == "memory") {
  df <- make_data(500)
  data_mb <- as.numeric(utils::object.size(df)) / 2^20
  s <- setup(df, 4096L)  # the columns, estimator and input (packages loaded)
  invisible(gc())
  base <- status_mb("VmRSS")  # the data is in here
  cat("5", file = "/proc/self/clear_refs")  # the peak counts from now on
  train_seconds(s, 200)
  growth <- status_mb("VmHWM") - base
  cat(sprintf("%.1f %.1f %.2f\n", data_mb, growth, (data_mb + growth) / data_mb))
  quit(save = "no")
}

cat("batch,p,us_per_step\n")
for (p in c(2L, 50L, 500L)) {
  df <- make_data(p)
  for (b in c(8L, 256L, 4096L)) {
    s <- setup(df, b)
    train_seconds(s, 20)  # engine, cached block
    per <- max(train_seconds(s, 200) / 200, 1e-7)
    steps <- as.integer(max(200, min(2e6, target / per)))
    # the difference of two runs removes what one train() call costs once
    us <- vapply(1:3, function(i) {
      (train_seconds(s, 3 * steps) - train_seconds(s, steps)) / (2 * steps) * 1e6
    }, 0)
    cat(sprintf("%d,%d,%.3f\n", b, p, stats::median(us)))
  }
}
