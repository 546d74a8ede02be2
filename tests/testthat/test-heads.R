# The heads beyond squared error and softmax (issue 56): each family
# against its reference fit (glm(), glmnet, quantreg), the trees' leaf
# renewal, quantiles that never cross, multi-label labels and metrics,
# parsnip's quantile mode and poisson_reg().

heads_data <- function(n = 1000, seed = 3) {
  set.seed(seed)
  d <- data.frame(x1 = stats::rnorm(n), x2 = stats::runif(n, 0, 3), x3 = stats::rbinom(n, 1, 0.4))
  d$count <- stats::rpois(n, exp(0.2 + 0.4 * d$x1 - 0.3 * d$x2 + 0.5 * d$x3))
  d$amount <- stats::rgamma(n, shape = 2, rate = 2 / exp(1 + 0.3 * d$x1 - 0.2 * d$x2))
  d$z <- 1 + d$x1 + (0.5 + d$x2) * stats::rnorm(n)
  d
}

# The largest gap between two fits' slopes, in units of their predictor's sd.
slope_gap <- function(fit, ref, d) {
  t <- tidy(fit)
  est <- stats::setNames(t$estimate, t$term)[names(ref)]
  x <- setdiff(names(ref), "(Intercept)")
  max(abs(est[x] - ref[x]) * vapply(d[x], stats::sd, 0))
}

pinball <- function(y, q, tau) mean(ifelse(y >= q, tau * (y - q), (1 - tau) * (q - y)))

test_that("head constructors check their settings and print what they are", {
  expect_equal(format(head_tweedie(1.3)), "tweedie(power = 1.3)")
  expect_equal(format(head_quantile(c(0.1, 0.9))), "quantile(levels = 0.1, 0.9)")
  expect_equal(format(head_huber(2, pseudo = TRUE)), "pseudo_huber(delta = 2)")
  expect_equal(format(head_multi_label(3)), "multi_label(n_labels = 3)")
  expect_output(print(head_poisson_regression()), "poisson_regression")
  expect_error(head_tweedie(2), "`power` must be a number in (1, 2), not 2.", fixed = TRUE, class = "cppestimators_error")
  expect_error(head_huber(0), "`delta` must be a number > 0", fixed = TRUE)
  expect_error(head_quantile(c(0.5, 0.1)), "strictly increasing", fixed = TRUE)
  expect_error(head_quantile(1), "`levels` must be quantile levels in (0, 1)", fixed = TRUE)
  expect_error(head_multi_label(1), "n_labels", class = "cppestimators_error")
  expect_error(head_multi_label(2, c("a", "b", "c")), "`label_vocabulary` has 3 labels but `n_classes` is 2.")
  fcs <- feature_columns(column_numeric("x1"))
  expect_error(linear_regressor(fcs, head = "poisson"), "`head` must be NULL or a head", class = "cppestimators_bad_head")
  expect_error(linear_regressor(fcs, head = head_multi_label(2)), "linear_regressor() takes a regression head",
               fixed = TRUE, class = "cppestimators_bad_head")
  expect_error(linear_classifier(fcs, head = head_poisson_regression()),
               "linear_classifier() takes head_multi_label() (or NULL), not poisson_regression.", fixed = TRUE,
               class = "cppestimators_bad_head")
  expect_error(dnn_regressor(4, fcs, label_dimension = 2, head = head_quantile(0.5)),
               "a quantile head predicts one label: `label_dimension` must be 1.", fixed = TRUE)
  est <- linear_regressor(fcs, head = head_tweedie(1.4), model_dir = tempfile())
  expect_true(any(grepl("head: +tweedie\\(power = 1.4\\) \\(label dimension 1\\)", printed(print(est)))))
})

test_that("a Poisson linear model fitted to convergence is glm()'s, and at the defaults within 0.02 sd", {
  skip_if_not_installed("parsnip")
  d <- heads_data()
  ref <- stats::coef(stats::glm(count ~ x1 + x2 + x3, family = stats::poisson, data = d))
  full <- quietly(parsnip::fit(parsnip::set_engine(parsnip::poisson_reg(), "cppestimators", epochs = 20000,
                                                   tolerance = 0), count ~ x1 + x2 + x3, data = d))
  expect_lt(slope_gap(full, ref, d), 1e-3)
  t <- tidy(full)
  expect_equal(t$estimate[t$term == "(Intercept)"], unname(ref["(Intercept)"]), tolerance = 1e-4)
  default <- quietly(parsnip::fit(parsnip::set_engine(parsnip::poisson_reg(), "cppestimators"),
                                  count ~ x1 + x2 + x3, data = d))
  expect_lt(slope_gap(default, ref, d), 0.02)
  # predictions are counts: exp() of the linear predictor
  p <- predict(default, d[1:5, ])$.pred
  expect_equal(log(p), unname(stats::predict(stats::glm(count ~ x1 + x2 + x3, stats::poisson, d), d[1:5, ])),
               tolerance = 1e-3)
})

test_that("MASS::quine's counts: the Poisson regressor reaches glm()'s deviance", {
  q <- MASS::quine
  g <- stats::glm(Days ~ Eth + Sex + Age + Lrn, family = stats::poisson, data = q)
  est <- linear_regressor(feature_columns_from_data(q, -Days), head = head_poisson_regression(),
                          optimizer = optimizer_ftrl(learning_rate = 0.5), model_dir = tempfile())
  quietly(train(est, input_fn(q, response = "Days", features = -Days, batch_size = nrow(q), num_epochs = 3000,
                              shuffle = FALSE)))
  ev <- quietly(evaluate(est, q, response = "Days"))
  # the mean unit deviance, glm()'s deviance over the rows
  expect_equal(ev$deviance, stats::deviance(g) / nrow(q), tolerance = 1e-4)
  expect_equal(ev$`label/mean`, mean(q$Days), tolerance = 1e-6)
})

test_that("a Gamma linear model is glm(family = Gamma(link = \"log\"))'s", {
  skip_if_not_installed("parsnip")
  d <- heads_data()
  ref <- stats::coef(stats::glm(amount ~ x1 + x2 + x3, family = stats::Gamma(link = "log"), data = d))
  spec <- parsnip::set_engine(parsnip::linear_reg(), "cppestimators", objective = "reg:gamma", epochs = 20000,
                              tolerance = 0)
  fit <- quietly(parsnip::fit(spec, amount ~ x1 + x2 + x3, data = d))
  expect_lt(slope_gap(fit, ref, d), 1e-3)
  default <- quietly(parsnip::fit(parsnip::set_engine(parsnip::linear_reg(), "cppestimators", objective = "reg:gamma"),
                                  amount ~ x1 + x2 + x3, data = d))
  expect_lt(slope_gap(default, ref, d), 0.02)
})

test_that("a penalized Poisson model is glmnet's at the same lambda", {
  skip_if_not_installed("parsnip")
  skip_if_not_installed("glmnet")
  d <- heads_data()
  x <- as.matrix(d[c("x1", "x2", "x3")])
  gn <- glmnet::glmnet(x, d$count, family = "poisson", lambda = 0.02)
  ref <- stats::setNames(as.numeric(stats::coef(gn)), c("(Intercept)", "x1", "x2", "x3"))
  fit <- quietly(parsnip::fit(parsnip::set_engine(parsnip::poisson_reg(penalty = 0.02), "cppestimators",
                                                  epochs = 20000, tolerance = 0), count ~ x1 + x2 + x3, data = d))
  expect_lt(slope_gap(fit, ref, d), 0.01)
})

test_that("linear quantiles at 0.1, 0.5 and 0.9 are quantreg::rq()'s: pinball loss within 0.5%", {
  skip_if_not_installed("parsnip")
  skip_if_not_installed("quantreg")
  d <- heads_data(2000, seed = 4)
  levels <- c(0.1, 0.5, 0.9)
  spec <- parsnip::set_mode(parsnip::set_engine(parsnip::linear_reg(), "cppestimators"), "quantile regression",
                            quantile_levels = levels)
  fit <- quietly(parsnip::fit(spec, z ~ x1 + x2, data = d))
  r <- quantreg::rq(z ~ x1 + x2, tau = levels, data = d)
  ours <- as.matrix(predict(fit, d)$.pred_quantile)
  theirs <- stats::predict(r, d)
  t <- tidy(fit)
  expect_equal(unique(t$output), format(levels))
  for (j in seq_along(levels)) {
    expect_lt(pinball(d$z, ours[, j], levels[j]) / pinball(d$z, theirs[, j], levels[j]), 1.005)
    est <- stats::setNames(t$estimate[t$output == format(levels)[j]], t$term[t$output == format(levels)[j]])
    ref <- stats::coef(r)[, j]
    expect_lt(max(abs(est[c("x1", "x2")] - ref[c("x1", "x2")]) * vapply(d[c("x1", "x2")], stats::sd, 0)), 0.02)
  }
})

test_that("quantile predictions never cross, and the 0.1-0.9 interval covers 80% of held-out rows", {
  set.seed(9)
  n <- 20000
  d <- data.frame(x = stats::runif(n, 0, 2), w = stats::rnorm(n))
  d$y <- 1 + d$x + (0.2 + d$x) * stats::rnorm(n)  # heteroscedastic, linear quantiles
  train_d <- d[1:10000, ]
  test_d <- d[10001:20000, ]
  lin <- linear_regressor(feature_columns(column_numeric("x", "w")), head = head_quantile(c(0.1, 0.5, 0.9)),
                          model_dir = tempfile())
  quietly(train(lin, train_d, response = "y", batch_size = 10000, num_epochs = 400, shuffle = FALSE))
  p <- as.matrix(quietly(predict(lin, test_d, type = "numeric")))
  expect_equal(colnames(p), c(".pred_0.1", ".pred_0.5", ".pred_0.9"))
  expect_equal(sum(apply(p, 1, is.unsorted)), 0)
  inside <- mean(test_d$y >= p[, 1] & test_d$y <= p[, 3])
  expect_gt(inside, 0.78)
  expect_lt(inside, 0.82)
  ev <- quietly(evaluate(lin, test_d, response = "y"))
  expect_equal(ev$interval_coverage, inside, tolerance = 1e-6)
  expect_equal(ev$`coverage/0.5`, mean(test_d$y <= p[, 2]), tolerance = 1e-6)
  expect_equal(ev$`pinball_loss/0.9`, pinball(test_d$y, p[, 3], 0.9), tolerance = 1e-5)
  # a deep tree model of the levels: the rearranged predictions of 10,000 rows never cross
  trees <- boosted_trees_regressor(feature_columns(column_numeric("x", "w")), growth = "depthwise", n_trees = 30,
                                   max_depth = 6, head = head_quantile(c(0.05, 0.1, 0.5, 0.9, 0.95)),
                                   model_dir = tempfile())
  quietly(train(trees, train_d, response = "y"))
  tp <- as.matrix(quietly(predict(trees, test_d, type = "numeric")))
  expect_equal(dim(tp), c(10000L, 5L))
  expect_equal(sum(apply(tp, 1, is.unsorted)), 0)
})

test_that("absolute error and quantile trees renew each leaf as its residuals' quantile", {
  d <- data.frame(x = rep(c(0, 1), each = 6), y = c(1, 2, 3, 10, 20, 100, 5, 6, 7, 8, 9, 50))
  for (h in list(head_absolute_error(), head_quantile(0.25))) {
    est <- boosted_trees_regressor(feature_columns(column_numeric("x")), growth = "depthwise", n_trees = 1,
                                   max_depth = 1, learning_rate = 1, min_node_weight = 0, head = h,
                                   model_dir = tempfile())
    quietly(train(est, d, response = "y"))
    level <- if (identical(h$kind, "quantile")) 0.25 else 0.5
    lower_q <- function(v) sort(v)[ceiling(level * length(v))]
    base <- lower_q(d$y)  # the start: the labels' quantile
    p <- quietly(predict(est, data.frame(x = c(0, 1)), type = "numeric"))[[1]]
    expect_equal(p, c(base + lower_q(d$y[1:6] - base), base + lower_q(d$y[7:12] - base)), tolerance = 1e-6)
  }
  # weighted: the weighted median of each leaf's residuals
  d$w <- c(1, 1, 1, 1, 1, 10, 1, 1, 1, 1, 1, 1)
  est <- boosted_trees_regressor(feature_columns(column_numeric("x")), growth = "depthwise", n_trees = 1,
                                 max_depth = 1, learning_rate = 1, min_node_weight = 0, weight_column = "w",
                                 head = head_absolute_error(), model_dir = tempfile())
  quietly(train(est, d, response = "y"))
  wmed <- function(v, w) {
    o <- order(v)
    v[o][which(cumsum(w[o]) >= sum(w) / 2)[1]]
  }
  base <- wmed(d$y, d$w)
  p <- quietly(predict(est, data.frame(x = c(0, 1)), type = "numeric"))[[1]]
  expect_equal(p[1], base + wmed(d$y[1:6] - base, d$w[1:6]), tolerance = 1e-6)
  expect_equal(p[1], 100, tolerance = 1e-6)  # the row of weight 10 holds more than half its leaf
})

test_that("every family trains each head, and its evaluation reports the head's metrics", {
  d <- heads_data(600)
  fcs <- feature_columns(column_numeric("x1", "x2", "x3"))
  d$share <- stats::plogis(d$z - 1)
  cases <- list(list(head_poisson_regression(), "count", "deviance"), list(head_tweedie(1.5), "count", "deviance"),
                list(head_gamma_regression(), "amount", "deviance"), list(head_huber(1), "z", "mean_absolute_error"),
                list(head_huber(1, pseudo = TRUE), "z", "mean_absolute_error"),
                list(head_absolute_error(), "z", "mean_absolute_error"),
                list(head_logistic_regression(), "share", "prediction/mean"),
                list(head_quantile(c(0.2, 0.8)), "z", "interval_coverage"))
  makers <- list(
    linear = function(h) linear_regressor(fcs, head = h, model_dir = tempfile()),
    dnn = function(h) dnn_regressor(c(8, 8), fcs, head = h, model_dir = tempfile()),
    combined = function(h) dnn_linear_combined_regressor(linear_feature_columns = fcs, dnn_feature_columns = fcs,
                                                         dnn_hidden_units = 4, head = h, model_dir = tempfile()),
    trees_tf = function(h) boosted_trees_regressor(fcs, n_batches_per_layer = 1, n_trees = 5, max_depth = 3,
                                                   head = h, model_dir = tempfile()),
    trees_hist = function(h) boosted_trees_regressor(fcs, growth = "lossguide", n_trees = 5, head = h,
                                                     model_dir = tempfile()))
  for (fam in names(makers)) {
    for (case in cases) {
      est <- makers[[fam]](case[[1]])
      # (the trees train until grown)
      input <- input_fn(d, features = c("x1", "x2", "x3"), response = case[[2]], batch_size = 600,
                        num_epochs = if (startsWith(fam, "trees")) NULL else 5)
      quietly(train(est, input))
      ev <- quietly(evaluate(est, input_fn(d, features = c("x1", "x2", "x3"), response = case[[2]],
                                           batch_size = 600)))
      label <- paste(fam, format(case[[1]]))
      expect_true(is.finite(ev$average_loss), label = label)
      expect_true(case[[3]] %in% names(ev), label = label)
      p <- quietly(predict(est, d[1:20, ], type = "numeric"))
      if (case[[1]]$kind %in% c("poisson_regression", "tweedie", "gamma_regression")) {
        expect_true(all(p[[1]] > 0), label = label)
      }
      if (identical(case[[1]]$kind, "logistic_regression")) expect_true(all(p[[1]] > 0 & p[[1]] < 1), label = label)
    }
  }
})

test_that("labels a head cannot take are refused by name, with the row", {
  d <- data.frame(x = 1:4, y = c(1, 2, -1, 0), s = c(0.2, 1.5, 0.3, 0))
  fcs <- feature_columns(column_numeric("x"))
  est <- linear_regressor(fcs, head = head_poisson_regression(), model_dir = tempfile())
  expect_error(quietly(train(est, d, response = "y", num_epochs = 1)),
               "labels of a poisson_regression head must be >= 0; got -1 at row 3", fixed = TRUE,
               class = "cppestimators_error")
  lr <- linear_regressor(fcs, head = head_logistic_regression(), model_dir = tempfile())
  expect_error(quietly(train(lr, d, response = "s", num_epochs = 1)),
               "labels of a logistic_regression head must be in [0, 1]; got 1.5 at row 2", fixed = TRUE)
  gm <- linear_regressor(fcs, head = head_gamma_regression(), model_dir = tempfile())
  expect_error(quietly(train(gm, d, response = "s", num_epochs = 1)),
               "labels of a gamma_regression head must be > 0; got 0 at row 4", fixed = TRUE)
})

test_that("multi-label: a logical matrix and a list column of names give the same model and TF's metrics", {
  set.seed(5)
  n <- 400
  d <- data.frame(x1 = stats::rnorm(n), x2 = stats::rnorm(n))
  on <- cbind(a = d$x1 > 0, b = d$x2 > 0.5, c = FALSE)  # label c is never on
  d$tags <- lapply(seq_len(n), function(i) c("a", "b", "c")[on[i, ]])
  d$hot <- I(on)
  fcs <- feature_columns(column_numeric("x1", "x2"))
  cfg <- run_config(tf_random_seed = 7)
  fit_on <- function(response) {
    est <- dnn_classifier(c(8), fcs, head = head_multi_label(3, c("a", "b", "c")), config = cfg,
                          model_dir = tempfile())
    quietly(train(est, d, response = response, batch_size = 50, num_epochs = 5, shuffle = FALSE))
    est
  }
  by_matrix <- fit_on("hot")
  by_list <- fit_on("tags")
  p1 <- quietly(predict(by_matrix, d, type = "prob"))
  p2 <- quietly(predict(by_list, d, type = "prob"))
  expect_equal(names(p1), c(".pred_a", ".pred_b", ".pred_c"))
  expect_equal(p1, p2)
  cls <- quietly(predict(by_list, d[1:3, ], type = "class"))
  expect_equal(names(cls), c(".pred_a", ".pred_b", ".pred_c"))
  expect_equal(unname(as.matrix(cls)), unname(as.matrix(p2[1:3, ]) > 0.5))
  raw <- quietly(predict(by_list, d[1:3, ]))
  expect_equal(names(raw), c("logits", "probabilities", "class_ids"))
  expect_equal(raw$class_ids[[2]], as.numeric(as.matrix(p2[2, ]) > 0.5))
  ev <- quietly(evaluate(by_list, d, response = "tags"))
  probs <- as.matrix(p2)
  hot <- on * 1
  expect_equal(ev$hamming_loss, mean((probs > 0.5) != hot), tolerance = 1e-6)
  expect_equal(ev$`probability_mean/b`, mean(probs[, 2]), tolerance = 1e-5)
  expect_equal(ev$`recall/a`, sum(probs[, 1] > 0.5 & hot[, 1]) / sum(hot[, 1]), tolerance = 1e-6)
  expect_true(all(c("auc", "auc_precision_recall", "auc/a", "auc_precision_recall/c", "precision/b",
                    "accuracy/positive_threshold_0.5") %in% names(ev)))
  expect_equal(ev$`accuracy/positive_threshold_0.5`, 1 - ev$hamming_loss, tolerance = 1e-9)
  # label names the classifier does not know, and a list response elsewhere
  bad <- d
  bad$tags[[2]] <- c("a", "zz")
  expect_error(quietly(train(by_list, bad, response = "tags", num_epochs = 1)),
               "has labels not among the classifier's 3 labels: 'zz'", fixed = TRUE, class = "cppestimators_bad_response")
  reg <- linear_regressor(fcs, model_dir = tempfile())
  expect_error(quietly(train(reg, d, response = "tags", num_epochs = 1)),
               "only a classifier with head_multi_label() reads one", fixed = TRUE)
})

test_that("a head model's record, checkpoints and saved object keep the head", {
  d <- heads_data(300)
  fcs <- feature_columns(column_numeric("x1", "x2"))
  dir <- tempfile()
  est <- linear_regressor(fcs, head = head_tweedie(1.3), model_dir = dir)
  quietly(train(est, d, response = "count", num_epochs = 2))
  expect_true(any(grepl("^head: tweedie\\(power = 1.3\\), 1$", readLines(file.path(dir, "cppestimators_model.txt")))))
  again <- linear_regressor(fcs, head = head_tweedie(1.3), model_dir = dir)
  expect_equal(quietly(predict(again, d[1:5, ], type = "numeric")), quietly(predict(est, d[1:5, ], type = "numeric")))
  other <- linear_regressor(fcs, head = head_tweedie(1.6), model_dir = dir)
  expect_error(quietly(train(other, d, response = "count", num_epochs = 1)), "tweedie\\(power = 1.6\\)")
  f <- tempfile(fileext = ".rds")
  saveRDS(est, f)
  back <- readRDS(f)
  expect_equal(quietly(predict(back, d[1:5, ], type = "numeric")), quietly(predict(est, d[1:5, ], type = "numeric")))
})

test_that("a custom estimator's tf$nn$log_poisson_loss fits glm()'s Poisson regression", {
  set.seed(1)
  n <- 500
  d <- data.frame(x = stats::rnorm(n))
  d$y <- stats::rpois(n, exp(0.3 + 0.5 * d$x))
  model_fn <- function(features, labels, mode, params, config) {
    logits <- tf$reshape(tf$layers$dense(tf$reshape(features$x, c(-1L, 1L)), 1L), c(-1L))
    loss <- tf$reduce_mean(tf$nn$log_poisson_loss(tf$cast(labels, tf$float64), logits, compute_full_loss = TRUE))
    train_op <- tf$train$GradientDescentOptimizer(0.1)$minimize(loss, global_step = tf$train$get_global_step())
    estimator_spec(mode = mode, predictions = list(mu = tf$exp(logits)), loss = loss, train_op = train_op)
  }
  est <- estimator(model_fn, model_dir = tempfile())
  quietly(train(est, input_fn(d, features = "x", response = "y", batch_size = n, num_epochs = 500, shuffle = FALSE)))
  ref <- stats::coef(stats::glm(y ~ x, stats::poisson, d))
  v <- variable_value(est, c("dense/bias", "dense/kernel"))
  expect_equal(c(as.numeric(v[[1]]), as.numeric(v[[2]])), unname(ref), tolerance = 1e-4)
  expect_error(tf$nn$log_poisson_loss(NULL, 1), "targets must not be None", fixed = TRUE)
})

test_that("parsnip: quantile mode and poisson_reg() fit, predict and tune; objectives by xgboost's names", {
  skip_if_not_installed("parsnip")
  skip_if_not_installed("tune")
  skip_if_not_installed("rsample")
  d <- heads_data(450, seed = 8)
  folds <- rsample::vfold_cv(d, v = 3)
  q <- parsnip::set_mode(parsnip::set_engine(parsnip::boost_tree(trees = 20, tree_depth = tune::tune()),
                                             "cppestimators"), "quantile regression", quantile_levels = c(0.1, 0.9))
  res <- quietly(tune::tune_grid(q, z ~ x1 + x2, resamples = folds, grid = data.frame(tree_depth = c(2, 4))))
  m <- tune::collect_metrics(res)
  expect_equal(m$.metric, rep("weighted_interval_score", 2))
  expect_true(all(is.finite(m$mean) & m$mean > 0))
  lin <- parsnip::set_mode(parsnip::set_engine(parsnip::linear_reg(), "cppestimators"), "quantile regression",
                           quantile_levels = c(0.25, 0.5, 0.75))
  fit <- quietly(parsnip::fit(lin, z ~ x1 + x2, data = d))
  pred <- predict(fit, d[1:4, ])
  expect_equal(names(pred), ".pred_quantile")
  expect_s3_class(pred$.pred_quantile, "quantile_pred")
  expect_equal(hardhat::extract_quantile_levels(pred$.pred_quantile), c(0.25, 0.5, 0.75))
  expect_equal(glance(fit$fit)$mode, "quantile regression")
  pois <- parsnip::set_engine(parsnip::poisson_reg(penalty = tune::tune()), "cppestimators")
  res2 <- quietly(tune::tune_grid(pois, count ~ x1 + x2 + x3, resamples = folds,
                                  grid = data.frame(penalty = c(0, 0.05))))
  expect_equal(nrow(tune::collect_metrics(res2)), 4L)
  # objectives
  tw <- quietly(parsnip::fit(parsnip::set_mode(parsnip::set_engine(parsnip::boost_tree(trees = 10), "cppestimators",
                                                                   objective = "reg:tweedie",
                                                                   tweedie_variance_power = 1.3), "regression"),
                             count ~ x1 + x2, data = d))
  expect_equal(tw$fit$spec$head, "tweedie")
  expect_equal(tw$fit$spec$head_args$power, 1.3)
  expect_true(all(predict(tw, d)$.pred > 0))
  ph <- briefly(quietly(parsnip::fit(parsnip::set_mode(parsnip::set_engine(parsnip::mlp(epochs = 3), "cppestimators",
                                                                   objective = "reg:pseudohubererror",
                                                                   huber_slope = 2), "regression"),
                             z ~ x1 + x2, data = d)))
  expect_equal(ph$fit$spec$head, "pseudo_huber")
  expect_error(quietly(parsnip::fit(parsnip::set_mode(parsnip::set_engine(parsnip::boost_tree(), "cppestimators",
                                                                          objective = "reg:foo"), "regression"),
                                    z ~ x1, data = d)),
               paste0("unknown objective \"reg:foo\"; the known objectives are \"reg:squarederror\", ",
                      "\"count:poisson\""), fixed = TRUE, class = "cppestimators_engine_argument")
  expect_error(quietly(parsnip::fit(parsnip::set_mode(parsnip::set_engine(parsnip::boost_tree(), "cppestimators",
                                                                          objective = "count:poisson"),
                                                      "classification"),
                                    factor(x3) ~ x1, data = d)),
               "is for a numeric outcome", fixed = TRUE)
})

test_that("the evaluator hook, its summaries and early stopping read a head's own metrics", {
  d <- heads_data(400)
  fcs <- feature_columns(column_numeric("x1", "x2", "x3"))
  est <- linear_regressor(fcs, head = head_poisson_regression(), model_dir = tempfile())
  eval_in <- input_fn(d, features = c("x1", "x2", "x3"), response = "count", batch_size = 400, num_epochs = 1)
  ev <- hook_in_memory_evaluator(est, eval_in, every_n_iter = 10)
  train_in <- input_fn(d, features = c("x1", "x2", "x3"), response = "count", batch_size = 40, num_epochs = NULL)
  h <- quietly(train(est, train_in, steps = 30, hooks = list(ev)))
  df <- wide(h)
  expect_true("eval_deviance" %in% names(df))
  direct <- quietly(evaluate(est, eval_in))
  expect_equal(df$eval_deviance[df$steps == 30], direct$deviance, tolerance = 1e-6)
  s <- read_summaries(file.path(model_dir(est), "eval"))
  expect_true("deviance" %in% s$tag)
  # early stopping on the deviance: stop once it is below a level already passed
  stop <- hook_stop_if_lower(est, "deviance", threshold = 1e6, min_steps = 0, run_every_steps = 1)
  more <- quietly(train(est, train_in, steps = 100, hooks = list(stop, hook_in_memory_evaluator(est, eval_in,
                                                                                               every_n_iter = 5))))
  expect_lt(max(wide(more)$steps), 130)
})

test_that("multi-label ids without a vocabulary must be whole label ids", {
  d <- data.frame(x = c(0.1, 0.5, 0.9))
  d$tags <- list(0L, c(0, 1), numeric(0))
  est <- linear_classifier(feature_columns(column_numeric("x")), head = head_multi_label(2), model_dir = tempfile())
  quietly(train(est, d, response = "tags", num_epochs = 1))
  expect_equal(names(quietly(predict(est, d, type = "prob"))), c(".pred_0", ".pred_1"))
  d$tags[[2]] <- 1.7
  expect_error(quietly(train(est, d, response = "tags", num_epochs = 1)),
               "has labels not among the classifier's 2 labels: '1.7'", fixed = TRUE, class = "cppestimators_bad_response")
})
