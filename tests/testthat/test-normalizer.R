# normalizer_fns travel with saved models: global variables are captured,
# failures name the column, and normalizer_standardize() holds its statistics.

# A function whose environment is the global one, as one typed at the console.
global_fn <- function(fn) {
  environment(fn) <- globalenv()
  fn
}

set_globals <- function(...) {
  vals <- list(...)
  list2env(vals, envir = globalenv())
  names(vals)
}

predict_in_fresh_process <- function(fn, ...) {
  callr::r(function(fn, args, libs) {
    .libPaths(libs)
    library(cppestimators)
    do.call(fn, args)
  }, args = list(fn, list(...), .libPaths()))
}

test_that("a normalizer's global variables are copied into it when the column is built", {
  made <- set_globals(i22_mu = 3.6, i22_s = 0.5)
  on.exit(rm(list = made, envir = globalenv()), add = TRUE)
  col <- column_numeric("drat", normalizer_fn = global_fn(function(x) (x - i22_mu) / i22_s))
  expect_setequal(ls(environment(col$normalizer_fn)), c("i22_mu", "i22_s"))
  expect_identical(parent.env(environment(col$normalizer_fn)), globalenv())
  expect_equal(col$normalizer_fn(4.1), 1)
  # later changes to the globals do not reach the column
  assign("i22_mu", 100, envir = globalenv())
  expect_equal(col$normalizer_fn(4.1), 1)
  # functions without globals and those of packages are left alone
  plain <- function(x) log1p(x)
  expect_identical(column_numeric("drat", normalizer_fn = plain)$normalizer_fn, plain)
})

test_that("saveRDS() and export_savedmodel() of a normalizer with globals predict in a fresh process", {
  skip_on_cran()
  skip_if_not_installed("callr")
  made <- set_globals(i22_mu = mean(mtcars$drat), i22_s = sd(mtcars$drat),
                      i22_scale = global_fn(function(x) (x - i22_mu) / i22_s))
  est <- suppressMessages(linear_regressor(feature_columns(
    column_numeric("drat", normalizer_fn = global_fn(function(x) i22_scale(x))))))
  input <- mtcars_input()
  quietly(train(est, input, steps = 5))
  pred <- predict(est, input)
  rds <- tempfile(fileext = ".rds")
  saveRDS(est, rds)
  export <- export_savedmodel(est, tempfile())
  rm(list = made, envir = globalenv())
  new_data <- mtcars[c("drat", "cyl", "mpg")]
  fresh <- predict_in_fresh_process(function(rds, export, df) {
    input <- input_fn(df, response = "mpg", features = c("drat", "cyl"), batch_size = 8L)
    list(rds = predict(readRDS(rds), input), export = predict(load_estimator(export), input))
  }, rds = rds, export = export, df = new_data)
  expect_equal(fresh$rds, pred)
  expect_equal(fresh$export, pred)
})

test_that("a normalizer's variable defined after the column is captured by export_savedmodel()", {
  skip_on_cran()
  skip_if_not_installed("callr")
  col <- column_numeric("drat", normalizer_fn = global_fn(function(x) x - i22_late))
  est <- suppressMessages(linear_regressor(feature_columns(col)))
  # the variable is missing: training names the column and normalizer_fn
  expect_error(train(est, mtcars_input(), steps = 1), class = "cppestimators_error",
               regexp = "the normalizer_fn of column 'drat' failed: object 'i22_late' not found", fixed = TRUE)
  expect_error(export_savedmodel(est, tempfile()), class = "cppestimators_error",
               regexp = paste0("column 'drat': its normalizer_fn uses `i22_late`, which is not defined, ",
                               "so the saved model could not normalize the feature in another R session."),
               fixed = TRUE)
  made <- set_globals(i22_late = 3)
  quietly(train(est, mtcars_input(), steps = 2))
  pred <- predict(est, mtcars_input())
  export <- export_savedmodel(est, tempfile())
  rm(list = made, envir = globalenv())
  expect_error(predict(est, mtcars_input()), class = "cppestimators_error",
               regexp = "the normalizer_fn of column 'drat' failed: object 'i22_late' not found", fixed = TRUE)
  fresh <- predict_in_fresh_process(function(export, df) {
    predict(load_estimator(export), input_fn(df, response = "mpg", features = c("drat", "cyl"), batch_size = 8L))
  }, export = export, df = mtcars[c("drat", "cyl", "mpg")])
  expect_equal(fresh, pred)
})

test_that("normalizer_standardize() holds its statistics and prints them in the column", {
  norm <- normalizer_standardize(mean = 230.7, sd = 123.9)
  expect_s3_class(norm, "cppestimators_normalizer")
  expect_equal(norm(c(230.7, 354.6)), c(0, 1))
  expect_output(print(norm), "<normalizer> normalizer_standardize(mean=230.7, sd=123.9)", fixed = TRUE)
  col <- column_numeric("disp", normalizer_fn = norm)
  expect_equal(cppestimators:::column_repr(col),
               paste0("_NumericColumn(key='disp', shape=(1,), default_value=None, dtype=tf.float32, ",
                      "normalizer_fn=normalizer_standardize(mean=230.7, sd=123.9))"))
  expect_output(print(col), "normalizer_fn=normalizer_standardize(mean=230.7, sd=123.9)", fixed = TRUE)
  # column-wise for multi-valued features
  m <- matrix(c(1, 3, 10, 30), ncol = 2)
  expect_equal(normalizer_standardize(c(2, 20), c(1, 10))(m), matrix(c(-1, 1, -1, 1), ncol = 2))
  expect_match(cppestimators:::column_repr(column_numeric("m", shape = 2, normalizer_fn = normalizer_standardize(c(2, 20), c(1, 10)))),
               "normalizer_standardize(mean=(2, 20), sd=(1, 10))", fixed = TRUE)
  expect_error(normalizer_standardize("a", 1), class = "cppestimators_error",
               regexp = "`mean` must be finite numbers, not character \"a\".", fixed = TRUE)
  expect_error(normalizer_standardize(0, 0), class = "cppestimators_error",
               regexp = "`sd` must be positive finite numbers, not numeric 0.", fixed = TRUE)
  expect_error(normalizer_standardize(1:3, 1:2), class = "cppestimators_error",
               regexp = "`mean` and `sd` must have the same length (or length 1), not 3 and 2.", fixed = TRUE)
  # it trains and predicts like the same function written out
  fit <- function(fn) {
    est <- suppressMessages(linear_regressor(feature_columns(column_numeric("drat", normalizer_fn = fn)),
                                             config = run_config(tf_random_seed = 1)))
    quietly(train(est, mtcars_input(shuffle = FALSE), steps = 3))
    predict(est, mtcars_input())
  }
  expect_equal(fit(normalizer_standardize(3.6, 0.5)), fit(function(x) (x - 3.6) / 0.5))
})
