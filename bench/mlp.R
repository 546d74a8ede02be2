# The MLP task of the PyTorch peer (torch_peer.py mlp): 64 numeric features ->
# 256 relu -> 256 relu -> 10 classes, Adagrad(0.05), batch 256, labels from a
# linear teacher. Prints: threads, examples per second, GFLOP/s of the step,
# the matrix-product kernel (BENCH_MLP_SIMD, default auto).
suppressPackageStartupMessages(library(cppestimators))
threads <- as.integer(Sys.getenv("BENCH_MLP_THREADS", "1"))
options(cppestimators.threads = threads, cppestimators.simd = Sys.getenv("BENCH_MLP_SIMD", "auto"),
        cppestimators.progress = FALSE)
set.seed(1)
n <- 256L * 64L
x <- matrix(stats::rnorm(n * 64), n, 64, dimnames = list(NULL, paste0("x", 1:64)))
df <- as.data.frame(x)
df$y <- max.col(x %*% matrix(stats::rnorm(64 * 10), 64, 10)) - 1L
quiet <- run_config(save_summary_steps = 0, log_step_count_steps = NULL,
                    save_checkpoints_steps = NULL, save_checkpoints_secs = NULL, tf_random_seed = 1)
est <- suppressMessages(dnn_classifier(hidden_units = c(256, 256),
                                       feature_columns = feature_columns(column_numeric(starts_with("x")), names = df),
                                       n_classes = 10, optimizer = optimizer_adagrad(0.05), config = quiet))
input <- input_fn(df, response = "y", batch_size = 256L, num_epochs = NULL)
run <- function(steps) {
  system.time(invisible(utils::capture.output(suppressMessages(train(est, input, steps = steps)))))[["elapsed"]]
}
invisible(run(20))
steps <- 300L
per_step <- stats::median(vapply(1:3, function(i) (run(3 * steps) - run(steps)) / (2 * steps), 0))
macs <- 64 * 256 + 256 * 256 + 256 * 10
flops <- 2 * macs + 2 * macs + 2 * (macs - 64 * 256)  # forward, weight gradients, input gradients
kernel <- as.character(cppestimators:::cpp_gemm_kernel(getOption("cppestimators.simd")))
cat(sprintf("%d %.0f %.2f %s\n", threads, 256 / per_step, flops * 256 / per_step / 1e9, kernel))
