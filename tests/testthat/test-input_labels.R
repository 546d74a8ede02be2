# The response as train() and evaluate() read it: factors on regressors,
# missing values, class ids beyond n_classes.

# `est` after one training step on a valid 0/1 response over `x`
# (evaluate() needs a trained model).
trained <- function(est) {
  quietly(train(est, input_fn(data.frame(x = c(1, 2, 3, 4), y = c(0, 1, 0, 1)), features = "x", response = "y"),
                steps = 1))
  est
}

test_that("a factor response on a regressor is an error suggesting a classifier", {
  d <- data.frame(x = c(1, 2, 3, 4), cut = factor(c("Fair", "Good", "Fair", "Ideal")))
  input <- suppressMessages(input_fn(d, features = "x", response = "cut"))
  est <- x_regressor()
  msg <- paste0("the response 'cut' is a factor (levels Fair, Good, Ideal) but linear_regressor() is a regressor: ",
                "it would regress on the level codes. Use a classifier, e.g. linear_classifier(n_classes = 3, ",
                "label_vocabulary = levels(data$cut)), or feature_columns_from_data(data, response = \"cut\"), ",
                "which sets them; or make the response numeric.")
  expect_error(train(est, input, steps = 1), msg, fixed = TRUE, class = "cppestimators_error")
  expect_error(evaluate(trained(est), input, steps = 1), msg, fixed = TRUE, class = "cppestimators_factor_response")
  dnn <- suppressMessages(dnn_regressor(hidden_units = 2, feature_columns(column_numeric("x"))))
  expect_error(train(dnn, input, steps = 1), "Use a classifier, e.g. dnn_classifier(n_classes = 3,",
               fixed = TRUE, class = "cppestimators_error")
  # the suggested classifier trains on the same input
  cl <- suppressMessages(linear_classifier(feature_columns(column_numeric("x")), n_classes = 3,
                                           label_vocabulary = levels(d$cut)))
  expect_silent(quietly(train(cl, input, steps = 1)))
  expect_gt(quietly(evaluate(cl, input))$global_step, 0)
})

test_that("a logical response on a regressor is regressed on as 0/1", {
  d <- data.frame(x = c(1, 2, 3, 4), y = c(TRUE, FALSE, TRUE, TRUE))
  input <- input_fn(d, features = "x", response = "y", batch_size = 4L)
  expect_identical(input$labels, c(1, 0, 1, 1))
  est <- x_regressor()
  quietly(train(est, input, steps = 1))
  expect_equal(quietly(evaluate(est, input))$global_step, 1)
})

test_that("a missing response value names the column and the first row, as for features", {
  d <- data.frame(x = c(1, 2, 3, 4), y = c(1, 2, NA, NA), k = c(0, 1, NA, 1),
                  f = factor(c("a", NA, "b", "a")), s = c("u", "v", NA, "u"))
  expect_error(train(x_regressor(), input_fn(d, features = "x", response = "y"), steps = 1),
               "^response 'y' contains missing values \\(NA\\), first at row 3$", class = "cppestimators_error")
  cl <- function(...) suppressMessages(linear_classifier(feature_columns(column_numeric("x")), ...))
  expect_error(train(cl(), input_fn(d, features = "x", response = "k"), steps = 1),
               "response 'k' contains missing values (NA), first at row 3", fixed = TRUE, class = "cppestimators_error")
  expect_error(evaluate(trained(cl()), suppressMessages(input_fn(d, features = "x", response = "f")), steps = 1),
               "response 'f' contains missing values (NA), first at row 2", fixed = TRUE, class = "cppestimators_error")
  expect_error(train(cl(label_vocabulary = c("u", "v")), input_fn(d, features = "x", response = "s"), steps = 1),
               "response 's' contains missing values (NA), first at row 3", fixed = TRUE, class = "cppestimators_error")
  m <- list(x = 1:3, y = cbind(c(1, 2, 3), c(1, NA, 3)))
  two <- suppressMessages(linear_regressor(feature_columns(column_numeric("x")), label_dimension = 2))
  expect_error(train(two, input_fn(m, features = "x", response = "y"), steps = 1),
               "response 'y' contains missing values (NA), first at row 2", fixed = TRUE, class = "cppestimators_error")
})

test_that("class ids beyond n_classes suggest the n_classes that holds them", {
  d <- data.frame(x = seq_len(15), k = 0:14, f = factor(letters[1:15]), p = seq(0, 1, length.out = 15))
  cl <- function(...) suppressMessages(linear_classifier(feature_columns(column_numeric("x")), ...))
  expect_error(train(cl(), input_fn(d, features = "x", response = "k"), steps = 1), class = "cppestimators_error",
               regexp = paste0("Labels must be in [0, 1] for a binary classifier (n_classes = 2); got 14: the response ",
                               "'k' has class ids up to 14, so set `n_classes = 15` in linear_classifier()."),
               fixed = TRUE)
  expect_error(train(cl(), suppressMessages(input_fn(d, features = "x", response = "f")), steps = 1),
               "got 14: the factor 'f' has 15 levels, so set `n_classes = 15` in linear_classifier().",
               fixed = TRUE, class = "cppestimators_label_range")
  expect_error(evaluate(trained(cl(n_classes = 3)), input_fn(d, features = "x", response = "k"), steps = 1),
               "Labels must be in [0, n_classes - 1] = [0, 2]; got 14: the response 'k' has class ids up to 14, so set `n_classes = 15`",
               fixed = TRUE, class = "cppestimators_error")
  dnn <- suppressMessages(dnn_classifier(hidden_units = 2, feature_columns(column_numeric("x"))))
  expect_error(train(dnn, input_fn(d, features = "x", response = "k"), steps = 1),
               "so set `n_classes = 15` in dnn_classifier().", fixed = TRUE, class = "cppestimators_error")
  # probabilities in [0, 1] are binary labels; 15 classes train
  expect_silent(quietly(train(cl(), input_fn(d, features = "x", response = "p"), steps = 1)))
  expect_silent(quietly(train(cl(n_classes = 15), input_fn(d, features = "x", response = "k"), steps = 1)))
})

# Issue 52: a classifier's first training data with one class is refused.
test_that("a classifier whose first training data hold a single class is refused, naming it and the count", {
  x <- seq(-1, 1, length.out = 150)
  fcs <- feature_columns(column_numeric("x"))
  yes <- data.frame(x = x, y = factor(rep("yes", 150), levels = c("no", "yes")))
  msg <- "the training data's outcome 'y' has a single class, 'yes' (150 rows): a classifier needs at least two"
  # a factor of two levels of which one occurs, through the vocabulary
  ests <- list(
    linear = linear_classifier(fcs, label_vocabulary = c("no", "yes")),
    dnn = dnn_classifier(hidden_units = 2, feature_columns = fcs, label_vocabulary = c("no", "yes")),
    combined = dnn_linear_combined_classifier(linear_feature_columns = fcs, dnn_feature_columns = fcs,
                                              dnn_hidden_units = 2, label_vocabulary = c("no", "yes")),
    trees = boosted_trees_classifier(fcs, n_batches_per_layer = 1, label_vocabulary = c("no", "yes"),
                                     n_trees = 2, max_depth = 2))
  for (est in ests) {
    expect_error(quietly(train(est, yes, response = "y")), msg, fixed = TRUE, class = "cppestimators_single_class")
    expect_error(variable_value(est, "global_step"), "must be called on a trained model")  # nothing trained
  }
  # 0/1 labels without a vocabulary; a multi-class classifier
  est <- linear_classifier(fcs)
  expect_error(quietly(train(est, data.frame(x = x, y = 1), response = "y")),
               "outcome 'y' has a single class, '1' (150 rows)", fixed = TRUE, class = "cppestimators_single_class")
  three <- linear_classifier(fcs, n_classes = 3, label_vocabulary = c("a", "b", "c"))
  expect_error(quietly(train(three, input_fn(data.frame(x = x, k = "b"), response = "k"))),
               "outcome 'k' has a single class, 'b' (150 rows)", fixed = TRUE, class = "cppestimators_single_class")
  # a factor response encoded by input_fn(), its level named
  est <- linear_classifier(fcs)
  expect_error(quietly(train(est, input_fn(yes, response = "y"))), "'y' has a single class, 'yes'", fixed = TRUE,
               class = "cppestimators_single_class")
  # two classes train; later calls on one class are not checked
  est <- linear_classifier(fcs, label_vocabulary = c("no", "yes"))
  both <- data.frame(x = x, y = ifelse(x > 0, "yes", "no"))
  quietly(train(est, both, response = "y", num_epochs = 2))
  expect_no_error(quietly(train(est, yes, response = "y")))
  # regressors are not checked
  expect_no_error(quietly(train(x_regressor(), data.frame(x = x, y = 1), response = "y")))
})

test_that("a stream's classes are not checked", {
  f <- tempfile(fileext = ".csv")
  on.exit(unlink(f))
  utils::write.csv(data.frame(x = seq(-1, 1, length.out = 20), y = 1), f, row.names = FALSE)
  est <- linear_classifier(feature_columns(column_numeric("x")))
  expect_no_error(quietly(train(est, input_fn(text_line_dataset(f, csv_record_spec(f)), features = x, response = y))))
  expect_gt(variable_value(est, "global_step")[[1]], 0)
})
