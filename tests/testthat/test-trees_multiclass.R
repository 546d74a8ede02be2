# Multi-class boosted trees: a layer computed by hand from the softmax
# formulas, iris, predictions, evaluation, checkpoints and parsnip.

mc_quiet <- run_config(save_summary_steps = 0, log_step_count_steps = NULL)
iris_columns <- function() {
  feature_columns(column_numeric("Sepal.Length", "Sepal.Width", "Petal.Length", "Petal.Width"))
}

test_that("one layer for three classes: gradients, hessians, split and leaf vectors by hand", {
  df <- data.frame(x = c(1, 2, 3, 4, 5, 6), y = c(0, 0, 0, 1, 1, 2))
  lr <- 0.5
  est <- quietly(boosted_trees_classifier(feature_columns(column_numeric("x")), n_batches_per_layer = 1,
                                          n_classes = 3, n_trees = 1, max_depth = 1, learning_rate = lr,
                                          config = mc_quiet))
  quietly(train(est, input_fn(df, response = "y", batch_size = 6L, num_epochs = NULL, shuffle = FALSE)))

  # by hand: logits 0, softmax p_k = 1/3; the loss is the batch mean, so
  # row i's gradient is (p_k - [y_i = k]) / n and its hessian p_k (1 - p_k) / n
  n <- nrow(df)
  p <- matrix(1 / 3, n, 3)
  onehot <- outer(df$y, 0:2, "==") * 1
  g <- (p - onehot) / n
  h <- p * (1 - p) / n
  side_gain <- function(rows) sum(colSums(g[rows, , drop = FALSE])^2 / colSums(h[rows, , drop = FALSE]))
  parent <- side_gain(1:n)
  totals <- vapply(1:(n - 1), function(m) side_gain(1:m) + side_gain((m + 1):n), 0)
  best <- which.max(totals)  # the x <= best rows go left
  expect_equal(best, 3)
  weights <- function(rows) -colSums(g[rows, , drop = FALSE]) / colSums(h[rows, , drop = FALSE])
  left <- lr * weights(1:best)
  right <- lr * weights((best + 1):n)

  nodes <- boosted_trees_ensemble(est)
  expect_named(nodes, c("tree", "node_id", "is_leaf", "feature", "feature_id", "threshold", "left_id",
                        "right_id", "gain", "value_0", "value_1", "value_2", "cover"))
  first <- nodes[nodes$tree == 1, ]
  expect_equal(first$node_id, 0:2)
  expect_equal(first$is_leaf, c(FALSE, TRUE, TRUE))
  expect_equal(first$feature[1], "x")
  expect_equal(first$gain[1], totals[best] - parent, tolerance = 1e-5)
  values <- as.matrix(first[c("value_0", "value_1", "value_2")])
  expect_equal(unname(values[1, ]), c(0, 0, 0))
  expect_equal(unname(values[2, ]), left, tolerance = 1e-5)
  expect_equal(unname(values[3, ]), right, tolerance = 1e-5)
  # the rows x <= 3 reach the left leaf: their logits are its vector
  pred <- quietly(predict(est, input_fn(df, features = "x"), predict_keys = "logits"))
  logits <- do.call(rbind, pred$logits)
  expect_equal(unname(logits), rbind(left, left, left, right, right, right, deparse.level = 0), tolerance = 1e-5)
})

test_that("multi-class regularization: L2 and per-class L1 by hand; min_node_weight against the hessians' norm", {
  df <- data.frame(x = c(1, 2, 3, 4, 5, 6), y = c(0, 2, 0, 1, 1, 2))
  fit <- function(...) {
    est <- quietly(boosted_trees_classifier(feature_columns(column_numeric("x")), n_batches_per_layer = 1,
                                            n_classes = 3, n_trees = 1, max_depth = 1, learning_rate = 1,
                                            config = mc_quiet, ...))
    quietly(train(est, input_fn(df, response = "y", batch_size = 6L, num_epochs = NULL, shuffle = FALSE)))
    boosted_trees_ensemble(est)
  }
  n <- 6
  g <- (1 / 3 - outer(df$y, 0:2, "==")) / n
  h <- matrix(2 / 9 / n, n, 3)
  l1 <- 0.02
  l2 <- 0.1
  shrink <- function(s) sign(s) * pmax(abs(s) - l1, 0)
  side <- function(rows) {
    gs <- shrink(colSums(g[rows, , drop = FALSE]))
    hs <- colSums(h[rows, , drop = FALSE]) + l2
    list(gain = sum(gs^2 / hs), weight = -gs / hs)
  }
  totals <- vapply(1:(n - 1), function(m) side(1:m)$gain + side((m + 1):n)$gain, 0)
  m <- which.max(totals)
  nodes <- fit(l1_regularization = l1, l2_regularization = l2)
  expect_equal(nodes$gain[1], totals[m] - side(1:n)$gain, tolerance = 1e-5)
  expect_equal(unname(unlist(nodes[2, c("value_0", "value_1", "value_2")])), side(1:m)$weight, tolerance = 1e-5)
  expect_equal(unname(unlist(nodes[3, c("value_0", "value_1", "value_2")])), side((m + 1):n)$weight,
               tolerance = 1e-5)
  # the node's hessian sums: 2/9 per class, norm sqrt(3) 2/9 = 0.385 (their sum is 2/3)
  expect_false(fit(min_node_weight = 0.38)$is_leaf[1])
  expect_true(fit(min_node_weight = 0.39)$is_leaf[1])
})

test_that("iris: three classes to training accuracy >= 0.95, with TF's multi-class keys and metrics", {
  est <- quietly(boosted_trees_classifier(iris_columns(), n_batches_per_layer = 1, n_classes = 3, n_trees = 20,
                                          max_depth = 3, label_vocabulary = levels(iris$Species),
                                          config = mc_quiet))
  input <- suppressMessages(input_fn(iris, response = "Species", batch_size = 150L, num_epochs = NULL,
                                     shuffle = FALSE))
  quietly(train(est, input))
  expect_equal(variable_value(est, "boosted_trees/state")[[1]][1], 20)
  expect_equal(dim(variable_value(est, "boosted_trees/tree_value")[[1]]), c(20, 15, 3))
  p <- quietly(predict(est, input_fn(iris, features = names(iris)[1:4])))
  expect_equal(names(p), c("logits", "probabilities", "class_ids", "classes"))
  expect_equal(lengths(p$probabilities), rep(3L, 150))
  probs <- do.call(rbind, p$probabilities)
  expect_equal(rowSums(probs), rep(1, 150), tolerance = 1e-6)
  logits <- do.call(rbind, p$logits)
  expect_equal(probs, exp(logits) / rowSums(exp(logits)), tolerance = 1e-5)
  expect_equal(unlist(p$class_ids), max.col(logits, ties.method = "first") - 1)
  expect_equal(unlist(p$classes), levels(iris$Species)[unlist(p$class_ids) + 1])
  accuracy <- mean(unlist(p$classes) == as.character(iris$Species))
  expect_gte(accuracy, 0.95)
  ev <- quietly(evaluate(est, input_fn(iris, response = "Species", batch_size = 150L)))
  expect_setequal(names(ev), c("accuracy", "average_loss", "loss", "global_step"))
  expect_equal(ev$accuracy, accuracy)
  truth <- as.integer(iris$Species)
  cross_entropy <- -log(probs[cbind(seq_len(150), truth)])
  expect_equal(ev$average_loss, mean(cross_entropy), tolerance = 1e-5)
  expect_equal(ev$loss, mean(cross_entropy), tolerance = 1e-5)
  imp <- boosted_trees_feature_importance(est)
  expect_true(names(imp)[1] %in% c("Petal.Length", "Petal.Width"))
})

test_that("multi-class trees resume from a checkpoint mid-tree as if never interrupted", {
  set.seed(7)
  df <- data.frame(a = runif(90), b = runif(90))
  df$y <- ifelse(df$a > 0.6, 2, ifelse(df$b > 0.5, 1, 0))
  make <- function(dir) {
    quietly(boosted_trees_classifier(feature_columns(column_numeric("a", "b")), n_batches_per_layer = 2,
                                     n_classes = 3, n_trees = 3, max_depth = 2, model_dir = dir,
                                     config = mc_quiet))
  }
  input <- input_fn(df, response = "y", batch_size = 90L, num_epochs = NULL, shuffle = FALSE)
  whole <- make(tempfile())
  quietly(train(whole, input, steps = 12))
  dir <- tempfile()
  quietly(train(make(dir), input, steps = 5))  # inside the second tree's first layer
  resumed <- make(dir)
  expect_equal(variable_value(resumed, "boosted_trees/state")[[1]][c(1, 4)], c(1, 1))
  quietly(train(resumed, input, steps = 7))
  expect_equal(variable_value(resumed), variable_value(whole))
  expect_equal(dim(variable_value(resumed, "boosted_trees/accumulator_totals")[[1]]), c(2, 6))
  expect_equal(boosted_trees_ensemble(resumed), boosted_trees_ensemble(whole))
  features <- input_fn(df, features = c("a", "b"))
  before <- quietly(predict(whole, features))
  f <- tempfile(fileext = ".rds")
  saveRDS(whole, f)
  expect_equal(quietly(predict(readRDS(f), features)), before)
  exported <- export_savedmodel(whole, tempfile())
  expect_equal(quietly(predict(load_estimator(exported), features)), before)
})

test_that("a binary classifier keeps its one-logit variables", {
  df <- data.frame(x = c(1, 2, 3, 4), y = c(0, 0, 1, 1))
  est <- quietly(boosted_trees_classifier(feature_columns(column_numeric("x")), n_batches_per_layer = 1,
                                          n_trees = 1, max_depth = 1, config = mc_quiet))
  quietly(train(est, input_fn(df, response = "y", batch_size = 4L, num_epochs = NULL)))
  expect_equal(dim(variable_value(est, "boosted_trees/tree_value")[[1]]), c(1, 3))
  expect_equal(dim(variable_value(est, "boosted_trees/accumulator_totals")[[1]]), c(1, 2))
  expect_named(boosted_trees_ensemble(est)[10], "value")
})

test_that("parsnip's boost_tree() classifies an outcome with three levels", {
  skip_if_not_installed("parsnip")
  spec <- parsnip::set_mode(parsnip::set_engine(parsnip::boost_tree(trees = 10, tree_depth = 3), "cppestimators"),
                            "classification")
  set.seed(1)
  fit <- quietly(parsnip::fit(spec, Species ~ ., data = iris))
  est <- parsnip::extract_fit_engine(fit)
  expect_identical(est$spec$head, "multi_class")
  expect_identical(est$spec$head_n, 3L)
  cls <- quietly(predict(fit, iris))
  expect_s3_class(cls$.pred_class, "factor")
  expect_identical(levels(cls$.pred_class), levels(iris$Species))
  expect_gte(mean(cls$.pred_class == iris$Species), 0.95)
  prob <- quietly(predict(fit, iris[c(1, 51, 101), ], type = "prob"))
  expect_named(prob, paste0(".pred_", levels(iris$Species)))
  expect_equal(rowSums(as.matrix(prob)), rep(1, 3), tolerance = 1e-6)
  expect_equal(max.col(as.matrix(prob)), 1:3)
})

test_that("pruning applies to the gain summed over classes; center_bias needs one logit", {
  df <- data.frame(x = c(1, 2, 3, 4, 5, 6), y = c(0, 0, 0, 1, 1, 2))
  fit <- function(...) {
    est <- quietly(boosted_trees_classifier(feature_columns(column_numeric("x")), n_batches_per_layer = 1,
                                            n_classes = 3, n_trees = 1, max_depth = 2, learning_rate = 0.5,
                                            config = mc_quiet, ...))
    quietly(train(est, input_fn(df, response = "y", batch_size = 6L, num_epochs = NULL, shuffle = FALSE),
                  steps = 10))
    est
  }
  # the root's summed gain is 1.75 (see the hand-computed layer above):
  # tree_complexity 2 makes it -0.25
  pre <- boosted_trees_ensemble(fit(tree_complexity = 2, pruning_mode = "pre"))
  expect_equal(nrow(pre[pre$tree == 1, ]), 1L)  # no split was kept
  none <- boosted_trees_ensemble(fit(tree_complexity = 2))
  expect_equal(none$gain[1], -0.25, tolerance = 1e-5)
  post <- boosted_trees_ensemble(fit(tree_complexity = 2, pruning_mode = "post"))
  first <- post[post$tree == 1, ]
  expect_equal(nrow(first), 1L)  # every split had a negative gain: back to the root
  expect_equal(unlist(first[c("value_0", "value_1", "value_2")]), c(value_0 = 0, value_1 = 0, value_2 = 0))
  expect_true(attr(post, "trees")$is_finalized[1])
  expect_error(boosted_trees_classifier(feature_columns(column_numeric("x")), n_batches_per_layer = 1,
                                        n_classes = 3, center_bias = TRUE),
               "needs one logit", class = "cppestimators_error")
})
