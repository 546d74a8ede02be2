# Monotone and interaction constraints of boosted trees and the limits of a
# linear model's weights (R/constraints.R,
# src/engine/model/trees/constraints.cpp), in every growth.

constraint_data <- function(n = 2000) {
  set.seed(11)
  df <- data.frame(x = runif(n), z = runif(n), w = runif(n))
  # rising in x overall, with wiggles a free fit follows
  df$y <- as.integer(runif(n) < plogis(2 * df$x + 1.5 * sin(25 * df$x) + 2 * df$z - 2))
  df
}

constrained_trees <- function(df, growth, ...) {
  cols <- feature_columns(column_numeric("x"), column_numeric("z"), column_numeric("w"))
  if (growth == "tensorflow") {
    est <- boosted_trees_classifier(cols, n_batches_per_layer = 1, n_trees = 20, max_depth = 4, growth = growth, ...)
    train(est, input_fn(df, response = "y", batch_size = nrow(df), num_epochs = NULL))
  } else {
    est <- boosted_trees_classifier(cols, n_trees = 20, max_depth = 4, growth = growth, ...)
    train(est, df, response = "y")
  }
  est
}

# The logits over a 100-point grid of x, for each of `rows` rows of the
# other features: a matrix 100 x rows.
logit_curves <- function(est, rows) {
  xs <- seq(0, 1, length.out = 100)
  g <- rows[rep(seq_len(nrow(rows)), each = length(xs)), , drop = FALSE]
  g$x <- rep(xs, nrow(rows))
  matrix(predict(est, g)$logits, length(xs))
}

test_that("a monotone constraint holds on every row's curve, in every growth", {
  df <- constraint_data()
  rows <- df[1:20, c("z", "w")]
  for (growth in c("depthwise", "lossguide", "tensorflow")) {
    free <- logit_curves(constrained_trees(df, growth), rows)
    expect_true(min(diff(free)) < -0.01)  # the free fit follows the wiggles down
    up <- logit_curves(constrained_trees(df, growth, monotone_constraints = c(x = 1)), rows)
    expect_gte(min(diff(up)), 0)
    expect_gt(max(up[100, ] - up[1, ]), 0.5)  # and still rises with x
    down <- logit_curves(constrained_trees(df, growth, monotone_constraints = c(x = -1)), rows)
    expect_lte(max(diff(down)), 0)
  }
})

test_that("positional monotone constraints follow the features' order", {
  df <- constraint_data(1000)
  named <- constrained_trees(df, "depthwise", monotone_constraints = c(x = 1))
  positional <- constrained_trees(df, "depthwise", monotone_constraints = c(1, 0, 0))
  expect_identical(named$spec$model$monotone_columns, c("x"))
  expect_identical(positional$spec$model$monotone_columns, c("x", "z", "w"))
  expect_identical(positional$spec$model$monotone_directions, c(1, 0, 0))
  expect_output(print(named), "monotone: +x \\(increasing\\)")
  expect_equal(predict(named, df[1:50, ])$logits, predict(positional, df[1:50, ])$logits)
})

# Every root-to-leaf path's features, from boosted_trees_ensemble().
path_feature_sets <- function(est) {
  ens <- boosted_trees_ensemble(est)
  out <- list()
  for (t in unique(ens$tree)) {
    nodes <- ens[ens$tree == t, ]
    walk <- function(id, used) {
      node <- nodes[nodes$node_id == id, ]
      if (isTRUE(node$is_leaf) || is.na(node$left_id)) {
        out[[length(out) + 1L]] <<- unique(used)
        return(invisible())
      }
      used <- c(used, sub("[:\\[].*$", "", node$feature))
      walk(node$left_id, used)
      walk(node$right_id, used)
    }
    walk(0L, character())
  }
  out
}

test_that("interaction-constrained trees use only allowed sets on every path", {
  set.seed(3)
  n <- 2000
  df <- data.frame(a = runif(n), b = runif(n), c = runif(n), d = runif(n))
  df$y <- as.integer(runif(n) < plogis(3 * (df$a > 0.5) * (df$c > 0.5) + 2 * df$b * df$d - 1.5))
  cols <- feature_columns(column_numeric("a"), column_numeric("b"), column_numeric("c"), column_numeric("d"))
  sets <- list(c("a", "b"), c("c", "d"))
  within <- function(paths) all(vapply(paths, function(p) all(p %in% sets[[1]]) || all(p %in% sets[[2]]), NA))
  for (growth in c("depthwise", "lossguide", "tensorflow")) {
    fit <- function(...) {
      if (growth == "tensorflow") {
        est <- boosted_trees_classifier(cols, n_batches_per_layer = 1, n_trees = 10, max_depth = 4, ...)
        train(est, input_fn(df, response = "y", batch_size = n, num_epochs = NULL))
      } else {
        est <- boosted_trees_classifier(cols, n_trees = 10, max_depth = 4, growth = growth, ...)
        train(est, df, response = "y")
      }
      est
    }
    expect_false(within(path_feature_sets(fit())), info = growth)
    paths <- path_feature_sets(fit(interaction_constraints = sets))
    expect_true(within(paths), info = growth)
    expect_true(any(vapply(paths, function(p) length(p) >= 2L, NA)), info = growth)
  }
})

test_that("a feature in no interaction set is used alone on its paths; positions work as names", {
  set.seed(4)
  n <- 1500
  df <- data.frame(a = runif(n), b = runif(n), c = runif(n))
  df$y <- df$a * df$c + df$b + rnorm(n, sd = 0.1)
  cols <- feature_columns(column_numeric("a"), column_numeric("b"), column_numeric("c"))
  est <- boosted_trees_regressor(cols, n_trees = 10, max_depth = 4, growth = "depthwise",
                                 interaction_constraints = list(c(1, 2)))
  train(est, df, response = "y")
  paths <- path_feature_sets(est)
  expect_true(all(vapply(paths, function(p) !"c" %in% p || identical(p, "c"), NA)))
  expect_true(any(vapply(paths, function(p) identical(p, "c"), NA)))
  expect_identical(est$spec$model$interaction_columns, c("a", "b"))
  expect_output(print(est), "interactions within: \\{a, b\\}")
})

test_that("bad constraints are refused with the known features", {
  g <- column_categorical_with_vocabulary_list("g", vocabulary_list = c("a", "b"))
  cols <- feature_columns(column_numeric("x"), column_indicator(g))
  expect_error(boosted_trees_classifier(cols, growth = "depthwise", monotone_constraints = c(y = 1)),
               "names 'y', which is not a feature of the model.*The features: x, g",
               class = "cppestimators_argument_error")
  expect_error(boosted_trees_classifier(cols, growth = "depthwise", monotone_constraints = c(g = 1)),
               "'g' is read by .*a categorical column, whose categories have no order",
               class = "cppestimators_argument_error")
  expect_error(boosted_trees_classifier(cols, growth = "depthwise", monotone_constraints = c(x = 2)),
               "numeric vector of -1 \\(decreasing\\), 0 and 1", class = "cppestimators_argument_error")
  expect_error(boosted_trees_classifier(cols, growth = "depthwise", monotone_constraints = c(1, 0, 0)),
               "one direction per feature of the model \\(2: x, g\\), not 3", class = "cppestimators_argument_error")
  expect_error(boosted_trees_classifier(cols, growth = "depthwise", interaction_constraints = list(c("x", "q"))),
               "names 'q'.*The features: x, g", class = "cppestimators_argument_error")
  expect_error(boosted_trees_classifier(cols, growth = "depthwise", interaction_constraints = c("x", "g")),
               "must be a list of sets of features", class = "cppestimators_argument_error")
  expect_error(boosted_trees_classifier(feature_columns(column_numeric("x")), n_batches_per_layer = 1,
                                        n_classes = 3, monotone_constraints = c(x = 1)),
               "monotone_constraints need one logit in TensorFlow's growth")
  # a factor expanded into dummy variables
  dummies <- feature_columns(column_numeric("x"), column_numeric("grade_B"), column_numeric("grade_C"))
  expect_error(boosted_trees_classifier(dummies, growth = "depthwise", monotone_constraints = c(grade = 1)),
               "expanded into dummy columns \\(grade_B, grade_C\\).*can not be monotone",
               class = "cppestimators_argument_error")
})

test_that("through parsnip and a recipe, a named constraint reaches the engine", {
  skip_if_not_installed("parsnip")
  skip_if_not_installed("recipes")
  skip_if_not_installed("workflows")
  df <- constraint_data(1500)
  df$y <- factor(df$y, levels = c(0, 1))
  df$g <- factor(sample(c("p", "q", "r"), nrow(df), TRUE))
  rec <- recipes::recipe(y ~ ., data = df)
  rec <- recipes::step_normalize(rec, recipes::all_numeric_predictors())
  rec <- recipes::step_dummy(rec, recipes::all_nominal_predictors())
  spec <- parsnip::boost_tree(trees = 20, tree_depth = 4, mode = "classification")
  spec <- parsnip::set_engine(spec, "cppestimators", monotone_constraints = c(x = 1),
                              interaction_constraints = list(c("x", "z"), c("w", "g")))
  wf <- workflows::add_model(workflows::add_recipe(workflows::workflow(), rec), spec)
  fitted <- parsnip::fit(wf, df)
  est <- parsnip::extract_fit_engine(fitted)
  expect_identical(est$spec$model$monotone_columns, "x")
  expect_setequal(est$spec$model$interaction_columns, c("x", "z", "w", "g_q", "g_r"))
  rows <- df[rep(1:10, each = 100), ]
  rows$x <- rep(seq(0, 1, length.out = 100), 10)
  p <- matrix(predict(fitted, rows, type = "prob")$.pred_1, 100)
  expect_gte(min(diff(p)), 0)
  spec2 <- parsnip::set_engine(spec, "cppestimators", monotone_constraints = c(g = 1))
  wf2 <- workflows::add_model(workflows::add_recipe(workflows::workflow(), rec), spec2)
  expect_error(parsnip::fit(wf2, df), "expanded into dummy columns \\(g_q, g_r\\)")
})

test_that("linear limits are glmnet's lower.limits / upper.limits", {
  skip_if_not_installed("parsnip")
  skip_if_not_installed("glmnet")
  x <- as.matrix(mtcars[-1])
  scale <- apply(x, 2, stats::sd) * sqrt(31 / 32)  # glmnet's standardization (1/n)
  # unconstrained, cyl, disp, wt and carb have negative slopes at this penalty
  upper <- c(cyl = 0, disp = 0, hp = 0, drat = Inf, wt = 0, qsec = Inf, vs = Inf, am = Inf, gear = Inf, carb = 0)
  cases <- list(list(lower = 0, upper = NULL, glmnet_lower = 0, glmnet_upper = Inf),
                list(lower = NULL, upper = upper, glmnet_lower = -Inf, glmnet_upper = upper[colnames(x)]))
  for (case in cases) {
    set.seed(1)
    fit <- suppressMessages(parsnip::fit(parsnip::set_engine(
      parsnip::linear_reg(penalty = 0.1, mixture = 1), "cppestimators", epochs = 20000, tolerance = 0,
      lower_limits = case$lower, upper_limits = case$upper), mpg ~ ., mtcars))
    ours <- tidy(parsnip::extract_fit_engine(fit))
    ref <- as.matrix(stats::coef(glmnet::glmnet(x, mtcars$mpg, lambda = 0.1, thresh = 1e-12,
                                                lower.limits = case$glmnet_lower,
                                                upper.limits = case$glmnet_upper)))[, 1]
    slopes <- stats::setNames(ours$estimate, ours$term)[names(ref)[-1]]
    expect_gte(min(slopes - case$glmnet_lower), 0)
    expect_lte(max(slopes - case$glmnet_upper), 0)
    expect_lt(max(abs((slopes - ref[-1]) * scale)), 0.03)  # in standard deviations of the predictors
    expect_equal(abs(slopes * scale) > 1e-3, ref[-1] != 0)  # the same predictors at zero
  }
})

test_that("linear limits bound every category's weight and are checked", {
  set.seed(5)
  df <- data.frame(x = runif(200), g = sample(c("a", "b", "c"), 200, TRUE))
  df$y <- 2 - 3 * df$x + ifelse(df$g == "a", -2, 1) + rnorm(200, sd = 0.1)
  g <- column_categorical_with_vocabulary_list("g", vocabulary_list = c("a", "b", "c"))
  cols <- feature_columns(column_numeric("x"), g)
  est <- linear_regressor(cols, optimizer = optimizer_ftrl(0.5), lower_limits = c(x = 0, g = 0))
  train(est, df, response = "y", num_epochs = 50, batch_size = 50)
  expect_output(print(est), "weight limits: +x \\[0, Inf\\], g \\[0, Inf\\]")
  co <- coef(est)
  expect_true(all(co[names(co) != "(Intercept)"] >= 0))
  expect_equal(unname(co[grep("^x", names(co))]), 0)  # its free slope is -3
  expect_error(linear_regressor(cols, lower_limits = 1), "`lower_limits` must be numbers <= 0",
               class = "cppestimators_argument_error")
  expect_error(linear_regressor(cols, upper_limits = c(q = 1)), "names 'q', which is not a feature.*x, g",
               class = "cppestimators_argument_error")
  expect_error(linear_regressor(cols, upper_limits = c(1, 2, 3)), "one per feature of the model \\(2: x, g\\), not 3",
               class = "cppestimators_argument_error")
  emb <- feature_columns(column_embedding(column_categorical_with_vocabulary_list("g", vocabulary_list = c("a", "b")),
                                          dimension = 2))
  expect_error(linear_regressor(emb, lower_limits = 0), "an embedding, whose weights have no sign",
               class = "cppestimators_argument_error")
  expect_error(suppressMessages(parsnip::fit(parsnip::set_engine(parsnip::boost_tree(mode = "regression"),
                                                                 "cppestimators", lower_limits = 0), mpg ~ ., mtcars)),
               "engine arguments of linear_reg")
})

test_that("on lending_club, P(bad) never falls as int_rate rises, for 500 rows over a 100-point grid", {
  skip_if_not_installed("modeldata")
  d <- as.data.frame(modeldata::lending_club)
  set.seed(55)
  test_rows <- sample(nrow(d), 500)
  est <- boosted_trees_classifier(feature_columns_from_data(d[-test_rows, ], -Class), growth = "depthwise",
                                  n_trees = 30, max_depth = 4, monotone_constraints = c(int_rate = -1))
  train(est, d[-test_rows, ], response = "Class")
  grid <- d[rep(test_rows, each = 100), ]
  grid$int_rate <- rep(seq(min(d$int_rate), max(d$int_rate), length.out = 100), 500)
  p_bad <- matrix(1 - predict(est, grid)$logistic, 100)  # (logistic: P of the second level, good)
  expect_gte(min(diff(p_bad)), 0)
  expect_gt(min(p_bad[100, ] - p_bad[1, ]), 0.01)  # and it does rise
})
