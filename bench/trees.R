# The boosted trees task of bench/run.R: n rows x 20 numeric features, 100
# trees of depth 6, learning rate 0.1, 2 threads, one batch holding the whole
# training set and n_batches_per_layer = 1 (one layer per step), next to
# xgboost's tree_method = "hist" grown depth-wise with the same settings.
# BENCH_TREES_ROWS sets n. Prints: rows, our seconds, our held-out loss,
# xgboost's seconds, xgboost's held-out loss (NA without xgboost).
suppressPackageStartupMessages(library(cppestimators))
options(cppestimators.threads = 2L, cppestimators.progress = FALSE)
n <- as.integer(Sys.getenv("BENCH_TREES_ROWS", "100000"))
set.seed(42)
make <- function(n) {
  x <- matrix(stats::runif(n * 20, -1, 1), n, 20, dimnames = list(NULL, paste0("x", 1:20)))
  f <- sin(3 * x[, 1]) + x[, 2] * x[, 3] + ifelse(x[, 4] > 0.3, 1, -0.5) + 0.5 * x[, 5]^2 - x[, 6]
  y <- as.numeric(stats::runif(n) < stats::plogis(2 * f))
  list(x = x, y = y)
}
train_set <- make(n)
test_set <- make(20000)
logloss <- function(p, y) -mean(y * log(pmax(p, 1e-15)) + (1 - y) * log(pmax(1 - p, 1e-15)))

df <- as.data.frame(train_set$x)
df$y <- train_set$y
test_df <- as.data.frame(test_set$x)
est <- boosted_trees_classifier(feature_columns(column_numeric(starts_with("x")), names = df),
                                n_batches_per_layer = 1, n_trees = 100, max_depth = 6, learning_rate = 0.1,
                                config = run_config(save_checkpoints_steps = NULL, save_checkpoints_secs = NULL,
                                                    save_summary_steps = 0, log_step_count_steps = NULL))
input <- input_fn(df, response = "y", batch_size = n, num_epochs = NULL, shuffle = FALSE)
ours <- system.time(suppressMessages(train(est, input)))[["elapsed"]]
p <- suppressMessages(predict(est, input_fn(test_df, num_epochs = 1), predict_keys = "logistic"))$logistic
ours_loss <- logloss(unlist(p), test_set$y)

xgb_time <- NA
xgb_loss <- NA
if (requireNamespace("xgboost", quietly = TRUE)) {
  dtrain <- xgboost::xgb.DMatrix(train_set$x, label = train_set$y, nthread = 2)
  params <- list(objective = "binary:logistic", tree_method = "hist", max_depth = 6, eta = 0.1, nthread = 2,
                 max_bin = 256, lambda = 0, min_child_weight = 0, grow_policy = "depthwise")
  xgb_time <- system.time(bst <- xgboost::xgb.train(params, dtrain, nrounds = 100, verbose = 0))[["elapsed"]]
  xgb_loss <- logloss(stats::predict(bst, xgboost::xgb.DMatrix(test_set$x, nthread = 2)), test_set$y)
}
cat(sprintf("%d %.3f %.5f %.3f %.5f\n", n, ours, ours_loss, xgb_time, xgb_loss))
