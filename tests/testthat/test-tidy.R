# tidy(), glance() and augment() of estimators, tidy() of evaluate() results
# and of training histories.

tidy_quiet <- run_config(save_summary_steps = 0, log_step_count_steps = NULL)

# iris with a character class and a character feature, for linear classifiers.
iris_chr <- function() {
  ir <- iris
  ir$cls <- c("a", "b", "c")[as.integer(iris$Species)]
  ir$Species <- as.character(ir$Species)
  ir
}

test_that("tidy, glance and augment are generics' own, re-exported", {
  expect_identical(cppestimators::tidy, generics::tidy)
  expect_identical(cppestimators::glance, generics::glance)
  expect_identical(cppestimators::augment, generics::augment)
})

test_that("tidy() of a linear regressor has one row per weight, as coef() gives them", {
  fcs <- feature_columns(column_numeric("drat", "wt"))
  est <- suppressMessages(linear_regressor(fcs, config = tidy_quiet))
  quietly(train(est, input_fn(mtcars, response = "mpg", features = c("drat", "wt"), batch_size = 8L), steps = 4))
  td <- tidy(est)
  cf <- coef(est)
  expect_s3_class(td, "data.frame")
  expect_named(td, c("term", "column", "category", "estimate"))
  expect_identical(td$term, names(cf))
  expect_identical(td$column, c("(Intercept)", "drat", "wt"))
  expect_identical(td$category, rep(NA_character_, 3))
  expect_identical(td$estimate, unname(cf))
  expect_true(all(td$estimate != 0))
})

test_that("tidy() of a multi-class linear classifier names categories, buckets and classes", {
  cols <- feature_columns(
    column_numeric("Sepal.Length"),
    column_categorical_with_vocabulary_list("Species", vocabulary_list = c("setosa", "versicolor"),
                                            num_oov_buckets = 1),
    column_bucketized(column_numeric("Petal.Width"), c(0.5, 1.5)),
    column_categorical_with_identity("Id", num_buckets = 3)
  )
  ir <- iris_chr()
  ir$Id <- rep(0:2, 50)
  est <- suppressMessages(linear_classifier(cols, n_classes = 3, label_vocabulary = c("a", "b", "c"),
                                            config = tidy_quiet))
  quietly(train(est, input_fn(ir, response = "cls", features = c("Sepal.Length", "Species", "Petal.Width", "Id"),
                              batch_size = 50L), steps = 3))
  td <- tidy(est)
  cf <- coef(est)
  expect_named(td, c("term", "column", "category", "class", "estimate"))
  expect_equal(nrow(td), length(cf))
  expect_identical(td$estimate, as.vector(cf))
  expect_identical(td$term, rep(rownames(cf), 3))
  expect_identical(td$class, rep(c("a", "b", "c"), each = nrow(cf)))
  one <- td[td$class == "b", ]
  expect_identical(one$estimate, unname(cf[, "b"]))
  expect_identical(one$category[one$column == "Species"], c("setosa", "versicolor", "oov1"))
  expect_identical(one$category[one$column == "Petal.Width_bucketized"], c("(-Inf,0.5)", "[0.5,1.5)", "[1.5,Inf)"))
  expect_identical(one$category[one$column == "Id"], c("0", "1", "2"))
  expect_true(is.na(one$category[one$column == "Sepal.Length"]))
  expect_identical(one$column[1], "(Intercept)")
})

test_that("tidy() of a regressor with several targets has an output column", {
  df <- data.frame(x = seq(0, 1, length.out = 20))
  df$y1 <- df$x
  df$y2 <- -df$x
  est <- suppressMessages(linear_regressor(feature_columns(column_numeric("x")), label_dimension = 2L,
                                           config = tidy_quiet))
  input <- numpy_input_fn(list(x = df$x), y = cbind(df$y1, df$y2), batch_size = 5L, shuffle = FALSE)
  quietly(train(est, input, steps = 3))
  td <- tidy(est)
  expect_named(td, c("term", "column", "category", "output", "estimate"))
  expect_identical(td$output, rep(1:2, each = 2))
  expect_identical(td$estimate, as.vector(coef(est)))
})

test_that("tidy() of boosted trees gives the feature importances", {
  set.seed(1)
  df <- data.frame(a = runif(100), b = runif(100))
  df$y <- as.numeric(df$a > 0.5 | df$b > 0.9)
  est <- suppressMessages(boosted_trees_classifier(feature_columns(column_numeric("a", "b")), n_batches_per_layer = 1,
                                                   n_trees = 3, max_depth = 2, config = tidy_quiet))
  quietly(train(est, input_fn(df, response = "y", batch_size = 100L, num_epochs = NULL)))
  imp <- boosted_trees_feature_importance(est)
  td <- tidy(est)
  expect_named(td, c("term", "importance"))
  expect_identical(td$term, names(imp))
  expect_identical(td$importance, unname(imp))
  expect_gt(td$importance[1], 0)
  expect_identical(tidy(est, normalize = TRUE)$importance, unname(boosted_trees_feature_importance(est, TRUE)))
  expect_equal(sum(tidy(est, normalize = TRUE)$importance), 1)
})

test_that("tidy() of a DNN lists its variables with their shapes", {
  fcs <- feature_columns(column_numeric("Sepal.Length", "Sepal.Width"))
  est <- suppressMessages(dnn_classifier(hidden_units = c(5, 3), feature_columns = fcs, n_classes = 3,
                                         optimizer = "Adam", config = tidy_quiet))
  quietly(train(est, input_fn(iris, response = "Species", features = c("Sepal.Length", "Sepal.Width"),
                              batch_size = 16L), steps = 2))
  td <- tidy(est)
  expect_named(td, c("variable", "shape", "size"))
  expect_identical(td$variable, c("dnn/hiddenlayer_0/bias", "dnn/hiddenlayer_0/kernel", "dnn/hiddenlayer_1/bias",
                                  "dnn/hiddenlayer_1/kernel", "dnn/logits/bias", "dnn/logits/kernel"))
  values <- variable_value(est, td$variable)
  dims <- lapply(values, function(v) dim(v) %||% length(v))
  expect_identical(td$shape, vapply(dims, function(d) {
    if (length(d) == 1L) paste0("(", d, ",)") else paste0("(", paste(d, collapse = ", "), ")")
  }, "", USE.NAMES = FALSE))
  expect_identical(td$size, vapply(values, function(v) as.numeric(length(v)), 0, USE.NAMES = FALSE))
  expect_identical(td$shape[td$variable == "dnn/hiddenlayer_0/kernel"], "(2, 5)")
  all <- tidy(est, optimizer_state = TRUE)
  expect_identical(all$variable, variable_names(est))
  expect_true(all(c("global_step", "beta1_power", "dnn/logits/kernel/Adam_1") %in% all$variable))
  expect_error(tidy(est, optimizer_state = NA), class = "cppestimators_error")
})

test_that("tidy() of a wide and deep model lists the linear and the DNN variables", {
  df <- data.frame(x = seq(-1, 1, length.out = 40), z = rep(c("p", "q"), 20))
  df$y <- 2 * df$x
  est <- suppressMessages(dnn_linear_combined_regressor(
    linear_feature_columns = feature_columns(column_categorical_with_vocabulary_list("z", vocabulary_list = c("p", "q"))),
    dnn_feature_columns = feature_columns(column_numeric("x")), dnn_hidden_units = 3, config = tidy_quiet))
  quietly(train(est, input_fn(df, response = "y", batch_size = 10L), steps = 2))
  td <- tidy(est)
  expect_true(all(c("linear/linear_model/z/weights", "dnn/hiddenlayer_0/kernel") %in% td$variable))
  expect_identical(td$shape[td$variable == "linear/linear_model/z/weights"], "(2, 1)")
  expect_identical(td$shape[td$variable == "dnn/hiddenlayer_0/kernel"], "(1, 3)")
  expect_false(any(grepl("Ftrl|Adagrad", td$variable)))
})

test_that("glance() of an estimator that never trained", {
  est <- x_regressor(config = tidy_quiet)
  gl <- glance(est)
  expect_named(gl, c("model", "mode", "global_step", "loss", "examples_seen", "model_dir"))
  expect_equal(nrow(gl), 1)
  expect_identical(gl$model, "linear_regressor")
  expect_identical(gl$mode, "regression")
  expect_identical(gl$global_step, 0)
  expect_identical(gl$loss, NA_real_)
  expect_identical(gl$examples_seen, 0)
  expect_identical(gl$model_dir, est$spec$model_dir)
  cl <- suppressMessages(dnn_classifier(hidden_units = 2, feature_columns(column_numeric("x"))))
  expect_identical(glance(cl)[c("model", "mode")], data.frame(model = "dnn_classifier", mode = "classification"))
})

test_that("the training notes follow the sessions: last loss, examples seen across sessions and epochs", {
  # the sessions train() runs, noted as train() notes them
  ns <- asNamespace("cppestimators")
  est <- x_regressor(config = tidy_quiet)
  input <- x_input(n = 8, batch_size = 3L, num_epochs = 2)
  session <- function(steps) {
    hooks <- ns$training_hooks(est, ns$normalize_hooks(list(hook_history_saver(1))), steps, NULL, list())
    run <- ns$run_session(est, input, "train", hooks)
    ns$note_training(est, input, run)
    run
  }
  run <- quietly(session(2))
  gl <- glance(est)
  expect_identical(gl$global_step, 2)
  expect_identical(gl$loss, run$history$total_losses[2])
  expect_identical(gl$examples_seen, 6)
  # 16 rows in all: 5 batches of 3 then one of 1
  run <- quietly(session(10))
  expect_equal(run$steps, 6)
  gl <- glance(est)
  expect_identical(gl$global_step, 8)
  expect_identical(gl$loss, run$history$total_losses[6])
  expect_identical(gl$examples_seen, 6 + 16)
  # a function that is not an input_fn() object: this session's rows are unknown
  ns$note_training(est, function() input, list(steps = 1, global_step = 9, loss = 1))
  expect_identical(glance(est)$examples_seen, NA_real_)
  # a global step the notes do not stand for
  est$state$training_record$global_step <- 5
  gl <- glance(est)
  expect_identical(gl$loss, NA_real_)
  expect_identical(gl$examples_seen, NA_real_)
})

test_that("glance() after train(steps = k): step k, the history's last loss, k batches of examples", {
  est <- suppressMessages(linear_regressor(feature_columns(column_numeric("drat", "wt")), config = tidy_quiet))
  input <- input_fn(mtcars, response = "mpg", features = c("drat", "wt"), batch_size = 5L, num_epochs = NULL)
  h <- quietly(train(est, input, steps = 3, hooks = list(hook_history_saver(every_n_step = 1))))
  gl <- glance(est)
  expect_identical(gl$global_step, 3)
  expect_identical(gl$loss, h$losses$total_losses[3])
  expect_identical(gl$examples_seen, 3 * 5)
  h <- quietly(train(est, input, steps = 4, hooks = list(hook_history_saver(every_n_step = 1))))
  gl <- glance(est)
  expect_identical(gl$global_step, 7)
  expect_identical(gl$loss, h$losses$total_losses[4])
  expect_identical(gl$examples_seen, 7 * 5)
  again <- unserialize(serialize(est, NULL))
  expect_identical(glance(again), gl)
})

test_that("evaluate() results have a class and tidy() into yardstick's long form", {
  est <- suppressMessages(linear_regressor(feature_columns(column_numeric("drat")), config = tidy_quiet))
  input <- input_fn(mtcars, response = "mpg", features = "drat", batch_size = 8L)
  quietly(train(est, input, steps = 4))
  ev <- quietly(evaluate(est, input))
  expect_s3_class(ev, c("tf_estimator_metrics", "data.frame"), exact = TRUE)
  td <- tidy(ev)
  expect_named(td, c(".metric", ".estimator", ".estimate"))
  expect_identical(td$.metric, c("average_loss", "label/mean", "loss", "prediction/mean"))
  expect_identical(td$.estimator, rep("standard", 4))
  expect_identical(td$.estimate, unname(unlist(ev[td$.metric])))
  expect_identical(tidy_metrics(quietly(evaluate(est, input, simplify = FALSE))), td)
  expect_identical(tidy_metrics(as.data.frame(unclass(ev), check.names = FALSE)), td)
  expect_error(tidy_metrics(rbind(ev, ev)), "one row of metrics, not 2", class = "cppestimators_error")
  expect_error(tidy_metrics(list(a = "x")), "must be the result of evaluate", class = "cppestimators_error")
})

test_that("tidy() of a binary classifier's metrics takes yardstick's names", {
  est <- suppressMessages(linear_classifier(feature_columns(column_numeric("mpg", "wt")), config = tidy_quiet))
  input <- input_fn(mtcars, features = c("mpg", "wt"), response = "am", batch_size = 8L)
  quietly(train(est, input, steps = 8))
  ev <- quietly(evaluate(est, input))
  td <- tidy(ev)
  ours <- c(accuracy = "accuracy", auc = "roc_auc", auc_precision_recall = "pr_auc", precision = "precision",
            recall = "recall", average_loss = "mn_log_loss")
  for (m in names(ours)) {
    row <- td[td$.metric == ours[[m]], ]
    expect_identical(row$.estimator, "binary")
    expect_identical(row$.estimate, ev[[m]])
  }
  for (m in c("accuracy_baseline", "label/mean", "loss", "prediction/mean")) {
    row <- td[td$.metric == m, ]
    expect_identical(row$.estimator, "standard")
    expect_identical(row$.estimate, ev[[m]])
  }
  expect_equal(nrow(td), ncol(ev) - 1)
  expect_false("global_step" %in% td$.metric)
})

test_that("tidy() of a multi-class classifier's metrics", {
  ir <- iris_chr()
  est <- suppressMessages(linear_classifier(feature_columns(column_numeric("Sepal.Length", "Petal.Width")),
                                            n_classes = 3, label_vocabulary = c("a", "b", "c"), config = tidy_quiet))
  input <- input_fn(ir, response = "cls", features = c("Sepal.Length", "Petal.Width"), batch_size = 30L)
  quietly(train(est, input, steps = 5))
  ev <- quietly(evaluate(est, input))
  td <- tidy(ev)
  expect_identical(td$.metric, c("accuracy", "mn_log_loss", "loss"))
  expect_identical(td$.estimator, c("multiclass", "multiclass", "standard"))
  expect_identical(td$.estimate, c(ev$accuracy, ev$average_loss, ev$loss))
})

test_that("tidy() of a training history is its long data frame", {
  est <- x_regressor(config = tidy_quiet)
  h <- quietly(train(est, x_input(), steps = 4, hooks = list(hook_history_saver(every_n_step = 2))))
  expect_identical(tidy(h), as.data.frame(h))
  expect_identical(tidy(h)$step, c(2, 4, 2, 4))
})

test_that("augment() appends the prediction columns to the data", {
  reg <- suppressMessages(linear_regressor(feature_columns(column_numeric("drat", "wt")), config = tidy_quiet))
  quietly(train(reg, input_fn(mtcars, response = "mpg", features = c("drat", "wt"), batch_size = 8L), steps = 4))
  aug <- quietly(augment(reg, mtcars))
  expect_identical(names(aug), c(names(mtcars), ".pred"))
  expect_equal(nrow(aug), nrow(mtcars))
  expect_identical(aug[names(mtcars)], mtcars)
  expect_identical(aug$.pred, quietly(predict(reg, mtcars, type = "numeric"))$.pred)

  ir <- iris_chr()
  cl <- suppressMessages(linear_classifier(feature_columns(column_numeric("Sepal.Length", "Petal.Width")),
                                           n_classes = 3, label_vocabulary = c("a", "b", "c"), config = tidy_quiet))
  quietly(train(cl, input_fn(ir, response = "cls", features = c("Sepal.Length", "Petal.Width"), batch_size = 30L),
                steps = 5))
  aug <- quietly(augment(cl, ir))
  expect_identical(names(aug), c(names(ir), ".pred_class", ".pred_a", ".pred_b", ".pred_c"))
  expect_equal(nrow(aug), 150)
  expect_identical(levels(aug$.pred_class), c("a", "b", "c"))
  expect_equal(rowSums(aug[c(".pred_a", ".pred_b", ".pred_c")]), rep(1, 150), tolerance = 1e-6)
  expect_error(augment(cl), "`new_data` must be a data frame", class = "cppestimators_error")
  expect_error(augment(cl, as.list(ir)), "`new_data` must be a data frame", class = "cppestimators_error")
})

test_that("on columns read off a data frame: factor levels as categories, parsnip's columns from augment()", {
  mt <- mtcars
  mt$am <- factor(mt$am, labels = c("auto", "manual"))
  mt$cyl <- factor(mt$cyl)
  est <- suppressMessages(linear_classifier(feature_columns_from_data(mt, c(wt, cyl), response = am),
                                            config = tidy_quiet))
  quietly(train(est, mt, steps = 4, batch_size = 8))
  td <- tidy(est, original_scale = FALSE)
  expect_identical(td$category[td$column == "cyl"], c("4", "6", "8"))
  expect_identical(td$term, names(coef(est)))
  expect_identical(td$estimate, unname(coef(est)))
  # on the data's scale: wt's slope divided by its sd, the intercept shifted by the mean
  orig <- tidy(est)
  expect_equal(orig$estimate[orig$term == "wt"], td$estimate[td$term == "wt"] / stats::sd(mt$wt))
  expect_equal(orig$estimate[1], td$estimate[1] - td$estimate[td$term == "wt"] * mean(mt$wt) / stats::sd(mt$wt))
  expect_equal(orig$estimate[orig$column == "cyl"], td$estimate[td$column == "cyl"])
  aug <- quietly(augment(est, mt))
  expect_identical(names(aug), c(names(mt), ".pred_class", ".pred_auto", ".pred_manual"))
  expect_identical(levels(aug$.pred_class), c("auto", "manual"))
  expect_identical(rownames(aug), rownames(mt))
  expect_equal(aug$.pred_auto + aug$.pred_manual, rep(1, 32), tolerance = 1e-6)
  ev <- quietly(evaluate(est, mt))
  expect_identical(tidy(ev)$.estimate[tidy(ev)$.metric == "roc_auc"], ev$auc)
})

test_that("tidy() and glance() of a parsnip fit reach the estimator's methods", {
  skip_if_not_installed("parsnip")
  spec <- parsnip::set_engine(parsnip::linear_reg(), "cppestimators", steps = 5)
  fitted <- briefly(quietly(parsnip::fit(spec, mpg ~ wt + hp, data = mtcars)))
  est <- parsnip::extract_fit_engine(fitted)
  expect_identical(tidy(fitted), tidy(est))
  expect_identical(tidy(fitted)$term, c("(Intercept)", "hp", "wt"))
  expect_identical(glance(fitted), glance(est))
  # (least squares: the coordinate-descent solver is done after two Newton steps of the five allowed)
  expect_identical(glance(fitted)$global_step, 2)
})
