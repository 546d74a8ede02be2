# DNN estimators: construction, errors, training on iris and on a nonlinear
# regression, checkpoints and saveRDS.

iris_dnn <- function(...) {
  suppressMessages(dnn_classifier(hidden_units = c(10, 10),
                                  feature_columns = feature_columns(column_numeric(starts_with(c("Sepal", "Petal"))),
                                                                    names = iris),
                                  n_classes = 3, config = run_config(tf_random_seed = 42), ...))
}

test_that("dnn_classifier reaches 0.9 training accuracy on iris, with TF's variables and keys", {
  est <- iris_dnn()
  input <- suppressMessages(input_fn(iris, response = "Species", batch_size = 32L, num_epochs = NULL))
  quietly(train(est, input, steps = 600))
  ev <- quietly(evaluate(est, suppressMessages(input_fn(iris, response = "Species", batch_size = 150L))))
  expect_gte(ev$accuracy, 0.9)
  expect_true(all(c("dnn/hiddenlayer_0/kernel", "dnn/hiddenlayer_1/bias", "dnn/logits/kernel",
                    "dnn/logits/kernel/Adagrad") %in% variable_names(est)))
  expect_equal(dim(variable_value(est, "dnn/hiddenlayer_0/kernel")[[1]]), c(4L, 10L))
  p <- predict(est, input_fn(iris[c(1, 51, 101), ], features = -Species))
  expect_equal(names(p), c("logits", "probabilities", "class_ids", "classes"))
  expect_equal(p$class_ids, c(0L, 1L, 2L))
  expect_error(coef(est), "coef\\(\\) gives the weights of linear estimators")
})

test_that("dnn_regressor beats linear_regressor on held-out data of a nonlinear function", {
  set.seed(3)
  make <- function(n) {
    x1 <- stats::runif(n, -2, 2)
    x2 <- stats::runif(n, -2, 2)
    data.frame(x1 = x1, x2 = x2, y = sin(2 * x1) + x2^2)
  }
  train_df <- make(2000)
  test_df <- make(500)
  fcs <- feature_columns(column_numeric("x1", "x2"))
  dnn <- suppressMessages(dnn_regressor(hidden_units = c(32, 16), feature_columns = fcs,
                                        optimizer = optimizer_adam(0.01),
                                        config = run_config(tf_random_seed = 1)))
  lin <- suppressMessages(linear_regressor(fcs))
  input <- input_fn(train_df, response = "y", batch_size = 64L, num_epochs = NULL)
  quietly(train(dnn, input, steps = 1500))
  quietly(train(lin, input, steps = 1500))
  held <- input_fn(test_df, response = "y", batch_size = 500L)
  dnn_loss <- quietly(evaluate(dnn, held))$average_loss
  lin_loss <- quietly(evaluate(lin, held))$average_loss
  expect_lt(dnn_loss, lin_loss / 3)
})

test_that("DNNs take embeddings, indicators and bucketized columns; raw categorical columns are refused", {
  df <- data.frame(c = c("a", "b", "c", "a"), x = c(1, 5, 9, 3), y = c(1, 2, 3, 1))
  voc <- column_categorical_with_vocabulary_list("c", vocabulary_list = c("a", "b", "c"))
  fcs <- feature_columns(column_embedding(voc, dimension = 2), column_indicator(voc),
                         column_bucketized(column_numeric("x"), boundaries = c(2, 6)))
  est <- suppressMessages(dnn_regressor(hidden_units = 4, feature_columns = fcs,
                                        config = run_config(tf_random_seed = 2)))
  before <- engine_values(est, "dnn/input_from_feature_columns/input_layer/c_embedding/embedding_weights")[[1]]
  quietly(train(est, input_fn(df, response = "y", num_epochs = NULL), steps = 20))
  after <- variable_value(est, "dnn/input_from_feature_columns/input_layer/c_embedding/embedding_weights")[[1]]
  expect_false(isTRUE(all.equal(before, after)))
  # 2 (embedding) + 3 (indicator) + 3 (bucketized) inputs
  expect_equal(dim(variable_value(est, "dnn/hiddenlayer_0/kernel")[[1]]), c(8L, 4L))
  raw <- suppressMessages(dnn_regressor(hidden_units = 4, feature_columns = feature_columns(voc)))
  expect_error(quietly(train(raw, input_fn(df, response = "y"), steps = 1)),
               "You can wrap a categorical column with column_embedding\\(\\) or column_indicator\\(\\)")
})

test_that("DNN arguments are checked with TF's messages", {
  fcs <- feature_columns(column_numeric("x"))
  expect_error(dnn_regressor(hidden_units = c(4, 0), feature_columns = fcs), "`hidden_units` must be")
  expect_error(dnn_regressor(hidden_units = 4, feature_columns = fcs, activation_fn = "swish"),
               "'swish' is not a known activation function in the 'tf\\$nn' module")
  expect_error(dnn_regressor(hidden_units = 4, feature_columns = fcs, dropout = 1), "`dropout` must be")
  expect_error(dnn_regressor(hidden_units = 4, feature_columns = fcs, optimizer = NULL),
               "The given object is not an Optimizer instance")
  est <- suppressMessages(dnn_regressor(hidden_units = 4, feature_columns = fcs))
  expect_equal(est$spec$optimizer$name, "Adagrad")
  expect_equal(est$spec$optimizer$learning_rate, 0.05)
  expect_s3_class(est, "tf_estimator_regressor_dnn_regressor")
})

test_that("a DNN with dropout checkpoints, resumes, and survives saveRDS with the same predictions", {
  dir <- tempfile()
  est <- iris_dnn(model_dir = dir, dropout = 0.2, activation_fn = "tanh")
  input <- suppressMessages(input_fn(iris, response = "Species", batch_size = 50L, num_epochs = 2))
  quietly(train(est, input))
  newdata <- input_fn(iris[c(1, 60, 120), ], features = -Species)
  p <- predict(est, newdata)
  expect_equal(predict(est, newdata), p)  # no dropout outside training
  again <- iris_dnn(model_dir = dir, dropout = 0.2, activation_fn = "tanh")
  expect_equal(predict(again, newdata), p)
  expect_equal(variable_value(again, "global_step")[[1]], 6)
  rds <- tempfile(fileext = ".rds")
  saveRDS(est, rds)
  unlink(dir, recursive = TRUE)
  expect_equal(predict(readRDS(rds), newdata), p)
})

test_that("wide & deep on categorical and numeric columns trains, evaluates, predicts, checkpoints and resumes", {
  set.seed(9)
  n <- 1500
  df <- data.frame(color = sample(c("red", "green", "blue"), n, TRUE), size = stats::runif(n, 0, 10),
                   weight = stats::rnorm(n), stringsAsFactors = FALSE)
  df$label <- as.integer((df$color == "red") + (df$size > 5) + 0.5 * df$weight + stats::rnorm(n, sd = 0.3) > 1)
  color <- column_categorical_with_vocabulary_list("color", vocabulary_list = c("red", "green", "blue"))
  make <- function(dir) {
    suppressMessages(dnn_linear_combined_classifier(
      model_dir = dir,
      linear_feature_columns = feature_columns(color, column_bucketized(column_numeric("size"), c(2.5, 5, 7.5))),
      dnn_feature_columns = feature_columns(column_embedding(color, dimension = 2), column_numeric("size", "weight")),
      dnn_hidden_units = c(8, 4), dnn_optimizer = optimizer_adagrad(0.05),
      config = run_config(tf_random_seed = 3)))
  }
  dir <- tempfile()
  est <- make(dir)
  expect_equal(est$spec$optimizers$linear$name, "Ftrl")
  expect_equal(est$spec$optimizers$linear$learning_rate, min(0.005, 1 / sqrt(2)))
  input <- input_fn(df, response = "label", batch_size = 64L, num_epochs = 4)
  quietly(train(est, input))
  steps <- ceiling(4 * n / 64)
  expect_equal(variable_value(est, "global_step")[[1]], steps)  # once per batch, not once per part
  vars <- variable_names(est)
  expect_true(all(c("linear/linear_model/color/weights", "linear/linear_model/color/weights/Ftrl",
                    "linear/linear_model/size_bucketized/weights", "linear/linear_model/bias_weights",
                    "dnn/hiddenlayer_0/kernel", "dnn/hiddenlayer_0/kernel/Adagrad", "dnn/logits/bias",
                    "dnn/input_from_feature_columns/input_layer/color_embedding/embedding_weights") %in% vars))
  expect_false(any(grepl("linear/linear_model/(size|weight)/weights", vars)))  # DNN-only columns
  ev <- quietly(evaluate(est, input_fn(df, response = "label", batch_size = 500L)))
  expect_gt(ev$accuracy, ev$accuracy_baseline + 0.1)
  p <- predict(est, input_fn(df[1:5, ], features = -label))
  expect_equal(names(p), c("logits", "logistic", "probabilities", "class_ids", "classes"))
  again <- make(dir)
  expect_equal(predict(again, input_fn(df[1:5, ], features = -label)), p)
  quietly(train(again, input_fn(df, response = "label", batch_size = 64L), steps = 3))
  expect_equal(variable_value(again, "global_step")[[1]], steps + 3)
})

test_that("either part of wide & deep may be absent; both absent is TF's error", {
  fcs <- feature_columns(column_numeric("x"))
  expect_error(dnn_linear_combined_regressor(), "Either linear_feature_columns or dnn_feature_columns must be defined.")
  expect_error(dnn_linear_combined_regressor(dnn_feature_columns = fcs),
               "dnn_hidden_units must be defined when dnn_feature_columns is specified.")
  df <- data.frame(x = seq(-1, 1, length.out = 50))
  df$y <- 3 * df$x
  lin <- suppressMessages(dnn_linear_combined_regressor(linear_feature_columns = fcs,
                                                        linear_optimizer = optimizer_sgd(0.01)))
  quietly(train(lin, input_fn(df, response = "y", batch_size = 10L, num_epochs = NULL), steps = 300))
  expect_equal(unname(variable_value(lin, "linear/linear_model/x/weights")[[1]][1, 1]), 3, tolerance = 0.1)
  deep <- suppressMessages(dnn_linear_combined_regressor(dnn_feature_columns = fcs, dnn_hidden_units = 4))
  quietly(train(deep, input_fn(df, response = "y"), steps = 2))
  expect_false(any(grepl("^linear/", variable_names(deep))))
})

test_that("a seeded DNN with dropout trains to identical weights twice", {
  run <- function() {
    est <- iris_dnn(dropout = 0.3)
    quietly(train(est, suppressMessages(input_fn(iris, response = "Species", batch_size = 30L,
                                                 num_epochs = NULL)), steps = 40))
    variable_value(est)
  }
  first <- run()
  expect_identical(run(), first)
  expect_false(isTRUE(all.equal(first, engine_values(iris_dnn(dropout = 0.3)))))  # it trained
})

test_that("large DNN batches split over threads: one result per thread count", {
  set.seed(4)
  df <- as.data.frame(matrix(stats::rnorm(600 * 64), 600, 64, dimnames = list(NULL, paste0("x", 1:64))))
  df$y <- df$x1 - df$x2 + stats::rnorm(600)
  run <- function(threads) {
    old <- options(cppestimators.threads = threads)
    on.exit(options(old))
    fcs <- feature_columns(column_numeric(starts_with("x")), names = df)
    est <- suppressMessages(dnn_regressor(hidden_units = c(64, 32), feature_columns = fcs,
                                          config = run_config(tf_random_seed = 5)))
    quietly(train(est, input_fn(df, response = "y", batch_size = 512L, num_epochs = NULL), steps = 5))
    variable_value(est)
  }
  two <- run(2)
  expect_identical(run(2), two)
  expect_equal(run(1), two, tolerance = 1e-4)
})

test_that("every matrix-product kernel the CPU runs trains a DNN to the portable kernel's weights", {
  set.seed(6)
  # 203 rows and 37 inputs: products that end inside every kernel's register tile
  df <- as.data.frame(matrix(stats::rnorm(203 * 37), 203, 37, dimnames = list(NULL, paste0("x", 1:37))))
  df$y <- sin(df$x1) + df$x2 * df$x3
  run <- function(kernel) {
    old <- options(cppestimators.simd = kernel, cppestimators.threads = 1L)
    on.exit(options(old))
    fcs <- feature_columns(column_numeric(starts_with("x")), names = df)
    est <- suppressMessages(dnn_regressor(hidden_units = c(45, 19), feature_columns = fcs,
                                          config = run_config(tf_random_seed = 8)))
    quietly(train(est, input_fn(df, response = "y", batch_size = 203L, num_epochs = NULL), steps = 10))
    variable_value(est)
  }
  portable <- run("portable")
  available <- attr(cppestimators:::cpp_gemm_kernel("auto"), "available")
  expect_true("portable" %in% available)
  for (kernel in setdiff(available, "portable")) {
    wide <- run(kernel)
    expect_equal(wide, portable, tolerance = 1e-4)
    expect_false(identical(wide, portable))  # the wide kernel did run (fused multiply-adds round differently)
    expect_identical(run(kernel), wide)
  }
})

test_that("options(cppestimators.simd) is checked", {
  est <- iris_dnn()
  input <- suppressMessages(input_fn(iris, response = "Species", batch_size = 30L))
  old <- options(cppestimators.simd = "sse9")
  on.exit(options(old))
  expect_error(quietly(train(est, input, steps = 1)),
               paste0('options\\(cppestimators.simd =\\) must be one of "auto", "avx512", "avx2", "portable", ',
                      'not character "sse9"'))
  options(cppestimators.simd = c("auto", "avx2"))
  expect_error(quietly(train(est, input, steps = 1)), "must be one of")
  missing <- setdiff(c("avx512", "avx2"), attr(cppestimators:::cpp_gemm_kernel("auto"), "available"))
  for (kernel in missing) {
    options(cppestimators.simd = kernel)
    expect_error(quietly(train(est, input, steps = 1)), "this CPU cannot run that kernel")
  }
})

test_that("hidden_units may be a list of numbers, as tfestimators scripts give them", {
  fcs <- feature_columns(column_numeric("drat", "cyl"))
  train_one <- function(units) {
    est <- dnn_regressor(hidden_units = units, feature_columns = fcs,
                         config = run_config(tf_random_seed = 7))
    quietly(train(est, input_fn(mtcars, response = "mpg", features = c("drat", "cyl"), batch_size = 32L),
                  steps = 2))
    est
  }
  from_list <- train_one(list(10, 20, 10))
  from_vector <- train_one(c(10, 20, 10))
  expect_equal(dim(variable_value(from_list, "dnn/hiddenlayer_1/kernel")[[1]]), c(10L, 20L))
  expect_equal(dim(variable_value(from_list, "dnn/hiddenlayer_2/kernel")[[1]]), c(20L, 10L))
  expect_equal(variable_value(from_list, "dnn/logits/kernel"), variable_value(from_vector, "dnn/logits/kernel"))
  expect_error(dnn_regressor(hidden_units = list(10, "a"), feature_columns = fcs),
               "`hidden_units` must be a vector of positive whole numbers", class = "cppestimators_error")
})

test_that("a DNN given a categorical column points to feature_columns_from_data(dense = TRUE)", {
  d <- transform(mtcars, cyl = factor(cyl))
  raw <- suppressMessages(dnn_regressor(hidden_units = 4,
                                        feature_columns = feature_columns_from_data(d, response = mpg)))
  expect_error(quietly(train(raw, d, steps = 1)), class = "cppestimators_error",
               regexp = paste0("a DNN: items of feature_columns must be dense columns\\. You can wrap a categorical ",
                               "column with column_embedding\\(\\) or column_indicator\\(\\), or build the columns ",
                               "with feature_columns_from_data\\(data, dense = TRUE\\).*Given: ",
                               "column_categorical_with_vocabulary_list\\(\\) 'cyl'"))
  # as the message says: dense = TRUE trains
  dense <- suppressMessages(dnn_regressor(hidden_units = 4,
                                          feature_columns = feature_columns_from_data(d, response = mpg, dense = TRUE)))
  quietly(train(dense, d, steps = 1))
  expect_equal(cppestimators:::cpp_estimator_global_step(cppestimators:::estimator_ptr(dense)), 1)
  # the wide and deep models' DNN part too
  cyl <- column_categorical_with_vocabulary_list("cyl", vocabulary_list = c("4", "6", "8"))
  wd <- suppressMessages(dnn_linear_combined_regressor(dnn_feature_columns = feature_columns(cyl),
                                                       dnn_hidden_units = 3))
  expect_error(quietly(train(wd, d, response = "mpg", steps = 1)), class = "cppestimators_error",
               regexp = "feature_columns_from_data\\(data, dense = TRUE\\)")
})
