# The surface tfestimators scripts rely on: callable input functions,
# numpy_input_fn(), a quiet stdout, keys, printing, untrained variables.

test_that("input_fn() objects are functions of the estimator returning list(features, labels)", {
  input <- suppressMessages(input_fn(mtcars, response = mpg, features = one_of(c("drat", "cyl"))))
  expect_true(is.function(input))
  inner <- input(linear_regressor(feature_columns = feature_columns(column_numeric("drat"))))
  expect_true(is.function(inner))
  value <- inner()
  expect_named(value, c("features", "labels"))
  expect_named(value$features, c("drat", "cyl"))
  expect_equal(value$features$drat, mtcars$drat)
  expect_equal(value$labels, mtcars$mpg)
  # the forms agree for one selection
  m <- as.matrix(mtcars)
  forms <- list(input_fn(as.list(mtcars), response = "mpg", features = c("drat", "cyl")),
                input_fn(m, response = "mpg", features = c("drat", "cyl")),
                input_fn(mpg ~ drat + cyl, data = mtcars))
  for (f in forms) expect_equal(f(NULL)(), value)
  # without a response: the features only
  expect_named(input_fn(mtcars, features = c("drat"))(NULL)(), "features")
  # a factor response comes back as its codes
  iris_value <- suppressMessages(input_fn(iris, response = Species))(NULL)()
  expect_equal(iris_value$labels, as.integer(iris$Species) - 1)
  expect_null(attr(iris_value$labels, "levels"))
})

test_that("train(), evaluate() and predict() take the object, its function, or a function returning either", {
  input <- mtcars_input()
  fcs <- feature_columns(column_numeric("drat", "cyl"))
  est <- suppressMessages(linear_regressor(feature_columns = fcs))
  quietly(train(est, input_fn = input, steps = 2))
  quietly(train(est, input_fn = input(est), steps = 2))
  quietly(train(est, input_fn = function() input, steps = 2))
  quietly(train(est, input_fn = function(estimator) input(estimator), steps = 2))
  expect_equal(variable_value(est, "global_step")[[1]], 8)
  expect_equal(nrow(quietly(predict(est, input_fn = input(est)))), 32)
  expect_error(train(est, input_fn = function(a, b) input, steps = 1), "'input_fn' should accept 0 or 1 arguments")
  expect_error(train(est, input_fn = list(1), steps = 1), "`input_fn` must be made by input_fn\\(\\)")
  # a data frame is read as input_fn() would read it, with a response
  expect_error(train(est, input_fn = mtcars, steps = 1),
               "train() with a data frame needs `response`: the name of the column to learn.", fixed = TRUE)
})

test_that("print() of an input function is one line with its settings", {
  expect_output(print(mtcars_input()),
                "^<input_fn: 32 rows; features drat, cyl; response mpg; batch_size 8; num_epochs 1; shuffle auto>$")
  wide <- input_fn(as.data.frame(matrix(1, 2, 9, dimnames = list(NULL, paste0("x", 1:9)))), features = everything(),
                   num_epochs = NULL, shuffle = FALSE)
  expect_output(print(wide), paste("features x1, x2, x3, x4, x5, ... \\(9 in all\\); response none; batch_size 128;",
                                   "num_epochs NULL \\(repeat\\); shuffle FALSE>"))
})

test_that("numpy_input_fn() feeds named arrays like input_fn() on a list", {
  x <- list(wt = mtcars$wt, drat = mtcars$drat)
  input <- numpy_input_fn(x, y = mtcars$mpg, batch_size = 8L, shuffle = FALSE)
  expect_s3_class(input, "cppestimators_input_fn")
  expect_output(print(input), "features drat, wt; response y; batch_size 8; num_epochs 1; shuffle FALSE")
  fcs <- feature_columns(column_numeric("drat", "wt"))
  a <- suppressMessages(linear_regressor(feature_columns = fcs, config = run_config(tf_random_seed = 1)))
  b <- suppressMessages(linear_regressor(feature_columns = fcs, config = run_config(tf_random_seed = 1)))
  quietly(train(a, input, steps = 4))
  quietly(train(b, input_fn(mtcars, response = "mpg", features = c("drat", "wt"), batch_size = 8L, shuffle = FALSE),
                steps = 4))
  expect_equal(coef(a), coef(b))
  # a matrix feature, a named y, no y
  mx <- list(v = cbind(mtcars$drat, mtcars$wt))
  expect_named(numpy_input_fn(mx, y = list(mpg = mtcars$mpg), shuffle = TRUE)(NULL)(), c("features", "labels"))
  expect_equal(numpy_input_fn(mx, shuffle = TRUE)$response, NULL)
  expect_error(numpy_input_fn(x, y = 1:3, shuffle = FALSE), "Length of tensors in x and y is mismatched")
  expect_error(numpy_input_fn(x, y = mtcars$mpg, shuffle = NULL), "`shuffle` must be provided and explicitly set")
  expect_error(numpy_input_fn(list(1:3)), "`x` must be a named list of arrays")
  expect_error(numpy_input_fn(list(y = 1:3), y = list(y = 1:3), shuffle = TRUE), "also a feature in `x`")
})

test_that("stdout holds only what the user's hooks print; bars and messages go to stderr", {
  hook <- session_run_hook(after_run = function(context, values) cat("user line\n"))
  out <- utils::capture.output(suppressMessages(
    h <- train(drat_regressor(), mtcars_input(), steps = 3, hooks = list(hook))))
  expect_equal(out, rep("user line", 3))
  err <- utils::capture.output(invisible(utils::capture.output(
    train(drat_regressor(), mtcars_input(), steps = 3))), type = "message")
  expect_match(err, "^Training 3/3 \\[=+\\] - ETA:  0s - loss: ", all = FALSE)
  # options(cppestimators.progress = FALSE) silences the bar but not the short-input message
  old <- options(cppestimators.progress = FALSE)
  on.exit(options(old))
  err <- utils::capture.output(invisible(utils::capture.output(
    suppressMessages(train(drat_regressor(), mtcars_input(), steps = 3)))), type = "message")
  expect_length(err, 0)
  expect_message(utils::capture.output(train(drat_regressor(), mtcars_input(), steps = 10)),
                 "Training completed after 4 steps but 10 steps was specified")
  # and that message is the only line: no blank line before it
  err <- utils::capture.output(invisible(utils::capture.output(train(drat_regressor(), mtcars_input(), steps = 10))),
                               type = "message")
  expect_equal(err, "Training completed after 4 steps but 10 steps was specified")
  options(cppestimators.progress = "no")
  expect_error(train(drat_regressor(), mtcars_input(), steps = 1),
               "options\\(cppestimators.progress =\\) must be TRUE or FALSE")
})

test_that("variables of an estimator that never trained are tfestimators' error", {
  est <- drat_regressor()
  expect_error(variable_names(est), "'variable_names()' must be called on a trained model", fixed = TRUE)
  expect_error(variable_value(est), "'variable_value()' must be called on a trained model", fixed = TRUE)
  dir <- tempfile()
  quietly(train(drat_regressor(model_dir = dir), mtcars_input(), steps = 1))
  # a new estimator on a trained model_dir reads its checkpoint
  expect_equal(variable_value(drat_regressor(model_dir = dir), "global_step")[[1]], 1)
})

test_that("keys have TensorFlow's values and select predictions", {
  expect_equal(mode_keys(), list(TRAIN = "train", EVAL = "eval", PREDICT = "infer"))
  expect_equal(prediction_keys()$PROBABILITIES, "probabilities")
  expect_equal(prediction_keys()$CLASS_IDS, "class_ids")
  expect_equal(metric_keys()$LOSS_MEAN, "average_loss")
  expect_equal(sprintf(metric_keys()$AUC_AT_CLASS, 2L), "auc/class2")
  expect_equal(graph_keys()$LOSSES, "losses")
  expect_equal(graph_keys()$GLOBAL_STEP, "global_step")
  est <- suppressMessages(linear_classifier(feature_columns = feature_columns(column_numeric("drat")), n_classes = 3))
  input <- input_fn(transform(mtcars, cls = cyl / 2 - 2), response = "cls", features = "drat", batch_size = 8L)
  quietly(train(est, input, steps = 2))
  p <- quietly(predict(est, input, predict_keys = prediction_keys()$PROBABILITIES))
  expect_named(p, "probabilities")
  expect_equal(length(p$probabilities[[1]]), 3)
  # hooks read collections by these names
  seen <- NULL
  hook <- session_run_hook(after_run = function(context, values) {
    seen <<- length(context$session$graph$get_collection(graph_keys()$LOSSES))
  })
  quietly(train(est, input, steps = 1, hooks = list(hook)))
  expect_gte(seen, 2)  # the per-example losses first, the training loss last
})

test_that("feature columns print as tfestimators printed them", {
  expect_output(print(column_numeric("drat")),
                paste0("^_NumericColumn\\(key='drat', shape=\\(1,\\), default_value=None, dtype=tf.float32, ",
                       "normalizer_fn=None\\)$"))
  expect_output(print(column_bucketized(column_numeric("wt"), c(2, 3))),
                "^_BucketizedColumn\\(source_column=_NumericColumn\\(key='wt', .*\\), boundaries=\\(2, 3\\)\\)$")
  expect_output(print(column_categorical_with_vocabulary_list("cyl", vocabulary_list = c("4", "6"))),
                paste0("_VocabularyListCategoricalColumn\\(key='cyl', vocabulary_list=\\('4', '6'\\), ",
                       "dtype=tf.string, default_value=-1, num_oov_buckets=0\\)"))
  expect_output(print(column_categorical_with_identity("id", num_buckets = 4)),
                "_IdentityCategoricalColumn\\(key='id', num_buckets=4, default_value=None\\)")
  expect_output(print(column_embedding(column_categorical_with_hash_bucket("car", hash_bucket_size = 100),
                                       dimension = 3)),
                paste0("_EmbeddingColumn\\(categorical_column=_HashedCategoricalColumn\\(key='car', ",
                       "hash_bucket_size=100, dtype=tf.string\\), dimension=3, combiner='mean'"))
  expect_output(print(column_crossed(c("a", "b"), 10)),
                "_CrossedColumn\\(keys=\\('a', 'b'\\), hash_bucket_size=10, hash_key=None\\)")
  out <- utils::capture.output(print(feature_columns(column_numeric("drat"), column_numeric("wt"))))
  expect_equal(out[1], "2 feature columns")
  expect_match(out[3], "^\\[\\[2\\]\\] _NumericColumn\\(key='wt'")
})

test_that("estimators print and str() their kind, columns, head, optimizers, model_dir and step", {
  fc <- feature_columns(column_numeric("drat"))
  est <- suppressMessages(dnn_linear_combined_classifier(linear_feature_columns = fc, dnn_feature_columns = fc,
                                                         dnn_hidden_units = c(4, 2), n_classes = 3,
                                                         model_dir = file.path(tempdir(), "printed")))
  out <- utils::capture.output(print(est))
  expect_equal(out[1], "<dnn_linear_combined_classifier>")
  expect_match(out, "head: +multi-class classification \\(3 classes\\)", all = FALSE)
  expect_match(out, "linear columns: +drat", all = FALSE)
  expect_match(out, "hidden units: +4, 2 \\(relu\\)", all = FALSE)
  expect_match(out, "linear optimizer: +Ftrl", all = FALSE)
  expect_match(out, "dnn optimizer: +Adagrad", all = FALSE)
  expect_match(out, "model_dir: +.*printed$", all = FALSE)
  expect_match(out, "global step: +0$", all = FALSE)
  s <- utils::capture.output(str(est))
  expect_match(s[1], "^dnn_linear_combined_classifier estimator")
  expect_match(s, "\\$ global_step +: 0", all = FALSE)
})
