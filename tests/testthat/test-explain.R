# predict(type = "contributions"): per-prediction explanations (TreeSHAP of
# the histogram growths' trees), summed back to the input features.

# an indicator column over the factor f's categories u, v and w
uvw_indicator <- function() {
  column_indicator(column_categorical_with_vocabulary_list("f", vocabulary_list = c("u", "v", "w")))
}

explain_data <- function(n = 600, seed = 3) {
  set.seed(seed)
  # values on a grid of quarters: exact in float, so that an R walk of the
  # trees decides every split as the engine does
  df <- data.frame(a = round(runif(n, 0, 8) * 4) / 4, b = round(rnorm(n) * 4) / 4,
                   c = round(runif(n, -2, 2) * 4) / 4)
  df$y <- sin(df$a) + df$b * (df$c > 0) + 0.5 * df$c + rnorm(n, sd = 0.1)
  df
}

# Shapley values by their definition, from the trees as
# boosted_trees_ensemble() gives them: the value of a set S of features is
# each tree's expectation over the nodes' covers, following the row at the
# splits of features in S.
brute_force_shapley <- function(ens, row, features) {
  m <- length(features)
  set_value <- function(tree, node, present) {
    n <- tree[tree$node_id == node, ]
    if (n$is_leaf) return(n$value)
    if (n$feature %in% present) {
      v <- row[[n$feature]]
      left <- if (is.na(v)) n$default_left else v <= n$threshold
      return(set_value(tree, if (left) n$left_id else n$right_id, present))
    }
    l <- tree[tree$node_id == n$left_id, ]
    r <- tree[tree$node_id == n$right_id, ]
    (l$cover * set_value(tree, n$left_id, present) + r$cover * set_value(tree, n$right_id, present)) / n$cover
  }
  trees <- split(ens, ens$tree)
  value <- function(present) sum(vapply(trees, set_value, 0, node = 0L, present = present))
  phi <- stats::setNames(numeric(m), features)
  for (f in features) {
    others <- setdiff(features, f)
    for (k in 0:length(others)) {
      subsets <- if (k == 0) list(character()) else utils::combn(others, k, simplify = FALSE)
      for (s in subsets) {
        w <- factorial(k) * factorial(m - k - 1) / factorial(m)
        phi[[f]] <- phi[[f]] + w * (value(c(s, f)) - value(s))
      }
    }
  }
  phi
}

test_that("contributions of a regressor's trees add up to its predictions, feature by feature", {
  df <- explain_data()
  for (g in c("depthwise", "lossguide")) {
    est <- boosted_trees_regressor(feature_columns_from_data(df, -y), growth = g, n_trees = 20,
                                   max_depth = 4, learning_rate = 0.3)
    suppressMessages(train(est, df, response = "y"))
    contrib <- predict(est, df[1:50, ], type = "contributions")
    expect_s3_class(contrib, "data.frame")
    expect_named(contrib, c("a", "b", "c", ".baseline"))
    expect_equal(nrow(contrib), 50L)
    pred <- predict(est, df[1:50, ])$predictions
    # float predictions against double contributions
    expect_equal(rowSums(contrib), pred, tolerance = 1e-5)
    expect_true(all(abs(rowSums(contrib) - pred) < 1e-5))
    # one baseline: the model's expected prediction over its covers
    expect_equal(length(unique(round(contrib$.baseline, 10))), 1L)
  }
})

test_that("TreeSHAP equals the Shapley values computed over every subset of the features", {
  df <- explain_data(n = 300)
  # plain numeric columns (no normalizer): the trees' thresholds are on the data's scale
  cols <- feature_columns(column_numeric("a"), column_numeric("b"), column_numeric("c"))
  est <- boosted_trees_regressor(cols, growth = "depthwise", n_trees = 3, max_depth = 3, learning_rate = 0.5)
  suppressMessages(train(est, df, response = "y"))
  ens <- boosted_trees_ensemble(est)
  contrib <- predict(est, df[1:4, ], type = "contributions")
  for (i in 1:4) {
    exact <- brute_force_shapley(ens, df[i, ], c("a", "b", "c"))
    expect_equal(unlist(contrib[i, c("a", "b", "c")]), exact, tolerance = 1e-6)
  }
})

test_that("a binary classifier's contributions are on the logit of its second class; multi-class per class", {
  df <- explain_data()
  df$label <- factor(ifelse(df$y > 0.5, "high", "low"), levels = c("low", "high"))
  cols <- feature_columns(column_numeric("a"), column_numeric("b"), column_numeric("c"))
  est <- boosted_trees_classifier(cols, growth = "depthwise",
                                  n_trees = 15, max_depth = 3, learning_rate = 0.3)
  suppressMessages(train(est, df[c("a", "b", "c", "label")], response = "label"))
  contrib <- predict(est, df[1:40, ], type = "contributions")
  logit <- unlist(predict(est, df[1:40, ], predict_keys = "logits")$logits)
  expect_equal(rowSums(contrib), logit, tolerance = 1e-5)
  df$k <- factor(cut(df$y, c(-Inf, 0, 1, Inf), labels = c("lo", "mid", "hi")))
  est3 <- boosted_trees_classifier(cols, n_classes = 3, growth = "lossguide",
                                   n_trees = 10, max_depth = 3, learning_rate = 0.3)
  suppressMessages(train(est3, df[c("a", "b", "c", "k")], response = "k"))
  per_class <- predict(est3, df[1:30, ], type = "contributions")
  expect_named(per_class, c("lo", "mid", "hi"))
  logits <- do.call(rbind, predict(est3, df[1:30, ], predict_keys = "logits")$logits)
  for (j in 1:3) expect_equal(rowSums(per_class[[j]]), logits[, j], tolerance = 1e-5)
})

test_that("factors, missing values and a bucketized column are explained by the features they read", {
  df <- explain_data()
  df$f <- factor(sample(c("u", "v", "w"), nrow(df), TRUE))
  df$b[seq(1, nrow(df), by = 7)] <- NA
  cols <- feature_columns(column_numeric("b"), column_bucketized(column_numeric("a"), c(2, 4, 6)),
                          uvw_indicator())
  est <- boosted_trees_regressor(cols, growth = "depthwise", n_trees = 10, max_depth = 3, learning_rate = 0.3)
  suppressMessages(train(est, df, response = "y"))
  contrib <- predict(est, df[1:30, ], type = "contributions")
  expect_named(contrib, c("a", "b", "f", ".baseline"))
  expect_equal(rowSums(contrib), predict(est, df[1:30, ])$predictions, tolerance = 1e-5)
})

test_that("estimators without explanations say so with a classed error", {
  df <- explain_data(n = 100)
  cols <- feature_columns(column_numeric("a"), column_numeric("b"))
  # (a wide & deep model without its deep part)
  est <- dnn_linear_combined_regressor(linear_feature_columns = cols)
  suppressMessages(train(est, df, response = "y", steps = 2))
  expect_error(predict(est, df, type = "contributions", reference = df), class = "cppestimators_unsupported")
  expect_error(predict(est, df, type = "contributions", reference = df),
               "boosted trees, linear models, DNNs and wide & deep models")
  lin <- linear_regressor(cols)
  suppressMessages(train(lin, df, response = "y", steps = 2))
  expect_error(predict(lin, df, type = "interactions", reference = df), class = "cppestimators_unsupported")
})

test_that("interaction values: per row a symmetric features x features array whose rows sum to the contributions", {
  df <- explain_data(n = 400)
  df$f <- factor(sample(c("u", "v", "w"), nrow(df), TRUE))
  cols <- feature_columns(column_numeric("a"), column_numeric("b"),
                          uvw_indicator())
  est <- boosted_trees_regressor(cols, growth = "lossguide", n_trees = 8, max_depth = 4, learning_rate = 0.3)
  suppressMessages(train(est, df, response = "y"))
  inter <- predict(est, df[1:20, ], type = "interactions")
  contrib <- predict(est, df[1:20, ], type = "contributions")
  expect_equal(dim(inter), c(20L, 4L, 4L))
  expect_equal(dimnames(inter)[[2]], c("a", "b", "f", ".baseline"))
  for (feature in c("a", "b", "f")) {
    expect_equal(rowSums(inter[, feature, c("a", "b", "f")]), contrib[[feature]], tolerance = 1e-8)
  }
  expect_equal(inter[, "a", "b"], inter[, "b", "a"], tolerance = 1e-10)
  expect_equal(inter[, ".baseline", ".baseline"], contrib$.baseline)
  # the whole array adds up to the prediction
  expect_equal(apply(inter, 1, sum), predict(est, df[1:20, ])$predictions, tolerance = 1e-5)
})

test_that("a parsnip fit is explained through its engine fit, from the raw predictors", {
  skip_if_not_installed("parsnip")
  set.seed(1)
  df <- data.frame(a = runif(300), b = runif(300), f = factor(sample(c("u", "v"), 300, TRUE)))
  df$y <- df$a + (df$f == "u") + rnorm(300, sd = 0.1)
  fit <- parsnip::fit(parsnip::set_mode(parsnip::set_engine(parsnip::boost_tree(trees = 20, tree_depth = 3),
                                                            "cppestimators"), "regression"),
                      y ~ ., data = df)
  contrib <- predict(parsnip::extract_fit_engine(fit), df[1:10, c("a", "b", "f")], type = "contributions")
  expect_named(contrib, c("a", "b", "f", ".baseline"))
  expect_equal(rowSums(contrib), predict(fit, df[1:10, ])$.pred, tolerance = 1e-5)
})

test_that("a linear model's contributions are weight x (value - mean), against the reference rows", {
  df <- explain_data(n = 300)
  df$f <- factor(sample(c("u", "v", "w"), nrow(df), TRUE))
  cols <- feature_columns(column_numeric("a"), column_numeric("b"),
                          uvw_indicator())
  est <- linear_regressor(cols)
  suppressMessages(train(est, df, response = "y", steps = 50))
  expect_error(predict(est, df[1:5, ], type = "contributions"), class = "cppestimators_argument_error")
  contrib <- predict(est, df[1:20, ], type = "contributions", reference = df)
  expect_named(contrib, c("a", "b", "f", ".baseline"))
  pred <- predict(est, df[1:20, ])$predictions
  expect_equal(rowSums(contrib), pred, tolerance = 1e-5)
  w <- coef(est)
  expect_equal(contrib$a, w[["a"]] * (df$a[1:20] - mean(df$a)), tolerance = 1e-5)
  # a categorical feature: its category's weight minus the weight averaged over the reference rows
  wf <- w[c("f_indicator[u]", "f_indicator[v]", "f_indicator[w]")]
  weight_of <- function(f) unname(wf[paste0("f_indicator[", f, "]")])
  expect_equal(contrib$f, weight_of(df$f[1:20]) - mean(weight_of(df$f)), tolerance = 1e-5)
  # the reference rows' contributions average to 0
  expect_equal(unname(colMeans(predict(est, df, type = "contributions", reference = df)[c("a", "b", "f")])),
               c(0, 0, 0), tolerance = 1e-6)
  # standardized numeric columns: their means are 0, no reference needed
  std <- feature_columns(column_numeric("a", normalizer_fn = normalizer_standardize(mean(df$a), sd(df$a))),
                         column_numeric("b", normalizer_fn = normalizer_standardize(mean(df$b), sd(df$b))))
  est2 <- linear_regressor(std)
  suppressMessages(train(est2, df, response = "y", steps = 50))
  c2 <- predict(est2, df[1:10, ], type = "contributions")
  expect_equal(rowSums(c2), predict(est2, df[1:10, ])$predictions, tolerance = 1e-5)
  expect_equal(c2, predict(est2, df[1:10, ], type = "contributions", reference = df), tolerance = 1e-5)
})

test_that("contribution_importance() ranks features by their mean absolute contribution", {
  df <- explain_data(n = 400)
  cols <- feature_columns(column_numeric("a"), column_numeric("b"), column_numeric("c"))
  est <- boosted_trees_regressor(cols, growth = "depthwise", n_trees = 15, max_depth = 3, learning_rate = 0.3)
  suppressMessages(train(est, df, response = "y"))
  contrib <- predict(est, df, type = "contributions")
  imp <- contribution_importance(contrib)
  expect_named(imp, c("feature", "importance"))
  expect_setequal(imp$feature, c("a", "b", "c"))
  expect_equal(imp$importance, unname(colMeans(abs(as.matrix(contrib[imp$feature])))))
  expect_false(is.unsorted(rev(imp$importance)))
  expect_error(contribution_importance(mtcars), class = "cppestimators_argument_error")
  per_class <- contribution_importance(list(x = contrib, y = contrib))
  expect_equal(per_class$class, rep(c("x", "y"), each = 3))
})

# TensorFlow's data of its tests of experimental_predict_with_explanations()
# (tensorflow/estimator's boosted_trees_test.py, BoostedTreesDebugOutputsTest)
tf_dfc_data <- function() {
  data.frame(f_0 = c(12.5, 1.0, -2.001, -2.0001, -1.999), f_1 = c(2.0, -3.0, 0.5, 0.0, 0.4995),
             f_2 = c(3.0, 20.0, 50.0, -100.0, 102.75), cl = c(0, 1, 1, 0, 0), rg = c(1.5, 0.3, 0.2, 2, 5))
}
tf_dfc_columns <- function() {
  feature_columns(lapply(c("f_0", "f_1", "f_2"), function(f) column_bucketized(column_numeric(f), c(-2, 0.5, 12))))
}

test_that("type = \"dfc\" gives TensorFlow's directional feature contributions (its tests' numbers)", {
  d <- tf_dfc_data()
  input <- function(y) input_fn(d, response = y, batch_size = 5L, num_epochs = NULL, shuffle = FALSE)
  cls <- boosted_trees_classifier(tf_dfc_columns(), n_batches_per_layer = 1, n_trees = 1, max_depth = 5,
                                  center_bias = TRUE)
  suppressMessages(train(cls, input("cl"), steps = 100))
  dfc <- predict(cls, d[1:3], type = "dfc")
  expect_named(dfc, c("f_0", "f_1", "f_2", ".baseline"))
  expect_equal(dfc$.baseline, rep(0.4, 5), tolerance = 1e-6)
  expect_equal(dfc$f_0, c(-0.1210861345357448, 0.19650601422250574, 0.16057487356133376, -0.1210861345357448,
                          -0.10832468554550384), tolerance = 1e-6)
  expect_equal(dfc$f_1, rep(0, 5))
  expect_equal(dfc$f_2, c(-0.03925492981448114, 0.02693827052766018, 0.02693827052766018, -0.03925492981448114,
                          0.02693827052766018), tolerance = 1e-6)
  expect_equal(rowSums(dfc), c(0.23965894, 0.62344426, 0.58751315, 0.23965894, 0.31861359), tolerance = 1e-6)
  reg <- boosted_trees_regressor(tf_dfc_columns(), n_batches_per_layer = 1, n_trees = 1, max_depth = 5,
                                 center_bias = TRUE)
  suppressMessages(train(reg, input("rg"), steps = 100))
  dfc <- predict(reg, d[1:3], type = "dfc")
  expect_equal(dfc$.baseline, rep(1.8, 5), tolerance = 1e-6)
  expect_equal(dfc$f_0, c(-0.07049942016601562, -0.5376303195953369, -0.5175694227218628, 0.1563495397567749,
                          0.96934974193573), tolerance = 1e-6)
  expect_equal(dfc$f_1, c(-0.09500002861022949, 0.06333339214324951, -0.09500002861022949, 0.06333339214324951,
                          0.06333339214324951), tolerance = 1e-6)
  expect_equal(dfc$f_2, rep(0, 5))
  expect_equal(rowSums(dfc), c(1.6345005, 1.32570302, 1.1874305, 2.01968288, 2.83268309), tolerance = 1e-6)
})

test_that("dfc of numeric columns add up to the predictions; its refusals are TensorFlow's", {
  d <- tf_dfc_data()
  cols <- feature_columns(column_numeric("f_0"), column_numeric("f_1"), column_numeric("f_2"))
  input <- function(y) input_fn(d, response = y, batch_size = 5L, num_epochs = NULL, shuffle = FALSE)
  cls <- boosted_trees_classifier(cols, n_batches_per_layer = 1, n_trees = 1, max_depth = 5, center_bias = TRUE,
                                  quantile_sketch_epsilon = 0.33)
  suppressMessages(train(cls, input("cl"), steps = 100))
  expect_equal(rowSums(predict(cls, d[1:3], type = "dfc")), predict(cls, d[1:3])$logistic, tolerance = 1e-7)
  reg <- boosted_trees_regressor(cols, n_batches_per_layer = 1, n_trees = 1, max_depth = 5, center_bias = TRUE,
                                 quantile_sketch_epsilon = 0.33)
  suppressMessages(train(reg, input("rg"), steps = 100))
  expect_equal(rowSums(predict(reg, d[1:3], type = "dfc")), predict(reg, d[1:3])$predictions, tolerance = 1e-7)
  plain <- boosted_trees_regressor(cols, n_batches_per_layer = 1, n_trees = 1, max_depth = 2)
  suppressMessages(train(plain, input("rg"), steps = 10))
  expect_error(predict(plain, d[1:3], type = "dfc"), "needs center_bias = TRUE",
               class = "cppestimators_argument_error")
  hist <- boosted_trees_regressor(cols, growth = "depthwise", n_trees = 2, max_depth = 2)
  suppressMessages(train(hist, d[c(1:3, 5)], response = "rg"))
  expect_error(predict(hist, d[1:3], type = "dfc"), "TensorFlow's growth", class = "cppestimators_unsupported")
})

test_that("TensorFlow's growth: TreeSHAP by the recorded covers, exact against every subset", {
  df <- explain_data(n = 300)
  bounds <- list(a = 1:7, b = c(-1, 0, 1), c = c(-1, 0, 1))
  cols <- do.call(feature_columns, lapply(names(bounds), function(f) column_bucketized(column_numeric(f), bounds[[f]])))
  est <- boosted_trees_regressor(cols, n_batches_per_layer = 1, n_trees = 3, max_depth = 3, learning_rate = 0.5)
  suppressMessages(train(est, input_fn(df, response = "y", batch_size = 300L, num_epochs = NULL)))
  contrib <- predict(est, df[1:5, ], type = "contributions")
  expect_named(contrib, c("a", "b", "c", ".baseline"))
  expect_true(all(abs(rowSums(contrib) - predict(est, df[1:5, ])$predictions) < 1e-5))
  # the rows as the trees read them: bucket ids, named as the ensemble's features
  ens <- boosted_trees_ensemble(est)
  ens$default_left <- TRUE
  expect_true(all(ens$cover[ens$tree <= 3 & ens$node_id == 0] > 0))
  for (i in 1:5) {
    row <- lapply(names(bounds), function(f) findInterval(df[[f]][i], bounds[[f]]))
    names(row) <- paste0(names(bounds), "_bucketized")
    phi <- brute_force_shapley(ens, row, names(row))
    expect_equal(unname(unlist(contrib[i, c("a", "b", "c")])), unname(phi), tolerance = 1e-6)
  }
  # interactions add up to the contributions
  inter <- predict(est, df[1:5, ], type = "interactions")
  expect_equal(apply(inter[, 1:3, 1:3], c(1, 2), sum), as.matrix(contrib[1:3]), tolerance = 1e-8,
               ignore_attr = TRUE)
})

test_that("TensorFlow's growth: contributions of binary and multi-class trees add up to each logit", {
  df <- explain_data(n = 300)
  df$k <- cut(df$y, 3, labels = FALSE) - 1
  df$h <- as.integer(df$y > median(df$y))
  cols <- feature_columns(column_numeric("a"), column_bucketized(column_numeric("b"), c(-1, 0, 1)),
                          column_numeric("c"))
  for (n_classes in 2:3) {
    est <- boosted_trees_classifier(cols, n_batches_per_layer = 1, n_trees = 3, max_depth = 3, n_classes = n_classes)
    suppressMessages(train(est, input_fn(df, response = if (n_classes == 2) "h" else "k", batch_size = 300L,
                                         num_epochs = NULL)))
    contrib <- predict(est, df[1:20, ], type = "contributions")
    logits <- predict(est, df[1:20, ])$logits
    if (n_classes == 2) {
      expect_true(all(abs(rowSums(contrib) - logits) < 1e-5))
    } else {
      expect_length(contrib, 3L)
      expect_true(all(abs(sapply(contrib, rowSums) - do.call(rbind, logits)) < 1e-5))
      expect_error(predict(est, df[1:3, ], type = "dfc"), "needs one logit", class = "cppestimators_unsupported")
    }
  }
})

test_that("a DNN's contributions are integrated gradients that add up to its logits", {
  df <- explain_data(n = 400)
  df$f <- factor(sample(c("u", "v", "w"), nrow(df), TRUE))
  df$y <- df$y + (df$f == "u")
  cols <- feature_columns(column_numeric("a"), column_numeric("b"), column_numeric("c"), uvw_indicator())
  est <- dnn_regressor(c(16, 8), cols)
  suppressMessages(train(est, df, response = "y", num_epochs = 10))
  contrib <- predict(est, df[1:100, ], type = "contributions", reference = df)
  expect_named(contrib, c("a", "b", "c", "f", ".baseline"))
  pred <- predict(est, df[1:100, ])$predictions
  expect_lt(max(abs(rowSums(contrib) - pred)), 1e-3)
  # the baseline is the logit at the reference rows' mean input layer
  means <- data.frame(a = mean(df$a), b = mean(df$b), c = mean(df$c), f = "u")
  expect_equal(length(unique(contrib$.baseline)), 1L)
  # a feature equal to its mean contributes nothing
  at_mean <- df[1:5, ]
  at_mean$a <- mean(df$a)
  expect_lt(max(abs(predict(est, at_mean, type = "contributions", reference = df)$a)), 1e-6)
  # binary and multi-class classifiers: one set per logit
  df$k <- factor(cut(df$y, 3, labels = c("lo", "mid", "hi")))
  cls <- dnn_classifier(c(8), cols, n_classes = 3, label_vocabulary = c("lo", "mid", "hi"))
  suppressMessages(train(cls, df[c("a", "b", "c", "f", "k")], response = "k", num_epochs = 5))
  per_class <- predict(cls, df[1:30, ], type = "contributions", reference = df, integration_steps = 20)
  expect_named(per_class, c("lo", "mid", "hi"))
  logits <- do.call(rbind, predict(cls, df[1:30, ])$logits)
  expect_lt(max(abs(sapply(per_class, rowSums) - logits)), 1e-3)
  expect_error(predict(est, df[1:3, ], type = "contributions"), "give `reference`",
               class = "cppestimators_argument_error")
  # wide & deep: the linear part's terms against their reference means, the deep part's integrated gradients
  wide <- dnn_linear_combined_regressor(linear_feature_columns = cols[c(1, 4)], dnn_feature_columns = cols[2:4],
                                        dnn_hidden_units = c(8, 4))
  suppressMessages(train(wide, df, response = "y", num_epochs = 5))
  contrib <- predict(wide, df[1:100, ], type = "contributions", reference = df)
  expect_named(contrib, c("a", "b", "c", "f", ".baseline"))
  expect_lt(max(abs(rowSums(contrib) - predict(wide, df[1:100, ])$predictions)), 1e-3)
  # contributions average to about zero over the reference rows themselves
  whole <- predict(wide, df, type = "contributions", reference = df)
  expect_lt(abs(mean(whole$a)), 1e-4)
})

test_that("treeshap computes our contributions from our trees and covers; shapviz takes them in one call", {
  skip_if_not_installed("treeshap")
  df <- explain_data(n = 400)
  cols <- feature_columns(column_numeric("a"), column_numeric("b"), column_numeric("c"))
  est <- boosted_trees_regressor(cols, growth = "depthwise", n_trees = 20, max_depth = 4, learning_rate = 0.3)
  suppressMessages(train(est, df, response = "y"))
  x <- df[1:50, c("a", "b", "c")]
  x$b[1:3] <- NA  # missing values follow the trees' default directions in both
  unified <- treeshap::unify(est, x)
  expect_s3_class(unified, "model_unified")
  theirs <- suppressMessages(treeshap::treeshap(unified, x, verbose = FALSE))$shaps
  ours <- predict(est, x, type = "contributions")
  expect_lt(max(abs(as.matrix(theirs) - as.matrix(ours[c("a", "b", "c")]))), 1e-6)
  skip_if_not_installed("shapviz")
  sv <- shapviz::shapviz(est, X_pred = x)
  expect_s3_class(sv, "shapviz")
  expect_equal(unname(shapviz::get_shap_values(sv)), unname(as.matrix(ours[c("a", "b", "c")])))
  expect_equal(shapviz::get_baseline(sv), ours$.baseline[1])
  expect_true(inherits(shapviz::sv_importance(sv), "ggplot"))
})

test_that("fit_contributions() explains parsnip fits and workflows through their preprocessing", {
  skip_if_not_installed("parsnip")
  skip_if_not_installed("workflows")
  skip_if_not_installed("recipes")
  df <- explain_data(n = 300)
  df$g <- factor(sample(c("p", "q", "r"), nrow(df), TRUE))
  spec <- parsnip::set_engine(parsnip::boost_tree(trees = 10, tree_depth = 3, mode = "regression"), "cppestimators")
  fit <- suppressMessages(parsnip::fit(spec, y ~ a + b + c + g, data = df))
  contrib <- fit_contributions(fit, df[1:20, ])
  expect_named(contrib, c("a", "b", "c", "g", ".baseline"))
  expect_lt(max(abs(rowSums(contrib) - predict(fit, df[1:20, ])$.pred)), 1e-5)
  rec <- recipes::step_dummy(recipes::step_normalize(recipes::recipe(y ~ ., data = df),
                                                     recipes::all_numeric_predictors()),
                             recipes::all_nominal_predictors())
  wf <- suppressMessages(parsnip::fit(workflows::add_model(workflows::add_recipe(workflows::workflow(), rec), spec), df))
  contrib <- fit_contributions(wf, df[1:20, ])
  expect_named(contrib, c("a", "b", "c", "g_q", "g_r", ".baseline"))
  expect_lt(max(abs(rowSums(contrib) - predict(wf, df[1:20, ])$.pred)), 1e-5)
  expect_error(fit_contributions(lm(y ~ a, df), df), "must be a parsnip fit", class = "cppestimators_argument_error")
})
