# weight_column: TensorFlow's example weights in every estimator.

weighted_frame <- function() {
  set.seed(42)
  n <- 12
  df <- data.frame(x1 = round(stats::rnorm(n), 2), x2 = round(stats::runif(n), 2))
  df$y <- 1.5 * df$x1 - df$x2 + round(stats::rnorm(n, sd = 0.3), 2)
  df$yb <- as.numeric(df$y > 0)
  df$yc <- as.integer(cut(df$y, 3)) - 1L
  df$w <- rep(c(2, 1, 1), length.out = n)  # weight 2 on rows 1, 4, 7, 10
  df
}

# The weighted rows spelt out: a row of weight 2 twice.
duplicated_rows <- function(df) df[rep(seq_len(nrow(df)), df$w), ]

seeded <- function() run_config(tf_random_seed = 11)

# Full-batch training steps of a new estimator: each step's training loss
# (the tensor "loss"), the history's total and mean losses, every variable.
one_step <- function(make, data, response, steps = 1) {
  est <- suppressMessages(make())
  input <- input_fn(data, features = c("x1", "x2"), response = tidyselect::all_of(response),
                    batch_size = nrow(data), shuffle = FALSE, num_epochs = NULL)
  loss <- numeric()
  recorder <- session_run_hook(before_run = function(context) session_run_args(loss = "loss"),
                               after_run = function(context, values) loss <<- c(loss, values$results$loss))
  h <- quietly(train(est, input, steps = steps, hooks = list(recorder, hook_history_saver(1))))
  history <- as.data.frame(h)
  list(loss = loss, total = history$value[history$metric == "total_losses"],
       mean = history$value[history$metric == "mean_losses"], vars = variable_value(est), est = est)
}

fcs <- function() feature_columns(column_numeric("x1", "x2"))

gradient_estimators <- list(
  linear_regressor = list("y", function(w) linear_regressor(fcs(), weight_column = w, config = seeded())),
  linear_classifier = list("yb", function(w) linear_classifier(fcs(), weight_column = w, config = seeded())),
  linear_multi_class = list("yc", function(w) {
    linear_classifier(fcs(), n_classes = 3, weight_column = w, config = seeded())
  }),
  dnn_regressor = list("y", function(w) {
    dnn_regressor(c(4, 3), fcs(), weight_column = w, optimizer = "SGD", config = seeded())
  }),
  dnn_classifier = list("yb", function(w) dnn_classifier(c(4, 3), fcs(), weight_column = w, config = seeded())),
  dnn_linear_combined_regressor = list("y", function(w) {
    dnn_linear_combined_regressor(linear_feature_columns = feature_columns(column_numeric("x1")),
                                  dnn_feature_columns = fcs(), dnn_hidden_units = 3, weight_column = w,
                                  config = seeded())
  }),
  dnn_linear_combined_classifier = list("yb", function(w) {
    dnn_linear_combined_classifier(linear_feature_columns = feature_columns(column_numeric("x1")),
                                   dnn_feature_columns = fcs(), dnn_hidden_units = 3, weight_column = w,
                                   dnn_optimizer = "Adam", config = seeded())
  })
)

test_that("linear, DNN and wide & deep: a step with weight 2 on rows equals a step on those rows twice (SUM)", {
  df <- weighted_frame()
  dup <- duplicated_rows(df)
  for (name in names(gradient_estimators)) {
    response <- gradient_estimators[[name]][[1]]
    make <- gradient_estimators[[name]][[2]]
    weighted <- one_step(function() make("w"), df, response)
    twice <- one_step(function() make(NULL), dup, response)
    plain <- one_step(function() make(NULL), df, response)
    # same loss (SUM of w * loss: the weights are in no denominator), same variables
    expect_equal(weighted$loss, twice$loss, tolerance = 1e-6, info = name)
    expect_equal(weighted$total, twice$total, tolerance = 1e-6, info = name)
    expect_equal(weighted$mean, twice$mean, tolerance = 1e-6, info = name)
    expect_equal(weighted$vars, twice$vars, tolerance = 1e-5, info = name)
    expect_false(isTRUE(all.equal(weighted$loss, plain$loss)), info = name)
    # the weight column is no feature of the model
    expect_equal(names(weighted$vars), names(plain$vars), info = name)
  }
})

trees_estimators <- list(
  boosted_trees_regressor = list("y", function(w) {
    boosted_trees_regressor(fcs(), n_batches_per_layer = 1, n_trees = 3, max_depth = 2, weight_column = w)
  }),
  boosted_trees_classifier = list("yb", function(w) {
    cols <- feature_columns(column_bucketized(column_numeric("x1"), c(-1, -0.5, 0, 0.5, 1)),
                            column_numeric("x2"))
    boosted_trees_classifier(cols, n_batches_per_layer = 1, n_trees = 3, max_depth = 2, weight_column = w)
  })
)

test_that("boosted trees: weight 2 grows the trees of the duplicated rows; the loss is sum(w * loss) / B", {
  # TensorFlow's SUM_OVER_BATCH_SIZE divides by the batch's rows B, not by the
  # weights: the weighted batch has B = 12 rows, the duplicated one 16. Every
  # gradient and hessian of the weighted batch is 16/12 times the duplicated
  # one's, so with l2_regularization = 0 the leaf values -G/H, the split
  # features and thresholds are the same, the gains (G^2/H) are 16/12 times
  # theirs, and so is each step's loss.
  df <- weighted_frame()
  dup <- duplicated_rows(df)
  ratio <- nrow(dup) / nrow(df)
  for (name in names(trees_estimators)) {
    response <- trees_estimators[[name]][[1]]
    make <- trees_estimators[[name]][[2]]
    weighted <- one_step(function() make("w"), df, response, steps = 2)  # one whole tree of depth 2
    twice <- one_step(function() make(NULL), dup, response, steps = 2)
    expect_length(weighted$loss, 2)
    expect_equal(weighted$loss, twice$loss * ratio, tolerance = 1e-6, info = name)
    # the history's sums and means of the weighted per-example losses are the duplicated ones'
    expect_equal(weighted$total, twice$total, tolerance = 1e-6, info = name)
    expect_equal(weighted$mean, twice$mean, tolerance = 1e-6, info = name)
    v <- weighted$vars
    d <- twice$vars
    expect_true(any(v[["boosted_trees/tree_feature"]] >= 0), info = name)  # it split
    expect_identical(v[["boosted_trees/tree_feature"]], d[["boosted_trees/tree_feature"]], info = name)
    # A node whose rows all have the same g / h (here: the right child of the
    # classifier's root, where every label is 1 and the two weights give the
    # same ratio) gains nothing from any split: its gains are rounding
    # (below 1e-6 in both) and its threshold is whichever rounding favours.
    # Every node that gains something has the same threshold.
    real <- v[["boosted_trees/tree_gain"]] > 1e-6 | d[["boosted_trees/tree_gain"]] > 1e-6
    expect_true(any(real), info = name)
    expect_identical(v[["boosted_trees/tree_threshold"]][real], d[["boosted_trees/tree_threshold"]][real],
                     info = name)
    expect_true(all(abs(v[["boosted_trees/tree_gain"]][!real]) < 1e-6), info = name)
    expect_equal(v[["boosted_trees/tree_value"]], d[["boosted_trees/tree_value"]], tolerance = 1e-5, info = name)
    expect_equal(v[["boosted_trees/tree_gain"]], d[["boosted_trees/tree_gain"]] * ratio, tolerance = 1e-5,
                 info = name)
    # and both predict the same
    p_w <- predict(weighted$est, df[c("x1", "x2")], simplify = TRUE)
    p_d <- predict(twice$est, df[c("x1", "x2")], simplify = TRUE)
    expect_equal(p_w, p_d, tolerance = 1e-5, info = name)
  }
})

# TensorFlow's tf.metrics.auc (200 thresholds, strict >, epsilon 1e-6,
# trapezoids) with weighted counts, in plain R.
tf_weighted_auc <- function(p, y, w, pr = FALSE) {
  k <- 200
  th <- c(-1e-7, (1:(k - 2)) / (k - 1), 1 + 1e-7)
  eps <- 1e-6
  tp <- vapply(th, function(t) sum(w[p > t & y == 1]), 0)
  fp <- vapply(th, function(t) sum(w[p > t & y == 0]), 0)
  fn <- sum(w[y == 1]) - tp
  tn <- sum(w[y == 0]) - fp
  recall <- (tp + eps) / (tp + fn + eps)
  if (pr) {
    x <- recall
    yy <- (tp + eps) / (tp + fp + eps)
  } else {
    x <- fp / (fp + tn + eps)
    yy <- recall
  }
  sum((x[-k] - x[-1]) * (yy[-k] + yy[-1]) / 2)
}

# The rows of each evaluation batch, in order (evaluate() over the whole
# input reads the rows in order).
batches_of <- function(n, size) split(seq_len(n), ceiling(seq_len(n) / size))

test_that("binary classifier: weighted evaluate() metrics equal hand-computed weighted ones", {
  df <- weighted_frame()
  est <- suppressMessages(linear_classifier(fcs(), weight_column = "w", config = seeded()))
  quietly(train(est, df, response = "yb", batch_size = 4, num_epochs = 3))
  ev <- quietly(evaluate(est, input_fn(df, features = c("x1", "x2"), response = "yb", batch_size = 5)))
  x <- predict(est, df[c("x1", "x2")], predict_keys = "logits", simplify = TRUE)
  x <- as.numeric(unlist(x))
  p <- 1 / (1 + exp(-x))
  y <- df$yb
  w <- df$w
  ce <- pmax(x, 0) - x * y + log1p(exp(-abs(x)))
  cls <- as.numeric(x > 0)
  label_mean <- stats::weighted.mean(y, w)
  expect_equal(ev$average_loss, stats::weighted.mean(ce, w), tolerance = 1e-5)
  # loss: the unweighted mean over batches (5, 5 and 2 rows) of each batch's sum of w * loss
  expect_equal(ev$loss, mean(vapply(batches_of(12, 5), function(r) sum(w[r] * ce[r]), 0)), tolerance = 1e-5)
  expect_equal(ev$accuracy, stats::weighted.mean(cls == y, w), tolerance = 1e-6)
  expect_equal(ev$precision, sum(w[cls == 1 & y == 1]) / sum(w[cls == 1]), tolerance = 1e-6)
  expect_equal(ev$recall, sum(w[cls == 1 & y == 1]) / sum(w[y == 1]), tolerance = 1e-6)
  expect_equal(ev[["label/mean"]], label_mean, tolerance = 1e-6)
  expect_equal(ev[["prediction/mean"]], stats::weighted.mean(p, w), tolerance = 1e-5)
  expect_equal(ev$accuracy_baseline, max(label_mean, 1 - label_mean), tolerance = 1e-6)
  expect_equal(ev$auc, tf_weighted_auc(p, y, w), tolerance = 1e-5)
  expect_equal(ev$auc_precision_recall, tf_weighted_auc(p, y, w, pr = TRUE), tolerance = 1e-5)
  # and they differ from the unweighted metrics
  plain <- suppressMessages(linear_classifier(fcs(), config = seeded()))
  quietly(train(plain, df, response = "yb", batch_size = 4, num_epochs = 3))
  expect_false(isTRUE(all.equal(ev[["label/mean"]], quietly(evaluate(plain, df))[["label/mean"]])))
})

test_that("regressors and multi-class classifiers: weighted evaluate() metrics", {
  df <- weighted_frame()
  w <- df$w
  est <- suppressMessages(dnn_regressor(c(4, 3), fcs(), weight_column = "w", config = seeded()))
  quietly(train(est, df, response = "y", batch_size = 4, num_epochs = 3))
  ev <- quietly(evaluate(est, df, response = "y", batch_size = 5))
  yhat <- as.numeric(unlist(predict(est, df, simplify = TRUE)))
  se <- (df$y - yhat)^2
  expect_equal(ev$average_loss, stats::weighted.mean(se, w), tolerance = 1e-5)
  expect_equal(ev$loss, mean(vapply(batches_of(12, 5), function(r) sum(w[r] * se[r]), 0)), tolerance = 1e-5)
  expect_equal(ev[["label/mean"]], stats::weighted.mean(df$y, w), tolerance = 1e-6)
  expect_equal(ev[["prediction/mean"]], stats::weighted.mean(yhat, w), tolerance = 1e-5)

  mc <- suppressMessages(linear_classifier(fcs(), n_classes = 3, weight_column = "w", config = seeded()))
  quietly(train(mc, df, response = "yc", batch_size = 4, num_epochs = 3))
  ev <- quietly(evaluate(mc, df, response = "yc"))
  logits <- do.call(rbind, predict(mc, df, predict_keys = "logits")$logits)
  cls <- max.col(logits, ties.method = "first") - 1
  ce <- log(rowSums(exp(logits))) - logits[cbind(seq_len(12), df$yc + 1)]
  expect_equal(ev$accuracy, stats::weighted.mean(cls == df$yc, w), tolerance = 1e-6)
  expect_equal(ev$average_loss, stats::weighted.mean(ce, w), tolerance = 1e-5)
})

test_that("boosted trees: evaluate()'s loss is the batches' mean of sum(w * loss) / B", {
  df <- weighted_frame()
  w <- df$w
  est <- suppressMessages(boosted_trees_regressor(fcs(), n_batches_per_layer = 1, n_trees = 2, max_depth = 2,
                                                  weight_column = "w"))
  quietly(train(est, input_fn(df, features = c("x1", "x2"), response = "y", batch_size = 12, num_epochs = NULL),
                steps = 4))
  ev <- quietly(evaluate(est, input_fn(df, features = c("x1", "x2"), response = "y", batch_size = 5)))
  yhat <- as.numeric(unlist(predict(est, df, simplify = TRUE)))
  se <- (df$y - yhat)^2
  expect_equal(ev$loss, mean(vapply(batches_of(12, 5), function(r) sum(w[r] * se[r]) / length(r), 0)),
               tolerance = 1e-5)
  expect_equal(ev$average_loss, stats::weighted.mean(se, w), tolerance = 1e-5)
  expect_equal(ev[["prediction/mean"]], stats::weighted.mean(yhat, w), tolerance = 1e-5)
})

test_that("a column_numeric() weight has its normalizer_fn applied", {
  df <- weighted_frame()
  df$w0 <- df$w - 1
  col <- column_numeric("w0", normalizer_fn = function(x) x + 1)
  by_fn <- one_step(function() linear_regressor(fcs(), weight_column = col, config = seeded()), df, "y")
  by_name <- one_step(function() linear_regressor(fcs(), weight_column = "w", config = seeded()), df, "y")
  expect_equal(by_fn$loss, by_name$loss)
  expect_equal(by_fn$vars, by_name$vars)
  expect_equal(quietly(evaluate(by_fn$est, df, response = "y")), quietly(evaluate(by_name$est, df, response = "y")))
  bad <- suppressMessages(linear_regressor(fcs(), weight_column = column_numeric("w0", normalizer_fn = function(x) x[-1])))
  expect_error(quietly(train(bad, df, response = "y")), class = "cppestimators_error",
               regexp = "the normalizer_fn of the weight column 'w0' returned 11 values for 12 rows")
})

test_that("weights come from lists, data frames and input_fn() data that `features` does not list", {
  df <- weighted_frame()
  make <- function() suppressMessages(linear_regressor(fcs(), weight_column = "w", config = seeded()))
  a <- make()
  quietly(train(a, input_fn(df, features = c("x1", "x2"), response = "y", batch_size = 12, shuffle = FALSE),
                steps = 1))
  b <- make()
  quietly(train(b, input_fn(as.list(df), features = c("x1", "x2"), response = "y", batch_size = 12,
                            shuffle = FALSE), steps = 1))
  c <- make()
  quietly(train(c, df, response = "y", batch_size = 12, shuffle = FALSE))
  d <- make()
  quietly(train(d, numpy_input_fn(as.list(df[c("x1", "x2", "w")]), df$y, batch_size = 12, shuffle = FALSE)))
  expect_equal(variable_value(b), variable_value(a))
  expect_equal(variable_value(c), variable_value(a))
  expect_equal(variable_value(d), variable_value(a))
  # predict() reads no weights: data without the weight column predicts
  expect_equal(predict(a, df[c("x1", "x2")]), predict(a, df))
  expect_equal(predict(a, input_fn(df[c("x1", "x2")], features = c("x1", "x2"))), predict(a, df))
  # the estimator prints its weight column
  expect_true(any(grepl("^ *weight column: +w$", printed(print(a)))))
})

test_that("the in-memory evaluator and train_and_evaluate() weight their metrics", {
  df <- weighted_frame()
  est <- suppressMessages(linear_classifier(fcs(), weight_column = "w",
                                            config = run_config(tf_random_seed = 3, save_checkpoints_steps = 5)))
  eval_input <- input_fn(df, features = c("x1", "x2"), response = "yb")
  ev <- hook_in_memory_evaluator(est, eval_input, every_n_iter = 5)
  train_input <- input_fn(df, features = c("x1", "x2"), response = "yb", batch_size = 4, num_epochs = NULL)
  h <- quietly(train(est, train_input, steps = 5, hooks = list(ev)))
  last <- wide(h)
  last <- last[last$steps == 5, ]
  direct <- quietly(evaluate(est, eval_input))
  expect_equal(last[["eval_label/mean"]], stats::weighted.mean(df$yb, df$w), tolerance = 1e-6)
  expect_equal(last$eval_average_loss, direct$average_loss, tolerance = 1e-6)
  expect_equal(last$eval_accuracy, direct$accuracy, tolerance = 1e-6)
  h2 <- quietly(train_and_evaluate(est, train_spec(train_input, max_steps = 10),
                                   eval_spec(eval_input, steps = NULL, throttle_secs = 0)))
  direct <- quietly(evaluate(est, eval_input))
  final <- h2$evaluation_metrics
  expect_equal(final$step, 10)
  expect_equal(final[["eval_label/mean"]], stats::weighted.mean(df$yb, df$w), tolerance = 1e-6)
  expect_equal(final$eval_average_loss, direct$average_loss, tolerance = 1e-6)
  expect_equal(final$eval_auc, direct$auc, tolerance = 1e-6)
})

test_that("the weight column survives saveRDS(), export_savedmodel() and load_estimator()", {
  df <- weighted_frame()
  est <- suppressMessages(linear_regressor(fcs(), weight_column = column_numeric("w", normalizer_fn = function(x) x * 1),
                                           config = seeded()))
  quietly(train(est, df, response = "y", num_epochs = 2))
  ev <- quietly(evaluate(est, df, response = "y"))
  dir <- export_savedmodel(est, tempfile())
  loaded <- suppressMessages(load_estimator(dir))
  expect_equal(loaded$spec$weight_column$name, "w")
  expect_equal(quietly(evaluate(loaded, df, response = "y")), ev, ignore_attr = TRUE, tolerance = 1e-6)
  rds <- tempfile(fileext = ".rds")
  saveRDS(est, rds)
  back <- readRDS(rds)
  expect_equal(quietly(evaluate(back, df, response = "y"))$average_loss, ev$average_loss, tolerance = 1e-6)
})

test_that("missing, negative, infinite and non-numeric weights and a missing weight column are errors", {
  df <- weighted_frame()
  est <- suppressMessages(linear_regressor(fcs(), weight_column = "w"))
  bad <- df
  bad$w[3] <- -1
  expect_error(quietly(train(est, bad, response = "y")), class = "cppestimators_error",
               regexp = "weight column 'w' contains negative values (-1), first at row 3: weights must be >= 0",
               fixed = TRUE)
  bad <- df
  bad$w[c(5, 7)] <- NA
  expect_error(quietly(train(est, bad, response = "y")), class = "cppestimators_error",
               regexp = "weight column 'w' contains missing values (NA), first at row 5", fixed = TRUE)
  bad <- df
  bad$w[2] <- Inf
  expect_error(quietly(train(est, bad, response = "y")), class = "cppestimators_error",
               regexp = "weight column 'w' contains infinite values, first at row 2", fixed = TRUE)
  bad <- df
  bad$w <- factor(bad$w)
  expect_error(quietly(train(est, bad, response = "y")), class = "cppestimators_error",
               regexp = "the weight column 'w' must be numeric, not a factor")
  expect_error(quietly(train(est, df[c("x1", "x2", "y")], response = "y")), class = "cppestimators_error",
               regexp = "the weight column 'w' is not in the input: it has x1, x2. Add the weights", fixed = TRUE)
  quietly(train(est, df, response = "y"))
  expect_error(quietly(evaluate(est, input_fn(df[c("x1", "x2", "y")], response = "y"))),
               class = "cppestimators_missing_weight_column", regexp = "the weight column 'w' is not in the input")
  # weights of 0 are allowed (the rows count for nothing)
  zero <- df
  zero$w <- 0
  ev <- quietly(evaluate(est, zero, response = "y"))
  expect_equal(ev$average_loss, 0)
  expect_equal(ev[["label/mean"]], 0)
})

test_that("weight_column must be a column name or a one-valued column_numeric()", {
  expect_error(linear_regressor(fcs(), weight_column = 1), class = "cppestimators_error",
               regexp = "`weight_column` must be a column name or a column_numeric(), not numeric 1.",
               fixed = TRUE)
  expect_error(linear_regressor(fcs(), weight_column = c("a", "b")), class = "cppestimators_error",
               regexp = "`weight_column` must be one column name")
  expect_error(linear_regressor(fcs(), weight_column = column_bucketized(column_numeric("w"), 1)),
               class = "cppestimators_error",
               regexp = "`weight_column` must be a column name or a column_numeric(), not the bucketized column",
               fixed = TRUE)
  expect_error(linear_regressor(fcs(), weight_column = column_numeric("w", shape = 2)),
               class = "cppestimators_error", regexp = "must hold one value per example (shape 1)", fixed = TRUE)
})
