# Per-prediction explanations of boosted trees (issue 55): TreeSHAP of
# 10,000 rows x 20 numeric features through 100 trees of depth 6, at 2
# threads, against xgboost's predict(predcontrib = TRUE) and LightGBM's
# predict(type = "contrib") of ensembles of the same shape grown on the same
# data (depth-wise, max_depth 6; LightGBM with num_leaves 64 and leaves of
# a hessian sum of 1, as xgboost's and ours). Each time is
# the median of BENCH_EXPLAIN_REPS (default 5) calls, the three libraries
# taking turns. Prints a markdown table: seconds per call and our ratio to
# each peer (goal: at most 1.0x each). NA where a peer is not installed.
suppressPackageStartupMessages(library(cppestimators))
threads <- as.integer(Sys.getenv("BENCH_EXPLAIN_THREADS", "2"))
reps <- as.integer(Sys.getenv("BENCH_EXPLAIN_REPS", "5"))
options(cppestimators.threads = threads, cppestimators.progress = FALSE)
n <- 10000L
p <- 20L
set.seed(55)
x <- matrix(stats::runif(n * p), n, p, dimnames = list(NULL, sprintf("x%02d", seq_len(p))))
y <- x[, 1] + 2 * x[, 2] * x[, 3] - x[, 4]^2 + sin(6 * x[, 5]) + stats::rnorm(n, sd = 0.2)
df <- as.data.frame(x)
df$y <- y
quiet <- run_config(save_checkpoints_steps = NULL, save_checkpoints_secs = NULL, save_summary_steps = 0,
                    log_step_count_steps = NULL)
cols <- do.call(feature_columns, lapply(colnames(x), column_numeric))
est <- boosted_trees_regressor(cols, growth = "depthwise", n_trees = 100, max_depth = 6, learning_rate = 0.1,
                               config = quiet)
suppressMessages(train(est, df, response = "y"))
data <- df[colnames(x)]
ours <- function() predict(est, data, type = "contributions")

xgb <- NULL
if (requireNamespace("xgboost", quietly = TRUE)) {
  dtrain <- xgboost::xgb.DMatrix(x, label = y, nthread = threads)
  bst <- xgboost::xgb.train(list(objective = "reg:squarederror", tree_method = "hist", max_depth = 6, eta = 0.1,
                                 nthread = threads), dtrain, nrounds = 100, verbose = 0)
  dx <- xgboost::xgb.DMatrix(x, nthread = threads)
  xgb <- function() stats::predict(bst, dx, predcontrib = TRUE)
}
lgb <- NULL
if (requireNamespace("lightgbm", quietly = TRUE)) {
  ltrain <- lightgbm::lgb.Dataset(x, label = y)
  # leaves as small as xgboost's and ours (a hessian sum of 1), so that the
  # three ensembles have about as many leaves
  lbst <- lightgbm::lgb.train(list(objective = "regression", max_depth = 6, num_leaves = 64, learning_rate = 0.1,
                                   min_data_in_leaf = 1, min_sum_hessian_in_leaf = 1, num_threads = threads,
                                   verbose = -1), ltrain, nrounds = 100)
  lgb <- function() stats::predict(lbst, x, type = "contrib", params = list(num_threads = threads))
}

# check: ours adds up to the predictions
check <- ours()
stopifnot(max(abs(rowSums(check) - predict(est, data)$predictions)) < 1e-4)
time_of <- function(f) if (is.null(f)) NA_real_ else system.time(f())[["elapsed"]]
times <- matrix(NA_real_, reps, 3, dimnames = list(NULL, c("ours", "xgboost", "lightgbm")))
for (r in seq_len(reps)) {
  times[r, "ours"] <- time_of(ours)
  times[r, "xgboost"] <- time_of(xgb)
  times[r, "lightgbm"] <- time_of(lgb)
}
med <- apply(times, 2, stats::median)
# leaves per tree of each ensemble (the work of TreeSHAP grows with them)
leaves <- c(ours = {
  ens <- boosted_trees_ensemble(est)
  sum(ens$is_leaf) / length(unique(ens$tree))
}, xgboost = if (!is.null(xgb)) tryCatch({
  dt <- xgboost::xgb.model.dt.tree(model = bst)
  sum(dt$Feature == "Leaf") / 100
}, error = function(e) NA_real_) else NA_real_, lightgbm = if (!is.null(lgb)) tryCatch({
  dt <- lightgbm::lgb.model.dt.tree(lbst)
  sum(!is.na(dt$leaf_index)) / 100
}, error = function(e) NA_real_) else NA_real_)
cat(paste("| task | ours (s) | xgboost predcontrib (s) | LightGBM contrib (s) | ours / xgboost | ours / LightGBM |",
          "goal | leaves per tree: ours / xgboost / LightGBM |\n"))
cat("|---|---:|---:|---:|---:|---:|---|---|\n")
row <- "| 10,000 x 20, 100 trees of depth 6, %d threads | %.3f | %.3f | %.3f | %.2fx | %.2fx | at most 1.0x each |"
cat(sprintf(paste(row, "%.1f / %.1f / %.1f |\n"), threads, med[["ours"]], med[["xgboost"]], med[["lightgbm"]],
            med[["ours"]] / med[["xgboost"]], med[["ours"]] / med[["lightgbm"]], leaves[["ours"]], leaves[["xgboost"]],
            leaves[["lightgbm"]]))
