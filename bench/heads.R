# The heads of issue 56 against the peers, on simulated tables whose truth
# is known (20,000 rows to train, 20,000 held out, 8 numeric predictors):
# - trees: held-out deviance of Poisson counts, Tweedie amounts (power 1.5,
#   compound Poisson-gamma with exact zeros) and Gamma amounts, ours
#   (depth-wise histogram growth through parsnip's boost_tree() with
#   xgboost's objective names) against xgboost's count:poisson, reg:tweedie
#   and reg:gamma at the same trees, depth, rate and penalties; held-out
#   pinball loss at 0.1, 0.5 and 0.9 of a heteroscedastic outcome, ours (one
#   model of the three levels) against LightGBM's quantile objective (one
#   model per level) at the same trees, depth and rate;
# - step cost: seconds per training step of each head against squared
#   error's, for a DNN 64-256-256-1 (batch 256), a linear model (64 inputs,
#   batch 256) and depth-wise trees (one step grows a tree of depth 6 on
#   20,000 rows); the fastest of 7 calls of each.
# Prints markdown tables.
suppressPackageStartupMessages({
  library(cppestimators)
  library(parsnip)
})
options(cppestimators.progress = FALSE)
set.seed(56)
n <- 20000
p <- 8
make_x <- function(n) as.data.frame(matrix(stats::runif(n * p, -1, 1), n, p, dimnames = list(NULL, paste0("x", 1:p))))
x_train <- make_x(n)
x_test <- make_x(n)
eta <- function(x) 0.3 + 0.5 * x$x1 - 0.4 * x$x2^2 + 0.3 * x$x3 * x$x4 + 0.2 * sin(3 * x$x5)
mu_train <- exp(eta(x_train))
mu_test <- exp(eta(x_test))
rtweedie <- function(mu, power = 1.5, phi = 1) {
  # compound Poisson-gamma: N ~ Poisson(lambda), each claim Gamma(alpha, scale)
  lambda <- mu^(2 - power) / (phi * (2 - power))
  alpha <- (2 - power) / (power - 1)
  scale <- phi * (power - 1) * mu^(power - 1)
  k <- stats::rpois(length(mu), lambda)
  vapply(seq_along(mu), function(i) if (k[i] == 0) 0 else sum(stats::rgamma(k[i], alpha, scale = scale[i])), 0)
}
outcomes <- list(
  poisson = list(train = stats::rpois(n, mu_train), test = stats::rpois(n, mu_test), objective = "count:poisson"),
  tweedie = list(train = rtweedie(mu_train), test = rtweedie(mu_test), objective = "reg:tweedie"),
  gamma = list(train = stats::rgamma(n, 2, rate = 2 / mu_train), test = stats::rgamma(n, 2, rate = 2 / mu_test),
               objective = "reg:gamma"))
deviance_of <- function(kind, y, mu) {
  switch(kind,
    poisson = mean(2 * (ifelse(y > 0, y * log(y / mu), 0) - (y - mu))),
    gamma = mean(2 * ((y - mu) / mu - log(y / mu))),
    tweedie = {
      pw <- 1.5
      mean(2 * (y^(2 - pw) / ((1 - pw) * (2 - pw)) - y * mu^(1 - pw) / (1 - pw) + mu^(2 - pw) / (2 - pw)))
    })
}
trees <- 100L
depth <- 6L
rate <- 0.1
rows <- list()
for (kind in names(outcomes)) {
  o <- outcomes[[kind]]
  d <- cbind(x_train, y = o$train)
  t0 <- proc.time()[["elapsed"]]
  fit <- boost_tree(trees = trees, tree_depth = depth, learn_rate = rate) %>%
    set_engine("cppestimators", objective = o$objective,
               tweedie_variance_power = if (kind == "tweedie") 1.5) %>%
    set_mode("regression") %>%
    fit(y ~ ., data = d)
  ours_s <- proc.time()[["elapsed"]] - t0
  ours <- deviance_of(kind, o$test, predict(fit, x_test)$.pred)
  peer <- NA_real_
  peer_s <- NA_real_
  if (requireNamespace("xgboost", quietly = TRUE)) {
    params <- list(objective = o$objective, tree_method = "hist", max_depth = depth, eta = rate, nthread = 2,
                   lambda = 1, min_child_weight = 1)
    if (kind == "tweedie") params$tweedie_variance_power <- 1.5
    t0 <- proc.time()[["elapsed"]]
    xfit <- xgboost::xgb.train(params, xgboost::xgb.DMatrix(as.matrix(x_train), label = o$train),
                               nrounds = trees, verbose = 0)
    peer_s <- proc.time()[["elapsed"]] - t0
    peer <- deviance_of(kind, o$test, stats::predict(xfit, as.matrix(x_test)))
  }
  rows[[kind]] <- data.frame(task = kind, ours = ours, peer = peer, ours_s = ours_s, peer_s = peer_s)
}
cat("| trees, held-out mean deviance | ours | xgboost | ours / xgboost | goal <= 1.01 | met | fit s: ours | xgboost |\n")
cat("|---|---:|---:|---:|---|---|---:|---:|\n")
for (r in rows) {
  ratio <- r$ours / r$peer
  cat(sprintf("| %s (xgboost's %s) | %.5f | %.5f | %.4f | <= 1.01 | %s | %.2f | %.2f |\n", r$task,
              outcomes[[r$task]]$objective, r$ours, r$peer, ratio, if (isTRUE(ratio <= 1.01)) "yes" else "no",
              r$ours_s, r$peer_s))
}

# quantiles of a heteroscedastic outcome
z_of <- function(x) 1 + x$x1 + 0.5 * x$x2^2 + (0.3 + 0.8 * abs(x$x3)) * stats::rnorm(nrow(x))
z_train <- z_of(x_train)
z_test <- z_of(x_test)
levels <- c(0.1, 0.5, 0.9)
pinball <- function(y, q, tau) mean(ifelse(y >= q, tau * (y - q), (1 - tau) * (q - y)))
t0 <- proc.time()[["elapsed"]]
qfit <- boost_tree(trees = trees, tree_depth = depth, learn_rate = rate) %>%
  set_engine("cppestimators") %>%
  set_mode("quantile regression", quantile_levels = levels) %>%
  fit(z ~ ., data = cbind(x_train, z = z_train))
q_s <- proc.time()[["elapsed"]] - t0
qp <- as.matrix(predict(qfit, x_test)$.pred_quantile)
ours_q <- vapply(seq_along(levels), function(j) pinball(z_test, qp[, j], levels[j]), 0)
coverage <- mean(z_test >= qp[, 1] & z_test <= qp[, 3])
crossing <- sum(apply(qp, 1, is.unsorted))
peer_q <- rep(NA_real_, 3)
lgb_s <- NA_real_
if (requireNamespace("lightgbm", quietly = TRUE)) {
  t0 <- proc.time()[["elapsed"]]
  peer_q <- vapply(seq_along(levels), function(j) {
    ds <- lightgbm::lgb.Dataset(as.matrix(x_train), label = z_train)
    m <- lightgbm::lgb.train(list(objective = "quantile", alpha = levels[j], max_depth = depth,
                                  num_leaves = 2^depth, learning_rate = rate, num_threads = 2, verbose = -1),
                             ds, nrounds = trees)
    pinball(z_test, stats::predict(m, as.matrix(x_test)), levels[j])
  }, 0)
  lgb_s <- proc.time()[["elapsed"]] - t0
}
cat("\n| trees, held-out pinball loss | ours (one model, 3 levels) | LightGBM quantile (a model per level) | ours / LightGBM | goal <= 1.01 | met |\n")
cat("|---|---:|---:|---:|---|---|\n")
for (j in seq_along(levels)) {
  ratio <- ours_q[j] / peer_q[j]
  cat(sprintf("| level %.1f | %.5f | %.5f | %.4f | <= 1.01 | %s |\n", levels[j], ours_q[j], peer_q[j], ratio,
              if (isTRUE(ratio <= 1.01)) "yes" else "no"))
}
cat(sprintf(paste0("\nOurs: %.2f s for the three levels (LightGBM %.2f s for its three models); held-out rows inside ",
                   "[0.1, 0.9] predictions: %.2f%% (goal 80%% +- 2); rows whose predictions cross: %d of %d.\n"),
            q_s, lgb_s, 100 * coverage, crossing, nrow(qp)))

# step cost per head
heads <- list(squared_error = NULL, poisson = head_poisson_regression(), tweedie = head_tweedie(1.5),
              gamma = head_gamma_regression(), huber = head_huber(1), absolute_error = head_absolute_error(),
              quantile_0.5 = head_quantile(0.5), logistic_regression = head_logistic_regression())
wide <- as.data.frame(matrix(stats::runif(n * 64), n, 64, dimnames = list(NULL, paste0("v", 1:64))))
target <- list(squared_error = z_train, poisson = outcomes$poisson$train, tweedie = outcomes$tweedie$train,
               gamma = outcomes$gamma$train, huber = z_train, absolute_error = z_train, quantile_0.5 = z_train,
               logistic_regression = stats::plogis(z_train - 1))
quiet <- run_config(save_checkpoints_steps = NULL, save_checkpoints_secs = NULL, save_summary_steps = 0,
                    log_step_count_steps = NULL, tf_random_seed = 1)
fcs <- feature_columns(lapply(names(wide), column_numeric))
fam <- list(
  dnn = function(h) dnn_regressor(c(256L, 256L), fcs, head = h, config = quiet),
  linear = function(h) linear_regressor(fcs, head = h, config = quiet),
  trees = function(h) boosted_trees_regressor(feature_columns(lapply(names(x_train), column_numeric)),
                                              growth = "depthwise", n_trees = 1000L, max_depth = 6L, head = h,
                                              config = quiet))
# Seconds per step of each head in one family: one estimator per head,
# then 7 rounds in which every head runs one train() call of `steps` steps
# (long enough that the call's own costs do not count), heads interleaved
# so that the machine's other work falls on all of them alike; the fastest
# call of each (that work only ever adds time).
family_steps <- function(make, wide_data, steps, batch) {
  runs <- lapply(names(heads), function(h) {
    data <- cbind(if (wide_data) wide else x_train, y = target[[h]])
    est <- suppressMessages(make(heads[[h]]))
    input <- input_fn(data, features = setdiff(names(data), "y"), response = "y", batch_size = batch,
                      shuffle = FALSE, num_epochs = NULL)
    train(est, input_fn = input, steps = 2)  # warm: sessions, caches
    list(est = est, input = input)
  })
  best <- rep(Inf, length(heads))
  for (round in 1:7) {
    for (i in seq_along(runs)) {
      t <- system.time(train(runs[[i]]$est, input_fn = runs[[i]]$input, steps = steps))[["elapsed"]]
      best[i] <- min(best[i], t / steps)
    }
  }
  stats::setNames(best, names(heads))
}
cost <- cbind(dnn = family_steps(fam$dnn, TRUE, 300, 256), linear = family_steps(fam$linear, TRUE, 20000, 256),
              trees = family_steps(fam$trees, FALSE, 30, n))
cat("\n| step cost, ms per step (fastest of 7 interleaved calls) | DNN 64-256-256-1, batch 256 |",
    "linear, 64 inputs, batch 256 | trees depth 6, 20,000 rows |\n")
cat("|---|---:|---:|---:|\n")
for (h in names(heads)) {
  s <- cost[h, ]
  base <- cost["squared_error", ]
  shown <- if (identical(h, "squared_error")) sprintf("%.4f", 1000 * s) else sprintf("%.4f (%.2fx)", 1000 * s, s / base)
  cat(sprintf("| %s | %s |\n", h, paste(shown, collapse = " | ")))
}
cat("\nGoal: each head's step within 1.10x of squared error's.\n")
