# A monotone constraint on a credit table (issue 55): modeldata's
# lending_club (Class: bad, good), 75% of the rows to train, 25% held out.
# Boosted trees (depth-wise, 100 trees of depth 4, learning rate 0.1) with
# int_rate constrained so that P(bad) never falls as int_rate rises (the
# logit of "good", the second level, never rises: -1), against the same
# trees unconstrained and xgboost with the same constraint and settings
# (factors one-hot, label bad). Checks the constraint on 500 held-out rows,
# each over a 100-point grid of int_rate with the rest fixed, and prints a
# markdown table of held-out AUCs (of P(bad)) and violations.
suppressPackageStartupMessages(library(cppestimators))
if (!requireNamespace("modeldata", quietly = TRUE)) {
  cat("modeldata is not installed: the lending_club constraint bench is skipped\n")
  quit(save = "no")
}
options(cppestimators.progress = FALSE)
d <- as.data.frame(modeldata::lending_club)
set.seed(55)
test_rows <- sample(nrow(d), round(nrow(d) / 4))
train_d <- d[-test_rows, ]
test_d <- d[test_rows, ]
auc <- function(score, bad) {
  r <- rank(score)
  n1 <- sum(bad)
  n0 <- length(bad) - n1
  (sum(r[bad]) - n1 * (n1 + 1) / 2) / (n1 * n0)
}
quiet <- run_config(save_checkpoints_steps = NULL, save_checkpoints_secs = NULL, save_summary_steps = 0,
                    log_step_count_steps = NULL)
fit_ours <- function(...) {
  est <- boosted_trees_classifier(feature_columns_from_data(train_d, -Class), growth = "depthwise", n_trees = 100,
                                  max_depth = 4, learning_rate = 0.1, config = quiet, ...)
  suppressMessages(train(est, train_d, response = "Class"))
  est
}
p_bad <- function(est, data) 1 - predict(est, data)$logistic  # (P of the second level, good)
grid_rows <- test_d[seq_len(500), ]
grid_x <- seq(min(d$int_rate), max(d$int_rate), length.out = 100)
grid <- grid_rows[rep(seq_len(500), each = 100), ]
grid$int_rate <- rep(grid_x, 500)
violations <- function(p) sum(apply(matrix(p, 100), 2, function(v) any(diff(v) < 0)))

free <- fit_ours()
mono <- fit_ours(monotone_constraints = c(int_rate = -1))
bad <- test_d$Class == "bad"
res <- data.frame(model = c("ours, unconstrained", "ours, int_rate monotone"),
                  auc = c(auc(p_bad(free, test_d), bad), auc(p_bad(mono, test_d), bad)),
                  rows_broken = c(violations(p_bad(free, grid)), violations(p_bad(mono, grid))))
if (requireNamespace("xgboost", quietly = TRUE)) {
  mm <- function(data) stats::model.matrix(~ . - 1, data[setdiff(names(data), "Class")])
  x_train <- mm(train_d)
  mc <- as.integer(colnames(x_train) == "int_rate")
  params <- list(objective = "binary:logistic", tree_method = "hist", max_depth = 4, eta = 0.1, nthread = 2)
  fit_xgb <- function(p) {
    xgboost::xgb.train(p, xgboost::xgb.DMatrix(x_train, label = as.integer(train_d$Class == "bad")),
                       nrounds = 100, verbose = 0)
  }
  xfree <- fit_xgb(params)
  xmono <- fit_xgb(c(params, list(monotone_constraints = mc)))
  res <- rbind(res, data.frame(
    model = c("xgboost, unconstrained", "xgboost, int_rate monotone"),
    auc = c(auc(stats::predict(xfree, mm(test_d)), bad), auc(stats::predict(xmono, mm(test_d)), bad)),
    rows_broken = c(violations(stats::predict(xfree, mm(grid))), violations(stats::predict(xmono, mm(grid))))))
}
cat("| lending_club, held-out 25% | AUC of P(bad) | of 500 rows, curves over int_rate where P(bad) falls |\n")
cat("|---|---:|---:|\n")
cat(sprintf("| %s | %.4f | %d |\n", res$model, res$auc, res$rows_broken), sep = "")
