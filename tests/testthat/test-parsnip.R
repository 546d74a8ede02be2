# The "cppestimators" engines of parsnip: registration, fits of the five
# model types, their predictions, the mapping of arguments, workflows and
# tuning.

skip_if_no_parsnip <- function() {
  skip_if_not_installed("parsnip")
}

mtcars_am <- function() {
  d <- mtcars
  d$am <- factor(d$am)
  d
}

# Fits `spec` on `data` with the formula, quietly, from a fixed seed.
fit_quietly <- function(spec, formula, data, seed = 1) {
  set.seed(seed)
  briefly_quietly(parsnip::fit(spec, formula, data = data))
}

briefly_quietly <- function(expr) briefly(quietly(expr))

expect_regression_predictions <- function(fit, new_data) {
  p <- predict(fit, new_data)
  expect_s3_class(p, "tbl_df")
  expect_named(p, ".pred")
  expect_type(p$.pred, "double")
  expect_equal(nrow(p), nrow(new_data))
  expect_true(all(is.finite(p$.pred)))
  invisible(p)
}

expect_class_predictions <- function(fit, new_data, levels) {
  cls <- predict(fit, new_data)
  expect_named(cls, ".pred_class")
  expect_s3_class(cls$.pred_class, "factor")
  expect_identical(levels(cls$.pred_class), levels)
  expect_equal(nrow(cls), nrow(new_data))
  prob <- predict(fit, new_data, type = "prob")
  expect_named(prob, paste0(".pred_", levels))
  expect_equal(nrow(prob), nrow(new_data))
  for (col in prob) expect_type(col, "double")
  expect_equal(rowSums(as.matrix(prob)), rep(1, nrow(new_data)), tolerance = 1e-6)
  # the class is the most probable one
  expect_identical(as.character(cls$.pred_class), levels[max.col(as.matrix(prob), ties.method = "first")])
  invisible(list(class = cls, prob = prob))
}

test_that("the engines are registered for every model type and mode", {
  skip_if_no_parsnip()
  modes <- list(linear_reg = c("regression", "quantile regression"), logistic_reg = "classification",
                multinom_reg = "classification", mlp = c("classification", "regression", "quantile regression"),
                boost_tree = c("classification", "regression", "quantile regression"), poisson_reg = "regression")
  for (model in names(modes)) {
    engines <- parsnip::show_engines(model)
    expect_setequal(engines$mode[engines$engine == "cppestimators"], modes[[model]])
  }
})

test_that("the engines are registered whether parsnip is loaded before or after", {
  skip_if_no_parsnip()
  skip_if_not_installed("callr")
  check <- function(first) {
    callr::r(function(first) {
      if (first == "parsnip") loadNamespace("parsnip")
      loadNamespace("cppestimators")
      loadNamespace("parsnip")
      e <- parsnip::show_engines("boost_tree")
      sort(e$mode[e$engine == "cppestimators"])
    }, args = list(first = first), libpath = .libPaths())
  }
  expect_identical(check("parsnip"), c("classification", "quantile regression", "regression"))
  expect_identical(check("cppestimators"), c("classification", "quantile regression", "regression"))
})

test_that("linear_reg() fits a linear regressor and predicts .pred", {
  skip_if_no_parsnip()
  spec <- parsnip::set_engine(parsnip::linear_reg(), "cppestimators", epochs = 50)
  fit <- fit_quietly(spec, mpg ~ wt + hp, mtcars)
  est <- parsnip::extract_fit_engine(fit)
  expect_s3_class(est, "tf_estimator_regressor_linear_regressor")
  expect_regression_predictions(fit, mtcars)
  expect_regression_predictions(fit, mtcars[1:5, ])
  # the same predictions as the estimator's own
  native <- predict(est, input_fn(mtcars, features = c("wt", "hp")))$predictions
  expect_equal(predict(fit, mtcars)$.pred, native)
})

test_that("logistic_reg() classifies a two-level outcome with its levels", {
  skip_if_no_parsnip()
  d <- mtcars_am()
  fit <- fit_quietly(parsnip::set_engine(parsnip::logistic_reg(), "cppestimators"), am ~ ., d)
  est <- parsnip::extract_fit_engine(fit)
  expect_s3_class(est, "tf_estimator_classifier_linear_classifier")
  expect_identical(est$spec$label_vocabulary, c("0", "1"))
  p <- expect_class_predictions(fit, d, c("0", "1"))
  expect_gt(mean(p$class$.pred_class == d$am), 0.75)
})

test_that("multinom_reg() fits a softmax classifier on iris", {
  skip_if_no_parsnip()
  spec <- parsnip::set_engine(parsnip::multinom_reg(), "cppestimators", epochs = 50)
  fit <- fit_quietly(spec, Species ~ ., iris)
  est <- parsnip::extract_fit_engine(fit)
  expect_identical(est$spec$head_n, 3L)
  p <- expect_class_predictions(fit, iris, levels(iris$Species))
  expect_gt(mean(p$class$.pred_class == iris$Species), 0.9)
  expect_class_predictions(fit, iris[c(1, 51, 101), ], levels(iris$Species))
})

test_that("mlp() fits DNN regressors and classifiers", {
  skip_if_no_parsnip()
  reg <- fit_quietly(parsnip::set_mode(parsnip::set_engine(parsnip::mlp(epochs = 10), "cppestimators"),
                                       "regression"), mpg ~ ., mtcars)
  expect_s3_class(parsnip::extract_fit_engine(reg), "tf_estimator_regressor_dnn_regressor")
  expect_regression_predictions(reg, mtcars)
  cls <- fit_quietly(parsnip::set_mode(parsnip::set_engine(parsnip::mlp(hidden_units = 10, epochs = 50),
                                                           "cppestimators"), "classification"),
                     Species ~ ., iris)
  expect_s3_class(parsnip::extract_fit_engine(cls), "tf_estimator_classifier_dnn_classifier")
  p <- expect_class_predictions(cls, iris, levels(iris$Species))
  expect_gt(mean(p$class$.pred_class == iris$Species), 0.9)
})

test_that("boost_tree() fits boosted trees regressors and classifiers", {
  skip_if_no_parsnip()
  spec <- parsnip::set_engine(parsnip::boost_tree(trees = 20, tree_depth = 3), "cppestimators")
  reg <- fit_quietly(parsnip::set_mode(spec, "regression"), mpg ~ ., mtcars)
  expect_s3_class(parsnip::extract_fit_engine(reg), "tf_estimator_regressor_boosted_trees_regressor")
  p <- expect_regression_predictions(reg, mtcars)
  expect_lt(sqrt(mean((p$.pred - mtcars$mpg)^2)), stats::sd(mtcars$mpg))
  d <- mtcars_am()
  cls <- fit_quietly(parsnip::set_mode(spec, "classification"), am ~ ., d)
  expect_s3_class(parsnip::extract_fit_engine(cls), "tf_estimator_classifier_boosted_trees_classifier")
  p <- expect_class_predictions(cls, d, c("0", "1"))
  expect_gt(mean(p$class$.pred_class == d$am), 0.9)
})

test_that("factor predictors reach the estimators as factors", {
  skip_if_no_parsnip()
  specs <- list(
    linear = parsnip::set_engine(parsnip::linear_reg(), "cppestimators", epochs = 5),
    dnn = parsnip::set_mode(parsnip::set_engine(parsnip::mlp(epochs = 5), "cppestimators"), "regression"),
    trees = parsnip::set_mode(parsnip::set_engine(parsnip::boost_tree(trees = 3), "cppestimators"),
                              "regression"))
  kinds <- c(linear = "vocabulary_list", dnn = "indicator", trees = "indicator")
  for (nm in names(specs)) {
    fit <- fit_quietly(specs[[nm]], Sepal.Length ~ ., iris)
    cols <- parsnip::extract_fit_engine(fit)$spec$feature_columns
    reads_species <- function(col) {
      identical(col$name, "Species") || identical(col$categorical_column$name, "Species")
    }
    species <- Filter(reads_species, cols)
    expect_length(species, 1L)
    expect_identical(species[[1]]$kind, kinds[[nm]])
    expect_regression_predictions(fit, iris[c(1, 60, 150), ])
  }
  # new data are checked against what training saw (here with fit_xy(): a
  # formula's model frame would refuse the level before the estimator sees it)
  set.seed(1)
  fit <- briefly_quietly(parsnip::fit_xy(specs$trees, x = iris[-1], y = iris$Sepal.Length))
  odd <- iris[1:3, -1]
  odd$Species <- factor(c("setosa", "setosa", "unknown"))
  expect_error(predict(fit, odd), "feature 'Species' has a value not seen in training: 'unknown'",
               class = "cppestimators_error")
})

test_that("parsnip's arguments reach the estimator's spec", {
  skip_if_no_parsnip()
  trees <- fit_quietly(parsnip::set_mode(parsnip::set_engine(
    parsnip::boost_tree(trees = 7, tree_depth = 2, learn_rate = 0.3, min_n = 4, loss_reduction = 0.5),
    "cppestimators", growth = "tensorflow"), "regression"), mpg ~ ., mtcars)
  m <- parsnip::extract_fit_engine(trees)$spec$model
  expect_identical(m$n_trees, 7)
  expect_identical(m$max_depth, 2)
  expect_identical(m$learning_rate, 0.3)
  # xgboost's scale (sums over the 32 rows of one batch of half the squared
  # error) to the estimator's (means of the squared error, gains without 1/2)
  expect_equal(m$tree_complexity, 4 * 0.5 / 32)
  expect_equal(m$min_child_weight, 2 * 4 / 32)
  expect_equal(m$l2_regularization, 2 * 1 / 32)  # xgboost's default lambda
  expect_equal(m$pruning_mode, "pre")
  expect_true(m$center_bias)
  expect_identical(m$n_batches_per_layer, 1)

  hist <- fit_quietly(parsnip::set_mode(parsnip::set_engine(
    parsnip::boost_tree(trees = 7, tree_depth = 2, learn_rate = 0.3, min_n = 4, loss_reduction = 0.5),
    "cppestimators"), "regression"), mpg ~ ., mtcars)
  h <- parsnip::extract_fit_engine(hist)$spec$model
  expect_identical(h$growth, "depthwise")
  expect_equal(c(h$tree_complexity, h$min_node_weight, h$l2_regularization), c(0.5, 4, 1))  # xgboost's scale

  dnn <- fit_quietly(parsnip::set_mode(parsnip::set_engine(
    parsnip::mlp(hidden_units = 3, dropout = 0.1, activation = "tanh", learn_rate = 0.02, epochs = 2),
    "cppestimators", optimizer = "Adam"), "regression"), mpg ~ ., mtcars)
  spec <- parsnip::extract_fit_engine(dnn)$spec
  expect_identical(spec$model$hidden_units, 3)
  expect_identical(spec$model$activation_fn, "tanh")
  expect_identical(spec$model$dropout, 0.1)
  expect_identical(spec$optimizer$name, "Adam")
  expect_identical(spec$optimizer$learning_rate, 0.02)

  ftrl <- fit_quietly(parsnip::set_mode(parsnip::set_engine(parsnip::mlp(penalty = 0.3, epochs = 1),
                                                            "cppestimators", optimizer = "Ftrl"),
                                        "regression"), mpg ~ ., mtcars)
  expect_identical(parsnip::extract_fit_engine(ftrl)$spec$optimizer$l2_regularization_strength, 0.3)

  lin <- fit_quietly(parsnip::set_engine(parsnip::linear_reg(penalty = 0.2, mixture = 0.25),
                                         "cppestimators", epochs = 1), mpg ~ ., mtcars)
  opt <- parsnip::extract_fit_engine(lin)$spec$optimizer
  expect_identical(opt$name, "Ftrl")
  # glmnet's penalty of the mean loss: per step, times the 32 rows of the batch, twice for squared error
  expect_equal(opt$l1_regularization_strength, 32 * 2 * 0.2 * 0.25)
  # (and glmnet's gaussian L2 term, divided by the outcome's sd)
  expect_equal(opt$l2_regularization_strength, 32 * 2 * 0.2 * 0.75 / 2 / (stats::sd(mtcars$mpg) * sqrt(31 / 32)))
  expect_true(opt$penalty_per_step)
})

test_that("epochs, steps and batch_size set the length of training", {
  skip_if_no_parsnip()
  step_of <- function(fit) variable_value(parsnip::extract_fit_engine(fit), "global_step")[[1]]
  spec <- parsnip::set_engine(parsnip::linear_reg(), "cppestimators", epochs = 3, batch_size = 8)
  expect_equal(step_of(fit_quietly(spec, mpg ~ wt, mtcars)), 12)  # 3 * 32 rows / 8
  spec <- parsnip::set_engine(parsnip::linear_reg(), "cppestimators", steps = 7, optimizer = "Ftrl")
  expect_equal(step_of(fit_quietly(spec, mpg ~ wt, mtcars)), 7)
  # the coordinate-descent solver (no optimizer asked for) ends training
  # itself: least squares is exact after one Newton step, the second
  # finds nothing left to lower
  spec <- parsnip::set_engine(parsnip::linear_reg(), "cppestimators", steps = 7)
  fit <- fit_quietly(spec, mpg ~ wt, mtcars)
  expect_equal(step_of(fit), 2)
  td <- tidy(parsnip::extract_fit_engine(fit))
  expect_equal(stats::setNames(td$estimate, td$term)[c("(Intercept)", "wt")], coef(lm(mpg ~ wt, mtcars)),
               tolerance = 1e-5)
  hist <- parsnip::set_mode(parsnip::set_engine(parsnip::boost_tree(trees = 4, tree_depth = 2, min_n = 0),
                                                "cppestimators"), "classification")
  expect_equal(step_of(fit_quietly(hist, am ~ ., mtcars_am())), 4)  # the default growth: one tree per step
  trees <- parsnip::set_mode(parsnip::set_engine(parsnip::boost_tree(trees = 4, tree_depth = 2, min_n = 0),
                                                 "cppestimators", growth = "tensorflow"), "classification")
  expect_equal(step_of(fit_quietly(trees, am ~ ., mtcars_am())), 8)  # TensorFlow's: one layer per step
  # regression first centers its bias on the outcome's mean, a step each
  trees <- parsnip::set_mode(trees, "regression")
  expect_gt(step_of(fit_quietly(trees, mpg ~ ., mtcars)), 8)
})

test_that("stop_iter stops boosting on the validation rows", {
  skip_if_no_parsnip()
  set.seed(3)
  d <- data.frame(x = runif(200), z = runif(200))
  d$y <- d$x + stats::rnorm(200, sd = 0.5)
  spec <- parsnip::set_mode(parsnip::set_engine(
    parsnip::boost_tree(trees = 200, tree_depth = 4, learn_rate = 0.5, stop_iter = 3),
    "cppestimators", validation = 0.3, model_dir = tempfile()), "regression")
  fit <- fit_quietly(spec, y ~ ., d)
  est <- parsnip::extract_fit_engine(fit)
  expect_lt(variable_value(est, "global_step")[[1]], 200 * 4)
  ev <- read_summaries(file.path(model_dir(est), "eval"))
  expect_true("average_loss" %in% ev$tag)
})

test_that("engine arguments: model_dir, config, hooks, and quiet fits", {
  skip_if_no_parsnip()
  parent <- tempfile("parsnip-dirs-")
  dir.create(parent)
  on.exit(unlink(parent, recursive = TRUE))
  seen <- new.env()
  hooks <- function(est) {
    seen$est <- est
    list(session_run_hook(end = function(session) seen$ended <- TRUE))
  }
  spec <- parsnip::set_engine(parsnip::linear_reg(), "cppestimators", model_dir = parent,
                              config = run_config(save_summary_steps = 1, tf_random_seed = 9),
                              hooks = hooks, epochs = 2)
  set.seed(1)
  out <- utils::capture.output(
    err <- utils::capture.output(fit <- briefly(parsnip::fit(spec, mpg ~ wt, data = mtcars)), type = "message"))
  expect_identical(out, character())
  expect_identical(err, character())
  est <- parsnip::extract_fit_engine(fit)
  expect_identical(dirname(model_dir(est)), normalizePath(parent))
  expect_identical(est$spec$config$tf_random_seed, 9)
  expect_true(isTRUE(seen$ended))
  expect_identical(seen$est$state, est$state)
  expect_true("loss" %in% read_summaries(est)$tag)
  # a second fit gets a directory of its own
  fit2 <- briefly_quietly(parsnip::fit(spec, mpg ~ wt, data = mtcars))
  expect_false(identical(model_dir(parsnip::extract_fit_engine(fit2)), model_dir(est)))
})

test_that("fits are reproducible from set.seed()", {
  skip_if_no_parsnip()
  spec <- parsnip::set_mode(parsnip::set_engine(parsnip::mlp(epochs = 3), "cppestimators"), "regression")
  a <- predict(fit_quietly(spec, mpg ~ ., mtcars, seed = 5), mtcars)
  b <- predict(fit_quietly(spec, mpg ~ ., mtcars, seed = 5), mtcars)
  expect_identical(a, b)
})

test_that("fit_xy() takes a matrix of predictors", {
  skip_if_no_parsnip()
  x <- as.matrix(mtcars[, c("wt", "hp", "disp")])
  spec <- parsnip::set_mode(parsnip::set_engine(parsnip::boost_tree(trees = 3), "cppestimators"),
                            "regression")
  set.seed(1)
  fit <- briefly_quietly(parsnip::fit_xy(spec, x = x, y = mtcars$mpg))
  expect_regression_predictions(fit, x[1:4, ])
})

test_that("unsupported uses are errors of the package", {
  skip_if_no_parsnip()
  expect_error(cppestimators::fit_cppestimators(iris[1:4], iris$Species, model = "logistic_reg"),
               "use multinom_reg", class = "cppestimators_error")
  dnn <- parsnip::set_mode(parsnip::set_engine(parsnip::mlp(penalty = 0.1), "cppestimators"), "regression")
  expect_error(fit_quietly(dnn, mpg ~ ., mtcars), "needs the FTRL optimizer", class = "cppestimators_error")
  odd <- parsnip::set_mode(parsnip::set_engine(parsnip::mlp(), "cppestimators", stepz = 3), "regression")
  expect_error(fit_quietly(odd, mpg ~ ., mtcars), "unknown engine argument.*`stepz`. Did you mean `steps`\\?",
               class = "cppestimators_error")
  bad_opt <- parsnip::set_engine(parsnip::linear_reg(), "cppestimators", optimizer = "Nesterov")
  expect_error(fit_quietly(bad_opt, mpg ~ ., mtcars), "`optimizer` must be one of", class = "cppestimators_error")
  expect_error(fit_cppestimators(mtcars["wt"], as.matrix(mtcars[c("mpg", "disp")]), model = "linear_reg"),
               "one outcome, not several", class = "cppestimators_error")
})

test_that("workflows fit with a formula and with a recipe", {
  skip_if_no_parsnip()
  skip_if_not_installed("workflows")
  skip_if_not_installed("recipes")
  spec <- parsnip::set_mode(parsnip::set_engine(parsnip::mlp(hidden_units = 8, epochs = 40), "cppestimators"),
                            "classification")
  rec <- recipes::recipe(Species ~ ., data = iris)
  rec <- recipes::step_normalize(rec, recipes::all_numeric_predictors())
  set.seed(1)
  wf_rec <- briefly_quietly(parsnip::fit(workflows::workflow(rec, spec), iris))
  p <- expect_class_predictions(wf_rec, iris, levels(iris$Species))
  expect_gt(mean(p$class$.pred_class == iris$Species), 0.9)
  expect_s3_class(workflows::extract_fit_engine(wf_rec), "tf_estimator")

  set.seed(1)
  lin <- parsnip::set_engine(parsnip::linear_reg(), "cppestimators", epochs = 5)
  wf_form <- briefly_quietly(parsnip::fit(workflows::workflow(mpg ~ wt + cyl, lin), mtcars))
  expect_regression_predictions(wf_form, mtcars)
})

test_that("tune_grid() gives metrics for every candidate", {
  skip_if_no_parsnip()
  for (pkg in c("workflows", "recipes", "rsample", "tune", "yardstick")) skip_if_not_installed(pkg)
  set.seed(1)
  trees <- parsnip::set_mode(parsnip::set_engine(
    parsnip::boost_tree(trees = tune::tune(), learn_rate = tune::tune(), tree_depth = 2), "cppestimators"),
    "regression")
  grid <- data.frame(trees = c(3L, 8L), learn_rate = c(0.1, 0.3))
  res <- quietly(tune::tune_grid(workflows::workflow(mpg ~ ., trees), resamples = rsample::vfold_cv(mtcars, v = 2),
                                 grid = grid))
  m <- tune::collect_metrics(res)
  expect_setequal(m$trees, grid$trees)
  expect_setequal(m$.metric, c("rmse", "rsq"))
  expect_equal(nrow(m), 4L)
  expect_true(all(m$n == 2L & is.finite(m$mean)))
  expect_equal(nrow(tune::collect_notes(res)), 0L)

  rec <- recipes::step_normalize(recipes::recipe(Species ~ ., data = iris), recipes::all_numeric_predictors())
  dnn <- parsnip::set_mode(parsnip::set_engine(parsnip::mlp(hidden_units = tune::tune(), epochs = 5),
                                               "cppestimators"), "classification")
  res <- quietly(tune::tune_grid(workflows::workflow(rec, dnn), resamples = rsample::vfold_cv(iris, v = 2),
                                 grid = data.frame(hidden_units = c(2L, 6L))))
  m <- tune::collect_metrics(res)
  expect_setequal(m$hidden_units, c(2L, 6L))
  expect_true(all(c("accuracy", "roc_auc") %in% m$.metric))
  expect_true(all(m$n == 2L & is.finite(m$mean)))
  # five epochs are short of convergence: the only notes say so
  expect_true(all(grepl("stopped before its training converged", tune::collect_notes(res)$note)))
})

test_that("the engine's estimator remembers the outcome's name: train() and evaluate() of the data need no response", {
  skip_if_no_parsnip()
  step_of <- function(est) cppestimators:::cpp_estimator_global_step(cppestimators:::estimator_ptr(est))
  spec <- parsnip::set_engine(parsnip::linear_reg(), "cppestimators", epochs = 2)
  fit <- fit_quietly(spec, mpg ~ wt + hp, mtcars)
  est <- parsnip::extract_fit_engine(fit)
  at <- step_of(est)
  quietly(train(est, mtcars, num_epochs = 1))
  expect_equal(step_of(est), at + 1)
  expect_equal(quietly(evaluate(est, mtcars))$loss, quietly(evaluate(est, mtcars, response = "mpg"))$loss)
  expect_equal(predict(est, mtcars)$predictions, predict(fit, mtcars)$.pred)
  # kept by saveRDS()
  path <- tempfile(fileext = ".rds")
  saveRDS(est, path)
  expect_equal(quietly(evaluate(readRDS(path), mtcars))$loss, quietly(evaluate(est, mtcars))$loss)
  # a classifier; fit_xy() with a named outcome; a workflow
  d <- mtcars_am()
  cls <- parsnip::extract_fit_engine(fit_quietly(parsnip::set_engine(parsnip::logistic_reg(), "cppestimators"),
                                                 am ~ wt + hp, d))
  expect_true(is.finite(quietly(evaluate(cls, d))$accuracy))
  xy <- briefly_quietly(parsnip::fit_xy(spec, x = mtcars[c("wt", "hp")], y = mtcars["mpg"]))
  quietly(train(parsnip::extract_fit_engine(xy), mtcars, num_epochs = 1))
  skip_if_not_installed("workflows")
  wf <- briefly_quietly(parsnip::fit(workflows::workflow(mpg ~ wt + hp, spec), mtcars))
  expect_true(is.finite(quietly(evaluate(parsnip::extract_fit_engine(wf), mtcars))$loss))
})

test_that("an outcome without a name of its own still needs `response`", {
  skip_if_no_parsnip()
  spec <- parsnip::set_engine(parsnip::linear_reg(), "cppestimators", epochs = 2)
  # a transformed outcome, and an unnamed vector y
  logged <- parsnip::extract_fit_engine(fit_quietly(spec, log(mpg) ~ wt + hp, mtcars))
  expect_error(quietly(train(logged, mtcars)), regexp = "train\\(\\) with a data frame needs `response`")
  d <- transform(mtcars, log_mpg = log(mpg))
  quietly(train(logged, d, response = "log_mpg", num_epochs = 1))
  xy <- parsnip::extract_fit_engine(briefly_quietly(parsnip::fit_xy(spec, x = mtcars[c("wt", "hp")], y = mtcars$mpg)))
  expect_error(quietly(evaluate(xy, mtcars)), regexp = "evaluate\\(\\) with a data frame needs `response`")
  expect_error(fit_cppestimators(mtcars["wt"], mtcars$mpg, model = "linear_reg", outcome = 1),
               regexp = "`outcome` must be NULL or the outcome's column name")
})

# Issue 52: refusals of the data a fit can not learn from.
test_that("a fit on data without rows says the data has no rows", {
  skip_if_no_parsnip()
  msg <- "fit(): the data has no rows (0 rows): there is nothing to train on."
  lin <- parsnip::set_engine(parsnip::linear_reg(), "cppestimators")
  expect_error(parsnip::fit(lin, mpg ~ drat, data = mtcars[0, ]), msg, fixed = TRUE,
               class = "cppestimators_empty_data")
  trees <- parsnip::set_mode(parsnip::set_engine(parsnip::boost_tree(trees = 3), "cppestimators"), "classification")
  expect_error(parsnip::fit(trees, am ~ drat, data = mtcars_am()[0, ]), msg, fixed = TRUE,
               class = "cppestimators_empty_data")
  # a validation share of real rows keeps its own message
  expect_error(fit_cppestimators(mtcars["drat"][1, , drop = FALSE], 1, model = "linear_reg", validation = 0.5),
               "`validation` leaves no rows to train on.", fixed = TRUE)
})

test_that("a classification fit on an outcome of a single class is refused, naming the class and count", {
  skip_if_no_parsnip()
  set.seed(1)
  d <- data.frame(x = stats::rnorm(150), y = factor(rep("yes", 150), levels = c("no", "yes")))
  msg <- "the training data's outcome 'y' has a single class, 'yes' (150 rows): a classifier needs at least two"
  specs <- list(
    logistic = parsnip::set_engine(parsnip::logistic_reg(), "cppestimators"),
    trees = parsnip::set_mode(parsnip::set_engine(parsnip::boost_tree(trees = 3), "cppestimators"), "classification"),
    mlp = parsnip::set_mode(parsnip::set_engine(parsnip::mlp(epochs = 2), "cppestimators"), "classification"))
  for (spec in specs) {
    expect_error(parsnip::fit(spec, y ~ x, data = d), msg, fixed = TRUE, class = "cppestimators_single_class")
  }
  d3 <- data.frame(x = stats::rnorm(40), k = factor(rep("b", 40), levels = c("a", "b", "c")))
  multi <- parsnip::set_engine(parsnip::multinom_reg(), "cppestimators")
  expect_error(parsnip::fit(multi, k ~ x, data = d3), "outcome 'k' has a single class, 'b' (40 rows)", fixed = TRUE,
               class = "cppestimators_single_class")
  # two classes fit as before
  d$y[1:75] <- "no"
  expect_s3_class(fit_quietly(specs$logistic, y ~ x, d), "model_fit")
})

test_that("sparse predictors are one matrix-valued feature, as fit and as predicted", {
  skip_if_no_parsnip()
  skip_if_not_installed("Matrix")
  m <- Matrix::Matrix(as.matrix(mtcars[c("drat", "wt")]), sparse = TRUE)
  est <- briefly_quietly(fit_cppestimators(m, mtcars$mpg, model = "linear_reg", epochs = 200))
  expect_identical(vapply(est$spec$feature_columns, function(col) col$name, ""), "x")
  expect_identical(est$spec$feature_columns[[1]]$width, 2L)
  dense <- briefly_quietly(fit_cppestimators(mtcars[c("drat", "wt")], mtcars$mpg, model = "linear_reg", epochs = 200))
  # close to the same least squares fit (the sparse column is scaled, not centered: a slower path)
  expect_gt(stats::cor(predict_cppestimators(est, m), predict_cppestimators(dense, mtcars[c("drat", "wt")])), 0.95)
  # parsnip's fit_xy() passes a sparse matrix on (the engines allow sparse x)
  lin <- parsnip::set_engine(parsnip::linear_reg(), "cppestimators")
  expect_s3_class(briefly_quietly(parsnip::fit_xy(lin, x = m, y = mtcars$mpg)), "model_fit")
})

test_that("boost_tree() grows every tree without the unfinished-trees warning", {
  skip_if_no_parsnip()
  spec <- parsnip::set_mode(parsnip::set_engine(parsnip::boost_tree(trees = 6, tree_depth = 2), "cppestimators"),
                            "regression")
  set.seed(1)
  fit <- NULL
  expect_no_warning(quietly(fit <- parsnip::fit(spec, mpg ~ ., data = mtcars)))
  est <- parsnip::extract_fit_engine(fit)
  expect_equal(unname(variable_value(est, "boosted_trees/state")[[1]][1]), 6)
})
