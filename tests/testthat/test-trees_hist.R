# The histogram growths of boosted trees: growth = "depthwise" (xgboost's
# hist) and "lossguide" (LightGBM's leaf-wise).

# numeric predictions of a regressor, as a vector
num_pred <- function(est, data) predict(est, data)$predictions

hist_data <- function(n = 2000, seed = 1) {
  set.seed(seed)
  df <- data.frame(x1 = runif(n), x2 = rnorm(n), f = factor(sample(letters[1:8], n, TRUE)))
  eff <- stats::setNames(c(-2, -1, -0.5, 0, 0.5, 1, 1.5, 2), letters[1:8])
  df$y <- sin(6 * df$x1) + 0.5 * df$x2^2 + eff[as.character(df$f)] + rnorm(n, sd = 0.1)
  df
}

test_that("the histogram growths fit a regression with a factor and missing values", {
  df <- hist_data()
  df$x2[seq(3, nrow(df), by = 10)] <- NA
  fcs <- feature_columns_from_data(df, -y)
  for (g in c("depthwise", "lossguide")) {
    est <- boosted_trees_regressor(fcs, growth = g, n_trees = 60, max_depth = 6, learning_rate = 0.3)
    expect_silent(suppressMessages(train(est, df, response = "y")))
    pred <- num_pred(est, df)
    expect_length(pred, nrow(df))
    expect_false(anyNA(pred))  # rows with a missing x2 are predicted too
    rmse <- sqrt(mean((pred - df$y)^2))
    expect_lt(rmse, 0.45)
    expect_output(print(est), "all 60 trees finished")
    # the same data grows the same trees
    again <- boosted_trees_regressor(fcs, growth = g, n_trees = 60, max_depth = 6, learning_rate = 0.3)
    train(again, df, response = "y")
    expect_identical(num_pred(again, df), pred)
  }
})

test_that("each split learns where missing values go", {
  set.seed(2)
  n <- 1000
  df <- data.frame(x = sample(seq(0.05, 0.95, by = 0.1), n, TRUE))  # a bin per value
  df$y <- ifelse(df$x < 0.5, 0, 1)
  gone <- seq(1, n, by = 5)
  df$x[gone] <- NA
  df$y[gone] <- 10  # missing x: a response far above both sides
  est <- boosted_trees_regressor(feature_columns(column_numeric("x")), growth = "depthwise", n_trees = 1,
                                 max_depth = 2, learning_rate = 1, l2_regularization = 0, min_node_weight = 0)
  train(est, df, response = "y")
  new <- data.frame(x = c(NA, 0.1, 0.9))
  expect_equal(num_pred(est, new), c(10, 0, 1), tolerance = 1e-5)
  trees <- boosted_trees_ensemble(est)
  root <- trees[trees$node_id == 0, ]
  expect_false(root$is_leaf)
  expect_type(root$default_left, "logical")
})

test_that("a factor splits into the set of categories an exhaustive search finds best", {
  set.seed(3)
  levels <- c("p", "q", "r", "s", "t", "u")
  mu <- c(p = 3, q = -1, r = 2.5, s = -2, t = 0.2, u = 2.9)
  n <- 1800
  df <- data.frame(f = factor(sample(levels, n, TRUE), levels = levels))
  df$y <- mu[as.character(df$f)] + rnorm(n, sd = 0.3)
  est <- boosted_trees_regressor(feature_columns_from_data(df, -y), growth = "depthwise", n_trees = 1,
                                 max_depth = 1, learning_rate = 1, l2_regularization = 0)
  # sets of categories beyond 4 categories (by default beyond 64: one against the rest)
  onehot <- boosted_trees_regressor(feature_columns_from_data(df, -y), growth = "depthwise", n_trees = 1,
                                    max_depth = 1, learning_rate = 1, l2_regularization = 0)
  est$spec$model$max_cat_to_onehot <- 4
  train(est, df, response = "y")
  root <- boosted_trees_ensemble(est)[1, ]
  found <- root$categories[[1]]
  # every partition into two non-empty sets, by the gain with the
  # categorical penalty (cat_l2 = 10) on xgboost's scale (hessian 1 per row)
  r <- df$y - mean(df$y)
  g <- tapply(-r, df$f, sum)
  h <- tapply(rep(1, n), df$f, sum)
  best <- -Inf
  best_set <- NULL
  for (m in 1:(2^(length(levels) - 1) - 1)) {
    left <- bitwAnd(m, 2^(seq_along(levels) - 1)) > 0
    gain <- sum(g[left])^2 / (sum(h[left]) + 10) + sum(g[!left])^2 / (sum(h[!left]) + 10)
    if (gain > best) {
      best <- gain
      best_set <- levels[left]
    }
  }
  same <- setequal(found, best_set) || setequal(found, setdiff(levels, best_set))
  expect_true(same, info = paste("found", paste(found, collapse = ","), "best", paste(best_set, collapse = ",")))
  pred <- num_pred(est, data.frame(f = factor(levels, levels = levels)))
  side <- levels %in% found
  expect_equal(length(unique(round(pred[side], 6))), 1L)
  expect_equal(length(unique(round(pred[!side], 6))), 1L)

  # the default: one category against the rest, the best one
  train(onehot, df, response = "y")
  one <- boosted_trees_ensemble(onehot)[1, ]$categories[[1]]
  expect_length(one, 1L)
  gains <- vapply(levels, function(l) {
    left <- levels == l
    sum(g[left])^2 / sum(h[left]) + sum(g[!left])^2 / sum(h[!left])
  }, 0)
  expect_identical(one, levels[which.max(gains)])
})

test_that("deep trees store the nodes grown, not 2^depth", {
  set.seed(4)
  n <- 5000
  df <- as.data.frame(matrix(rnorm(n * 10), n, 10))
  df$y <- rowSums(df[1:3]) + rnorm(n)
  fcs <- feature_columns_from_data(df, -y)
  est <- boosted_trees_regressor(fcs, growth = "depthwise", n_trees = 20, max_depth = 15)
  train(est, df, response = "y")
  sizes <- variable_value(est, "boosted_trees/tree_nodes")[[1]]
  expect_length(sizes, 20)
  expect_equal(length(variable_value(est, "boosted_trees/node_feature")[[1]]), sum(sizes))
  # at most one leaf per row (min_node_weight 1): far below 2^16 nodes a tree
  expect_true(all(sizes <= 2 * n))
  # many trees of that depth are a valid model
  expect_s3_class(boosted_trees_regressor(fcs, growth = "depthwise", n_trees = 2000, max_depth = 15),
                  "tf_estimator")
})

test_that("training resumes mid-ensemble from its checkpoint with the same trees", {
  df <- hist_data(800, seed = 5)
  fcs <- feature_columns_from_data(df, -y)
  whole <- boosted_trees_regressor(fcs, growth = "lossguide", n_trees = 12, max_leaves = 8, max_depth = 0)
  train(whole, df, response = "y")
  dir <- tempfile("hist-trees-")
  on.exit(unlink(dir, recursive = TRUE), add = TRUE)
  part <- boosted_trees_regressor(fcs, growth = "lossguide", n_trees = 12, max_leaves = 8, max_depth = 0,
                                  model_dir = dir)
  train(part, df, response = "y", steps = 5)
  expect_output(print(part), "5 of 12 trees finished")
  # a new estimator on the same directory continues from the checkpoint
  more <- boosted_trees_regressor(fcs, growth = "lossguide", n_trees = 12, max_leaves = 8, max_depth = 0,
                                  model_dir = dir)
  train(more, df, response = "y")
  expect_equal(num_pred(more, df), num_pred(whole, df), tolerance = 1e-6)
  expect_true(any(grepl("^model.ckpt", list.files(dir))))
})

test_that("the classifiers grow binary and multi-class trees", {
  set.seed(6)
  est <- boosted_trees_classifier(feature_columns(column_numeric("Petal.Length", "Sepal.Width")),
                                  growth = "depthwise", n_classes = 3, label_vocabulary = levels(iris$Species),
                                  n_trees = 10, max_depth = 3)
  train(est, iris, response = "Species")
  cls <- predict(est, iris, type = "class")$.pred_class
  expect_gt(mean(as.character(cls) == as.character(iris$Species)), 0.9)
  ens <- boosted_trees_ensemble(est)
  expect_setequal(unique(ens$class), levels(iris$Species))
  expect_equal(nrow(attr(ens, "trees")), 30)  # one tree per class per round

  df <- hist_data(1500, seed = 7)
  df$z <- df$y > median(df$y)
  df$y <- NULL
  bin <- boosted_trees_classifier(feature_columns_from_data(df, -z), growth = "lossguide", n_trees = 30)
  train(bin, df, response = "z")
  ev <- evaluate(bin, df, response = "z")
  expect_gt(ev$auc, 0.95)
  imp <- boosted_trees_feature_importance(bin)
  expect_setequal(names(imp), c("x1", "x2", "f"))
})

test_that("the histogram growths refuse TensorFlow's own arguments", {
  fcs <- feature_columns(column_numeric("x"))
  expect_error(boosted_trees_regressor(fcs, n_batches_per_layer = 1, growth = "depthwise"),
               "n_batches_per_layer.*applies to growth = \"tensorflow\"", class = "cppestimators_argument_error")
  expect_error(boosted_trees_classifier(fcs, growth = "lossguide", center_bias = TRUE),
               "center_bias", class = "cppestimators_argument_error")
  expect_error(boosted_trees_regressor(fcs, growth = "sideways"), "growth")
  expect_error(boosted_trees_regressor(fcs, growth = "depthwise", subsample = 0), "subsample")
  expect_error(boosted_trees_regressor(fcs, growth = "depthwise", max_bin = 2), "max_bin")
})

test_that("parsnip's boost_tree() grows depthwise histogram trees by default", {
  skip_if_not_installed("parsnip")
  df <- hist_data(600, seed = 8)
  spec <- parsnip::set_mode(parsnip::set_engine(parsnip::boost_tree(trees = 15, tree_depth = 4, min_n = 2,
                                                                    sample_size = 0.8, mtry = 2),
                                                "cppestimators"), "regression")
  fit <- parsnip::fit(spec, y ~ ., data = df)
  m <- parsnip::extract_fit_engine(fit)$spec$model
  expect_identical(m$growth, "depthwise")
  expect_equal(m$min_node_weight, 2)
  expect_equal(m$subsample, 0.8)
  expect_equal(m$colsample, 2 / 3)
  pred <- predict(fit, df)
  expect_lt(sqrt(mean((pred$.pred - df$y)^2)), 1)
  lossguide <- parsnip::set_engine(parsnip::boost_tree(trees = 5), "cppestimators", growth = "lossguide",
                                   max_leaves = 6)
  fit2 <- parsnip::fit(parsnip::set_mode(lossguide, "regression"), y ~ ., data = df)
  expect_identical(parsnip::extract_fit_engine(fit2)$spec$model$max_leaves, 6)
  multi <- parsnip::multi_predict(fit, df[1:3, ], trees = c(1, 15))
  expect_equal(multi$.pred[[1]]$.pred[2], pred$.pred[1], tolerance = 1e-6)
  expect_error(parsnip::fit(parsnip::set_mode(parsnip::set_engine(parsnip::boost_tree(trees = 2), "cppestimators",
                                                                  n_batches_per_layer = 2), "regression"),
                            y ~ ., data = df), "n_batches_per_layer")
})

test_that("a histogram model survives saveRDS(), export and early stopping's restore", {
  df <- hist_data(700, seed = 9)
  df$x2[1:20] <- NA
  fcs <- feature_columns_from_data(df, -y)
  est <- suppressMessages(boosted_trees_regressor(fcs, growth = "depthwise", n_trees = 8, max_depth = 3))
  train(est, df, response = "y")
  before <- num_pred(est, df)
  file <- tempfile(fileext = ".rds")
  on.exit(unlink(file), add = TRUE)
  saveRDS(est, file)
  expect_identical(num_pred(readRDS(file), df), before)
  out <- tempfile("export-")
  on.exit(unlink(out, recursive = TRUE), add = TRUE)
  path <- export_savedmodel(est, out)
  loaded <- suppressMessages(load_estimator(path))
  expect_identical(num_pred(loaded, df), before)
  expect_identical(variable_value(loaded, "boosted_trees/tree_nodes"), variable_value(est, "boosted_trees/tree_nodes"))

  skip_if_not_installed("parsnip")
  spec <- parsnip::set_mode(parsnip::set_engine(parsnip::boost_tree(trees = 300, tree_depth = 6, learn_rate = 0.5,
                                                                    stop_iter = 3),
                                                "cppestimators", validation = 0.3), "regression")
  set.seed(2)
  fit <- parsnip::fit(spec, y ~ ., data = df)
  kept <- length(variable_value(parsnip::extract_fit_engine(fit), "boosted_trees/tree_nodes")[[1]])
  expect_lt(kept, 300)  # the best evaluation's trees, restored from its checkpoint
  expect_gt(kept, 0)
  expect_false(anyNA(predict(fit, df)$.pred))
})

test_that("predictions walk the trees boosted_trees_ensemble() shows, factor sets and missing values included", {
  set.seed(1)
  n <- 3000
  df <- data.frame(x = runif(n), f = factor(sample(paste0("L", 1:80), n, TRUE)))  # 80 levels: category sets
  df$x[1:20] <- NA
  df$y <- ifelse(is.na(df$x), 1, df$x) + as.integer(df$f) / 40 + rnorm(n, sd = 0.1)
  est <- boosted_trees_regressor(feature_columns_from_data(df, -y, standardize = FALSE), growth = "depthwise",
                                 n_trees = 3, max_depth = 3)
  quietly(train(est, df, response = "y"))
  e <- boosted_trees_ensemble(est)
  expect_true(any(lengths(e$categories) > 1))
  walk <- function(row) {
    total <- 0
    for (t in unique(e$tree)) {
      nodes <- e[e$tree == t, ]
      i <- 0
      repeat {
        nd <- nodes[nodes$node_id == i, ]
        if (nd$is_leaf) break
        v <- row[[nd$feature]]
        left <- if (is.na(v)) nd$default_left else if (is.factor(v)) as.character(v) %in% nd$categories[[1]] else
          v <= nd$threshold
        i <- if (left) nd$left_id else nd$right_id
      }
      total <- total + nd$value
    }
    total
  }
  # new rows too, their factor's levels in another order (a level not seen in training is an error)
  fresh <- data.frame(x = c(NA, 0.5, 0.01), f = factor(c("L3", "L80", "L7"), levels = c("L80", "L7", "L3")))
  rows <- rbind(df[1:150, c("x", "f")], fresh)  # blocks of 64 rows and a partial one
  p <- num_pred(est, rows)
  walked <- vapply(seq_len(nrow(rows)), function(i) walk(rows[i, ]), 0)
  # the ensemble starts from the response's mean
  expect_equal(p, walked + mean(df$y), tolerance = 1e-6)
})
