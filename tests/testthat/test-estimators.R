test_that("a linear regressor predicts all 32 mtcars rows", {
  est <- drat_regressor()
  quietly(train(est, mtcars_input(), steps = 4))
  p <- predict(est, mtcars_input())
  expect_s3_class(p, "data.frame")
  expect_equal(names(p), "predictions")
  expect_equal(nrow(p), 32)
  expect_true(all(is.finite(p$predictions)))
})

test_that("state persists across calls: two train(steps = 4) end at global step 8", {
  est <- drat_regressor()
  h1 <- quietly(train(est, mtcars_input(num_epochs = NULL), steps = 4))
  h2 <- quietly(train(est, mtcars_input(num_epochs = NULL), steps = 4))
  expect_equal(max(wide(h1)$steps), 4)
  expect_equal(max(wide(h2)$steps), 8)
  ev <- quietly(evaluate(est, mtcars_input()))
  expect_equal(ev$global_step, 8)
  expect_output(print(est), "global step: +8")
})

test_that("max_steps is absolute and an already reached max_steps returns at once", {
  est <- drat_regressor()
  h <- quietly(train(est, mtcars_input(num_epochs = NULL), max_steps = 3))
  expect_equal(max(wide(h)$steps), 3)
  expect_message(h2 <- train(est, mtcars_input(num_epochs = NULL), max_steps = 3),
                 "Skipping training since max_steps has already saved")
  expect_equal(nrow(wide(h2)), 0)
  h3 <- quietly(train(est, mtcars_input(num_epochs = NULL), max_steps = 5))
  expect_equal(max(wide(h3)$steps), 5)
})

test_that("train() validates steps, max_steps and hooks", {
  est <- drat_regressor()
  expect_error(train(est, mtcars_input(), steps = 1, max_steps = 2), "Can not provide both steps and max_steps.")
  expect_error(train(est, mtcars_input(), steps = 0), "Must specify steps > 0, given: 0")
  expect_error(train(est, mtcars_input(), max_steps = -1), "Must specify max_steps > 0, given: -1")
  expect_error(train(est, mtcars_input(), steps = 1.5), "`steps` must be a single whole number")
  expect_error(train(est, mtcars_input(), hooks = list(function() 1)), "Hooks must be a SessionRunHook")
  expect_error(train(est, "data"), "`input_fn` must be made by input_fn()")
  expect_error(train(est, input_fn(mtcars, features = "cyl", response = "mpg")),
               "feature 'drat' is used by a feature column but is not among the input's features")
  expect_error(train(est, input_fn(mtcars, features = "drat")), "`input_fn` has no response")
})

test_that("evaluate() returns the regression head's metrics in one row", {
  est <- drat_regressor()
  quietly(train(est, mtcars_input(num_epochs = NULL), steps = 10))
  ev <- quietly(evaluate(est, mtcars_input()))
  expect_s3_class(ev, "data.frame")
  expect_equal(nrow(ev), 1)
  expect_setequal(names(ev), c("average_loss", "label/mean", "loss", "prediction/mean", "global_step"))
  expect_equal(ev$global_step, 10)
  p <- predict(est, mtcars_input())$predictions
  expect_equal(ev[["average_loss"]], mean((p - mtcars$mpg)^2), tolerance = 1e-4)
  expect_equal(ev[["label/mean"]], mean(mtcars$mpg), tolerance = 1e-6)
  expect_equal(ev[["prediction/mean"]], mean(p), tolerance = 1e-5)
  # loss is the mean of the batches' summed losses: 4 batches of 8
  expect_equal(ev$loss, 8 * ev$average_loss, tolerance = 1e-4)
  one <- quietly(evaluate(est, mtcars_input(batch_size = 1L)))
  expect_equal(one$loss, one$average_loss, tolerance = 1e-5)
  two <- quietly(evaluate(est, mtcars_input(), steps = 2, simplify = FALSE))
  expect_type(two, "list")
  expect_equal(two$global_step, 10)
})

test_that("a linear regressor recovers the coefficients of a linear problem within 5%", {
  set.seed(42)
  n <- 400
  df <- data.frame(x1 = stats::rnorm(n), x2 = stats::rnorm(n))
  df$y <- 2 * df$x1 - 3 * df$x2 + 0.5
  est <- linear_regressor(feature_columns(column_numeric("x1", "x2")))
  quietly(train(est, input_fn(df, response = "y", batch_size = 32L, num_epochs = NULL), steps = 400))
  probe <- predict(est, input_fn(data.frame(x1 = c(0, 1, 0), x2 = c(0, 0, 1)), features = c("x1", "x2")))
  b <- probe$predictions[1]
  expect_equal(b, 0.5, tolerance = 0.05)
  expect_equal(probe$predictions[2] - b, 2, tolerance = 0.05)
  expect_equal(probe$predictions[3] - b, -3, tolerance = 0.05)
})

test_that("every optimizer trains the regressor to a lower loss", {
  for (opt in c("Ftrl", "Adagrad", "Adam", "RMSProp", "SGD")) {
    set.seed(1)
    df <- data.frame(x = stats::runif(64), y = 0)
    df$y <- 3 * df$x + 1
    est <- linear_regressor(feature_columns(column_numeric("x")), optimizer = opt)
    # plain SGD on a summed loss diverges at lr 0.2 with large batches, as in TF
    inp <- input_fn(df, response = "y", batch_size = if (opt == "SGD") 2L else 16L, num_epochs = NULL)
    # the untrained model predicts 0 (its weights start at zero): its loss is mean(y^2)
    before <- mean(df$y^2)
    quietly(train(est, inp, steps = if (opt == "SGD") 50 else 200))
    after <- quietly(evaluate(est, inp, steps = 4))$average_loss
    expect_lt(after, before / 4, label = opt)
  }
  expect_error(linear_regressor(feature_columns(column_numeric("x")), optimizer = "Momentum"),
               "Unsupported optimizer name: Momentum. Supported names are: Adagrad, Adam, Ftrl, RMSProp, SGD")
  expect_error(linear_regressor(feature_columns(column_numeric("x")), optimizer = 3), "`optimizer` must be")
})

test_that("a binary linear classifier on mtcars$vs trains and predicts classes", {
  cl <- linear_classifier(feature_columns(column_numeric("mpg", "wt")))
  inp <- input_fn(mtcars, response = "vs", features = c("mpg", "wt"), batch_size = 8L, num_epochs = NULL)
  quietly(train(cl, inp, steps = 200))
  p <- predict(cl, input_fn(mtcars, features = c("mpg", "wt")))
  expect_equal(dim(p), c(32, 5))
  expect_equal(names(p), c("logits", "logistic", "probabilities", "class_ids", "classes"))
  expect_true(all(p$classes %in% c("0", "1")))
  expect_equal(p$class_ids, as.integer(p$logits > 0))
  expect_equal(p$logistic, 1 / (1 + exp(-p$logits)), tolerance = 1e-6)
  expect_equal(vapply(p$probabilities, sum, 0), rep(1, 32), tolerance = 1e-6)
  ev <- quietly(evaluate(cl, input_fn(mtcars, features = c("mpg", "wt"), response = "vs")))
  expect_gte(ncol(ev), 9)
  expect_true(all(c("accuracy", "accuracy_baseline", "auc", "auc_precision_recall", "precision",
                    "recall", "label/mean", "prediction/mean", "average_loss", "loss") %in% names(ev)))
  expect_equal(ev$accuracy, mean(p$class_ids == mtcars$vs))
  expect_equal(ev[["label/mean"]], mean(mtcars$vs))
  expect_gt(ev$auc, 0.8)
  only_prob <- predict(cl, input_fn(mtcars, features = c("mpg", "wt")), predict_keys = "probabilities")
  expect_equal(names(only_prob), "probabilities")
  expect_error(predict(cl, input_fn(mtcars, features = c("mpg", "wt")), predict_keys = "predictions"),
               "Expected to run at least one output")
  expect_named(predict(cl, input_fn(mtcars, features = c("mpg", "wt")), predict_keys = c("prob", "class_ids")),
               c("probabilities", "class_ids"))
  expect_named(predict(cl, input_fn(mtcars, features = c("mpg", "wt")), predict_keys = NULL), names(p))
  known <- '"predictions", "classes", "class_ids", "logistic", "logits", "probabilities"'
  expect_error(predict(cl, input_fn(mtcars, features = c("mpg", "wt")), predict_keys = c("probabilities", "bogus")),
               sprintf('`predict_keys` must be NULL or keys among %s; unknown: "bogus".', known),
               fixed = TRUE, class = "cppestimators_error")
  expect_error(predict(cl, input_fn(mtcars, features = c("mpg", "wt")), predict_keys = 1),
               sprintf("`predict_keys` must be NULL or keys among %s; not numeric 1.", known),
               fixed = TRUE, class = "cppestimators_error")
  expect_error(quietly(train(cl, input_fn(mtcars, response = "mpg", features = c("mpg", "wt")), steps = 1)),
               "Labels must be in \\[0, 1\\]")
})

test_that("a 3-class linear classifier on iris$Species trains and predicts classes", {
  ic <- linear_classifier(
    feature_columns(column_numeric("Sepal.Length", "Sepal.Width", "Petal.Length", "Petal.Width")),
    n_classes = 3)
  inp <- suppressMessages(input_fn(iris, response = "Species", batch_size = 16L, num_epochs = NULL))
  quietly(train(ic, inp, steps = 300))
  p <- predict(ic, suppressMessages(input_fn(iris, response = "Species")))
  expect_equal(nrow(p), 150)
  expect_equal(names(p), c("logits", "probabilities", "class_ids", "classes"))
  expect_true(all(p$class_ids %in% 0:2))
  expect_equal(lengths(p$probabilities), rep(3L, 150))
  acc <- mean(p$class_ids == as.integer(iris$Species) - 1)
  expect_gt(acc, 0.8)
  ev <- quietly(evaluate(ic, suppressMessages(input_fn(iris, response = "Species"))))
  expect_setequal(names(ev), c("accuracy", "average_loss", "loss", "global_step"))
  expect_equal(ev$accuracy, acc)
})

test_that("label_vocabulary maps string labels and names the classes", {
  df <- data.frame(x = c(-2, -1, 1, 2), y = c("no", "no", "yes", "yes"))
  cl <- linear_classifier(feature_columns(column_numeric("x")), label_vocabulary = c("no", "yes"))
  quietly(train(cl, input_fn(df, response = "y", batch_size = 4L, num_epochs = NULL), steps = 50))
  p <- predict(cl, input_fn(df, features = "x"))
  expect_equal(p$classes, c("no", "no", "yes", "yes"))
  expect_error(linear_classifier(feature_columns(column_numeric("x")), label_vocabulary = c("a", "b", "c")),
               "`label_vocabulary` has 3 labels but `n_classes` is 2")
  bad <- data.frame(x = 1:2, y = c("no", "maybe"))
  expect_error(quietly(train(cl, input_fn(bad, response = "y"), steps = 1)),
               "values not in `label_vocabulary`: 'maybe'")
  plain <- linear_classifier(feature_columns(column_numeric("x")))
  expect_error(quietly(train(plain, input_fn(df, response = "y"), steps = 1)),
               "give the classifier a `label_vocabulary`")
})

test_that("estimator constructors validate their arguments", {
  expect_error(linear_regressor(), "`feature_columns` is required")
  x_columns <- feature_columns(column_numeric("x"))
  expect_error(linear_regressor(x_columns, label_dimension = 0), "`label_dimension` must be >= 1")
  expect_error(linear_classifier(feature_columns(column_numeric("x")), n_classes = 1), "`n_classes` must be >= 2")
  expect_error(linear_regressor(x_columns, weight_column = TRUE),
               "`weight_column` must be a column name or a column_numeric()", fixed = TRUE)
  expect_error(linear_regressor(x_columns, model_dir = ""), "`model_dir` must be NULL or a non-empty string")
})

test_that("a multi-valued feature (shape) and multi-target regression work", {
  set.seed(5)
  x <- matrix(stats::rnorm(200), ncol = 2)
  y <- cbind(x[, 1] + x[, 2], x[, 1] - x[, 2])
  est <- linear_regressor(feature_columns(column_numeric("x", shape = 2L)), label_dimension = 2L)
  quietly(train(est, input_fn(list(x = x, y = y), features = "x", response = "y", batch_size = 10L,
                              num_epochs = NULL), steps = 300))
  p <- predict(est, input_fn(list(x = rbind(c(1, 0), c(0, 1))), features = "x"))
  m <- do.call(rbind, p$predictions)
  expect_equal(m, rbind(c(1, 1), c(1, -1)), tolerance = 0.05)
  expect_error(quietly(train(est, input_fn(list(x = x[, 1], y = y), features = "x", response = "y"), steps = 1)),
               "must be a matrix with 2 columns")
})

test_that("optimizer_*() objects set hyperparameters, validated", {
  est <- suppressMessages(linear_regressor(feature_columns(column_numeric("x")),
                                           optimizer = optimizer_sgd(learning_rate = 0.01)))
  quietly(train(est, input_fn(data.frame(x = 1, y = 3), response = "y", batch_size = 1L), steps = 1))
  # one SGD step from zero: w = 0.01 * 2 * 3 * 1, b = 0.01 * 2 * 3
  expect_equal(unname(coef(est)), c(0.06, 0.06), tolerance = 1e-6)
  ftrl <- suppressMessages(linear_regressor(feature_columns(column_numeric("x")),
                                            optimizer = optimizer_ftrl(l1_regularization_strength = 100)))
  quietly(train(ftrl, input_fn(data.frame(x = 1, y = 3), response = "y", batch_size = 1L), steps = 1))
  expect_equal(unname(coef(ftrl)), c(0, 0))  # a strong L1 keeps the weights at zero
  adam <- suppressMessages(linear_regressor(feature_columns(column_numeric("x")),
                                            optimizer = optimizer_adam(learning_rate = 0.1)))
  expect_error(variable_names(adam), "'variable_names()' must be called on a trained model", fixed = TRUE)
  expect_error(variable_value(adam), "'variable_value()' must be called on a trained model", fixed = TRUE)
  quietly(train(adam, input_fn(data.frame(x = 1, y = 3), response = "y", batch_size = 1L), steps = 1))
  expect_true("beta1_power" %in% variable_names(adam))
  expect_output(print(optimizer_rmsprop(0.5)), "<optimizer RMSProp: learning_rate = 0.5")
  expect_error(optimizer_sgd(0), "`learning_rate` must be a positive number")
  expect_error(optimizer_adam(beta1 = 1), "`beta1` must be a number in \\[0, 1\\)")
  expect_error(optimizer_ftrl(learning_rate_power = 1), "`learning_rate_power` must be a number <= 0")
  expect_error(optimizer_rmsprop(decay = 2), "`decay` must be a number in \\[0, 1\\)")
  expect_error(optimizer_adagrad(initial_accumulator_value = -1),
               "`initial_accumulator_value` must be a positive number")
})

test_that("unknown modes and heads inside the R layer are errors, not a default", {
  expect_error(cppestimators:::new_graph("predict"),
               "`mode` must be one of \"train\", \"eval\" or \"infer\", not character \"predict\".", fixed = TRUE)
  expect_error(cppestimators:::resolve_input(mtcars_input(), drat_regressor(), "training"),
               "`mode` must be one of \"train\", \"eval\" or \"infer\"", fixed = TRUE)
  est <- drat_regressor()
  est$spec$head <- "poisson"
  expect_error(utils::capture.output(print(est)),
               "`head` must be one of \"regression\", \"poisson_regression\", \"tweedie\"", fixed = TRUE)
})
