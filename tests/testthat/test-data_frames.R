# Data frames in place of feature columns and input functions:
# feature_columns_from_data(), train()/evaluate()/predict() on a data frame,
# predict(type =), and the checks of new data against what training saw.

mixed_data <- function(n = 60) {
  set.seed(3)
  df <- data.frame(x = runif(n), k = sample(1:3, n, TRUE), g = sample(c("b", "a", "c"), n, TRUE),
                   f = factor(sample(c("v", "u"), n, TRUE), levels = c("v", "u")),
                   l = sample(c(TRUE, FALSE), n, TRUE), stringsAsFactors = FALSE)
  df$y <- df$x + (df$g == "a") + df$l
  df
}

test_that("feature_columns_from_data() makes one column per variable, by type", {
  cols <- feature_columns_from_data(mixed_data(), response = y)
  expect_s3_class(cols, "cppestimators_feature_columns")
  kinds <- vapply(cols, function(c) c$kind, "")
  names(kinds) <- vapply(cols, function(c) c$name, "")
  expect_equal(kinds, c(x = "numeric", k = "numeric", g = "vocabulary_list", f = "vocabulary_list",
                        l = "vocabulary_list"))
  vocab <- function(nm) cols[[which(names(kinds) == nm)]]$vocabulary
  expect_equal(vocab("g"), c("a", "b", "c"))   # sorted unique values
  expect_equal(vocab("f"), c("v", "u"))        # the factor's levels, in their order
  expect_equal(vocab("l"), c(0, 1))            # a logical is read as 0 and 1
  expect_equal(attr(cols, "response"), list(name = "y", levels = NULL))
  # a selection, and the response left out of the default selection
  two <- feature_columns_from_data(iris, features = starts_with("Petal"))
  expect_equal(vapply(two, function(c) c$name, ""), c("Petal.Length", "Petal.Width"))
  expect_null(attr(two, "response"))
  all <- feature_columns_from_data(iris, response = "Species")
  expect_equal(length(all), 4L)
  expect_equal(attr(all, "response")$levels, levels(iris$Species))
})

test_that("dense = TRUE wraps categorical columns in indicators, or embeddings above a size", {
  df <- data.frame(x = 1:30, few = rep(c("a", "b"), 15), many = sprintf("id%02d", 1:30))
  cols <- feature_columns_from_data(df, dense = TRUE, embedding_above = 10)
  expect_equal(vapply(cols, function(c) c$kind, ""), c("numeric", "indicator", "embedding"))
  expect_equal(cols[[3]]$dimension, ceiling(30^0.25))
  expect_equal(cols[[3]]$categorical_column$vocabulary, sprintf("id%02d", 1:30))
  cols <- feature_columns_from_data(df, dense = TRUE, embedding_above = 10, embedding_dimension = 4)
  expect_equal(cols[[3]]$dimension, 4)
  expect_equal(feature_columns_from_data(df, dense = TRUE)[[3]]$kind, "indicator")
  expect_equal(feature_columns_from_data(df, dense = TRUE, embedding_above = Inf)[[3]]$kind, "indicator")
  oov <- feature_columns_from_data(df, features = few, num_oov_buckets = 2)
  expect_equal(oov[[1]]$num_oov_buckets, 2)
})

test_that("feature_columns_from_data() refuses what it cannot read, naming it", {
  expect_error(feature_columns_from_data(list(a = 1)), "`data` must be a data frame, not an object of class 'list'")
  expect_error(feature_columns_from_data(data.frame(d = Sys.Date() + 0:1)),
               "the feature 'd' is a Date")
  expect_error(feature_columns_from_data(iris, response = nope), "`response`: column 'nope' not found")
  expect_error(feature_columns_from_data(iris["Species"], response = Species),
               "`data` has no columns besides the response")
  expect_error(feature_columns_from_data(iris, dense = "yes"), "`dense` must be TRUE or FALSE")
  expect_error(feature_columns_from_data(data.frame(g = NA_character_)), "the feature 'g' has no values")
})

test_that("a classifier takes its classes from the response, a regressor refuses a categorical one", {
  est <- linear_classifier(feature_columns = feature_columns_from_data(iris, response = Species),
                           model_dir = tempfile())
  expect_equal(est$spec$head_n, 3L)
  expect_equal(est$spec$label_vocabulary, levels(iris$Species))
  # given explicitly, n_classes wins (and then no vocabulary is taken)
  est2 <- linear_classifier(feature_columns = feature_columns_from_data(iris, response = Species),
                            n_classes = 4, model_dir = tempfile())
  expect_equal(est2$spec$head_n, 4L)
  expect_null(est2$spec$label_vocabulary)
  am <- transform(mtcars, am = factor(am, labels = c("manual", "auto")))
  wd <- dnn_linear_combined_classifier(
    linear_feature_columns = feature_columns_from_data(am, features = c(wt, hp), response = am),
    dnn_feature_columns = feature_columns(column_numeric("qsec")), dnn_hidden_units = 2,
    model_dir = tempfile())
  expect_equal(wd$spec$label_vocabulary, c("manual", "auto"))
  expect_error(linear_regressor(feature_columns = feature_columns_from_data(iris, response = Species)),
               "the response 'Species' of these feature columns is categorical")
})

test_that("train(), evaluate() and predict() on a data frame equal the same input_fn()", {
  cfg <- run_config(tf_random_seed = 7)
  cols <- feature_columns_from_data(iris, response = Species)
  a <- linear_classifier(feature_columns = cols, config = cfg, model_dir = tempfile())
  b <- linear_classifier(feature_columns = cols, config = cfg, model_dir = tempfile())
  quietly(train(a, iris, num_epochs = 5, batch_size = 16))
  quietly(train(b, input_fn(iris, features = -Species, response = Species, batch_size = 16, num_epochs = 5)))
  expect_equal(coef(a), coef(b))
  expect_equal(quietly(predict(a, iris)), quietly(predict(a, input_fn(iris, features = -Species))))
  ev_a <- quietly(evaluate(a, iris))
  ev_b <- quietly(evaluate(b, input_fn(iris, features = -Species, response = Species)))
  expect_equal(ev_a, ev_b)
  # a factor response coded by the estimator's vocabulary is encoded without a message
  msgs <- messages_of(utils::capture.output(train(a, iris, steps = 1), type = "message"))
  expect_false(any(grepl("have been encoded", msgs)))
  msgs <- messages_of(utils::capture.output(input_fn(iris, response = Species), type = "message"))
  expect_true(any(grepl("have been encoded", msgs)))
})

test_that("the response defaults to the one recorded, and other arguments are checked", {
  df <- mixed_data()
  est <- linear_regressor(feature_columns = feature_columns(column_numeric("x")), model_dir = tempfile())
  expect_error(train(est, df, steps = 1), "train() with a data frame needs `response`", fixed = TRUE)
  quietly(train(est, df, response = y, num_epochs = 2, batch_size = 30))
  # recorded by that train(): evaluate() needs it no more
  expect_equal(quietly(evaluate(est, df))$global_step, 4)
  expect_error(train(est, df, response = y, batchsize = 64),
               "train() with a data frame takes `response`, `batch_size`, `shuffle` and `num_epochs`; `batchsize` is not one of them. Did you mean `batch_size`?",
               fixed = TRUE, class = "cppestimators_error")
  expect_error(evaluate(est, df["y"]), "evaluate(): the data frame has no column 'x', which the estimator's feature columns read; it has y.",
               fixed = TRUE)
  expect_error(evaluate(est, df[c("x", "k")]), "evaluate(): the data frame has no column 'y' (the response); give `response`.",
               fixed = TRUE)
})

test_that("predict(type =) gives parsnip's columns, one row per input row", {
  cols <- feature_columns_from_data(iris, response = Species)
  est <- linear_classifier(feature_columns = cols, model_dir = tempfile())
  quietly(train(est, iris, num_epochs = 20))
  prob <- quietly(predict(est, iris, type = "prob"))
  expect_equal(names(prob), paste0(".pred_", levels(iris$Species)))
  expect_equal(nrow(prob), 150L)
  expect_equal(rowSums(prob), rep(1, 150), tolerance = 1e-6)
  cls <- quietly(predict(est, iris, type = "class"))
  expect_equal(names(cls), ".pred_class")
  expect_equal(levels(cls$.pred_class), levels(iris$Species))
  expect_equal(as.character(cls$.pred_class), quietly(predict(est, iris))$classes)
  expect_equal(max.col(as.matrix(prob)), as.integer(cls$.pred_class))
  # the type with an input function too
  expect_equal(quietly(predict(est, input_fn(iris, features = -Species), type = "prob")), prob)
  # a binary classifier on a 0/1 response: classes "0" and "1"
  bin <- linear_classifier(feature_columns = feature_columns(column_numeric("wt")), model_dir = tempfile())
  quietly(train(bin, mtcars, response = am, num_epochs = 3))
  p <- quietly(predict(bin, mtcars, type = "prob"))
  expect_equal(names(p), c(".pred_0", ".pred_1"))
  expect_equal(p$.pred_1, quietly(predict(bin, mtcars))$logistic)
  expect_equal(levels(quietly(predict(bin, mtcars, type = "class"))$.pred_class), c("0", "1"))
  # a factor response without a vocabulary: the classes are its levels
  am <- transform(mtcars, am = factor(am, labels = c("manual", "auto")))
  fac <- linear_classifier(feature_columns = feature_columns(column_numeric("wt")), model_dir = tempfile())
  quietly(train(fac, am, response = am, num_epochs = 3))
  expect_equal(levels(quietly(predict(fac, am, type = "class"))$.pred_class), c("manual", "auto"))
  # regressors: .pred, or .pred_1, .pred_2 for two targets
  reg <- linear_regressor(feature_columns = feature_columns(column_numeric("wt")), model_dir = tempfile())
  quietly(train(reg, mtcars, response = mpg, num_epochs = 2))
  num <- quietly(predict(reg, mtcars, type = "numeric"))
  expect_equal(names(num), ".pred")
  expect_equal(num$.pred, quietly(predict(reg, mtcars))$predictions)
  two <- linear_regressor(feature_columns = feature_columns(column_numeric("wt")), label_dimension = 2,
                          model_dir = tempfile())
  quietly(train(two, input_fn(list(wt = mtcars$wt, y = cbind(mtcars$mpg, mtcars$qsec)), features = wt,
                              response = y), steps = 2))
  out <- quietly(predict(two, input_fn(list(wt = mtcars$wt), features = wt), type = "numeric"))
  expect_equal(names(out), c(".pred_1", ".pred_2"))
  expect_error(predict(reg, mtcars, type = "class"),
               "`type = \"class\"` is not for a regressor: a regressor predicts type = \"numeric\".", fixed = TRUE)
  expect_error(predict(est, iris, type = "numeric"), "a classifier predicts type = \"class\" or \"prob\"",
               fixed = TRUE)
  expect_error(predict(est, iris, type = "raw"), "`type` must be NULL or one of \"numeric\", \"class\" or \"prob\"",
               fixed = TRUE)
})

test_that("a DNN on columns read off iris reaches the accuracy of hand-written ones", {
  cfg <- run_config(tf_random_seed = 11)
  inferred <- dnn_classifier(hidden_units = c(10, 10), config = cfg, model_dir = tempfile(),
                             feature_columns = feature_columns_from_data(iris, response = Species,
                                                                         standardize = FALSE))
  by_hand <- dnn_classifier(hidden_units = c(10, 10), config = cfg, model_dir = tempfile(), n_classes = 3,
                            label_vocabulary = levels(iris$Species),
                            feature_columns = feature_columns(column_numeric("Sepal.Length", "Sepal.Width",
                                                                             "Petal.Length", "Petal.Width")))
  quietly(train(inferred, iris, num_epochs = 60, batch_size = 16))
  quietly(train(by_hand, input_fn(iris, features = -Species, response = Species, num_epochs = 60,
                                  batch_size = 16)))
  acc_inferred <- mean(quietly(predict(inferred, iris, type = "class"))$.pred_class == iris$Species)
  acc_hand <- mean(quietly(predict(by_hand, iris, type = "class"))$.pred_class == iris$Species)
  expect_gt(acc_inferred, 0.9)
  expect_equal(acc_inferred, acc_hand)
  # standardized (the default): as accurate
  scaled <- dnn_classifier(hidden_units = c(10, 10), config = cfg, model_dir = tempfile(),
                           feature_columns = feature_columns_from_data(iris, response = Species))
  quietly(train(scaled, iris, num_epochs = 60, batch_size = 16))
  expect_gt(mean(quietly(predict(scaled, iris, type = "class"))$.pred_class == iris$Species), 0.9)
})

test_that("new data are checked against what training saw, naming the column", {
  df <- mixed_data()
  est <- linear_regressor(feature_columns = feature_columns_from_data(df, response = y), model_dir = tempfile())
  quietly(train(est, df, num_epochs = 2))
  expect_equal(nrow(quietly(predict(est, df))), 60L)
  nd <- df
  nd$x <- NULL
  expect_error(predict(est, nd), "predict(): the data frame has no column 'x'", fixed = TRUE)
  nd <- df
  nd$x <- as.character(nd$x)
  expect_error(predict(est, nd),
               "feature 'x' was numeric in training but is a factor or character here", fixed = TRUE)
  nd <- df
  nd$f <- as.numeric(nd$f)
  expect_error(evaluate(est, nd), "feature 'f' was a factor or character in training but is numeric here",
               fixed = TRUE)
  nd <- df
  nd$g[c(2, 5)] <- c("zz", "yy")
  expect_error(predict(est, nd), "feature 'g' has values not seen in training: 'zz', 'yy'", fixed = TRUE)
  # a factor with an extra level: an error only when the level is used
  nd <- df
  nd$f <- factor(as.character(nd$f), levels = c("v", "u", "w"))
  expect_equal(nrow(quietly(predict(est, nd))), 60L)
  nd$f[3] <- "w"
  expect_error(predict(est, nd), "feature 'f' has a value not seen in training: 'w'", fixed = TRUE)
  # through an input function too
  expect_error(predict(est, input_fn(nd, features = -y)), "feature 'f' has a value not seen in training: 'w'",
               fixed = TRUE)
  # kept by saveRDS() and by export_savedmodel()
  path <- tempfile(fileext = ".rds")
  saveRDS(est, path)
  expect_error(predict(readRDS(path), nd), "feature 'f' has a value not seen in training: 'w'", fixed = TRUE)
  loaded <- load_estimator(export_savedmodel(est, tempfile()), model_dir = tempfile())
  expect_error(predict(loaded, nd), "feature 'f' has a value not seen in training: 'w'", fixed = TRUE)
  expect_equal(quietly(predict(loaded, df)), quietly(predict(est, df)))
  err <- tryCatch(predict(est, nd), error = identity)
  expect_s3_class(err, "cppestimators_error")
})

test_that("a column with out-of-vocabulary buckets takes unseen values; hand-written columns keep TF's rule", {
  df <- mixed_data()
  est <- linear_regressor(feature_columns = feature_columns_from_data(df, response = y, num_oov_buckets = 1),
                          model_dir = tempfile())
  quietly(train(est, df, num_epochs = 2))
  nd <- df
  nd$g[1:3] <- "zz"
  expect_equal(nrow(quietly(predict(est, nd))), 60L)
  # a hand-written vocabulary on character data: values outside it are
  # ignored (default_value = -1), as in TensorFlow
  tf <- linear_regressor(feature_columns = feature_columns(
    column_categorical_with_vocabulary_list("g", vocabulary_list = c("a", "b"))), model_dir = tempfile())
  quietly(train(tf, df, response = y, num_epochs = 2))
  expect_equal(nrow(quietly(predict(tf, nd))), 60L)
})

test_that("train(), evaluate() and predict() on a data frame take epochs as num_epochs", {
  est <- drat_regressor(model_dir = tempfile())
  quietly(train(est, mtcars, response = "mpg", batch_size = 8, epochs = 3))
  expect_equal(variable_value(est, "global_step")$global_step, 12)
  quietly(train(est, mtcars, response = "mpg", batch_size = 8, num_epochs = 3))
  expect_equal(variable_value(est, "global_step")$global_step, 24)
  expect_equal(quietly(evaluate(est, mtcars, batch_size = 8, epochs = 2))$global_step, 24)
  expect_equal(nrow(predict(est, mtcars, epochs = 2)), 64)
  expect_error(train(est, mtcars, response = "mpg", epochs = 3, num_epochs = 2),
               "train(): give `num_epochs` or `epochs`", fixed = TRUE, class = "cppestimators_argument_conflict")
  expect_error(train(est, input_fn(mtcars, response = "mpg", features = "drat"), epochs = 3),
               "`epochs` is for a data frame given as `input_fn`", class = "cppestimators_unknown_argument")
})

# Issue 52: data without rows and sparse matrices are refused with errors
# saying so.
test_that("train() and evaluate() of data without rows say the data has no rows; predict() gives 0 rows", {
  est <- drat_regressor()
  msg <- "train(): the data has no rows (0 rows): there is nothing to train on."
  expect_error(train(est, mtcars[0, ], response = "mpg"), msg, fixed = TRUE, class = "cppestimators_empty_data")
  expect_error(train(est, input_fn(mtcars[0, ], features = "drat", response = "mpg")), msg, fixed = TRUE,
               class = "cppestimators_empty_data")
  quietly(train(est, mtcars, response = "mpg"))
  msg <- "evaluate(): the data has no rows (0 rows)"
  expect_error(evaluate(est, mtcars[0, ], response = "mpg"), msg, fixed = TRUE, class = "cppestimators_empty_data")
  expect_error(evaluate(est, input_fn(mtcars[0, ], features = "drat", response = "mpg")), msg, fixed = TRUE,
               class = "cppestimators_empty_data")
  p <- quietly(predict(est, mtcars[0, ]))
  expect_s3_class(p, "data.frame")
  expect_identical(nrow(p), 0L)
  expect_identical(nrow(quietly(predict(est, mtcars[0, ], type = "numeric"))), 0L)
})

test_that("sparse matrices given where an input function is needed say how to give them", {
  skip_if_not_installed("Matrix")
  m <- Matrix::Matrix(as.matrix(mtcars), sparse = TRUE)
  expect_s4_class(m, "dgCMatrix")
  # input_fn() of a sparse matrix: one feature, "x", and a response vector
  expect_error(input_fn(m, response = "mpg"), class = "cppestimators_response",
               "`response` must be NULL or a vector with one value per row of the matrix (32)", fixed = TRUE)
  expect_identical(names(input_fn(m)$features), "x")
  est <- drat_regressor()
  expect_error(train(est, m), "train(): `input_fn` is a sparse matrix (class 'dgCMatrix'): give it to input_fn()",
               fixed = TRUE, class = "cppestimators_sparse_matrix")
  quietly(train(est, mtcars, response = "mpg"))
  expect_error(evaluate(est, m), "evaluate(): `input_fn` is a sparse matrix", fixed = TRUE,
               class = "cppestimators_sparse_matrix")
  # predict() reads it as input_fn(m): its feature x is not the model's drat
  expect_error(predict(est, m), "feature 'drat' is used by a feature column but is not among the input's features (x)",
               fixed = TRUE, class = "cppestimators_error")
  # the Matrix package's dense classes are not read either
  expect_error(input_fn(Matrix::Matrix(as.matrix(mtcars), sparse = FALSE)),
               "a Matrix package matrix (class 'dgeMatrix')",
               fixed = TRUE, class = "cppestimators_sparse_matrix")
})
