# How incoming vectors are read: by class first, storage type second
# (R/column_reading.R).

int64_frame <- function(n = 60) {
  set.seed(11)
  x <- 100L + sample(0:20, n, replace = TRUE)
  data.frame(x = x, z = round(rnorm(n), 2), y = 0.5 * x + rnorm(n, sd = 0.1))
}

as_int64 <- function(df, cols = "x") {
  for (nm in cols) df[[nm]] <- bit64::as.integer64(df[[nm]])
  df
}

test_that("integer64 columns train, evaluate and predict as the same values as doubles", {
  skip_if_not_installed("bit64")
  df <- int64_frame()
  df64 <- as_int64(df)
  expect_s3_class(df64$x, "integer64")
  fit <- function(data) {
    cols <- feature_columns_from_data(data, response = "y")
    est <- suppressMessages(linear_regressor(feature_columns = cols))
    quietly(train(est, data, num_epochs = 30, batch_size = 20, shuffle = FALSE))
    est
  }
  a <- fit(df)
  b <- fit(df64)
  # the stored standardization is the data's mean, not integer64's truncated one
  repr <- function(cols) vapply(cols, cppestimators:::column_repr, "")
  expect_identical(repr(feature_columns_from_data(df64, response = "y")),
                   repr(feature_columns_from_data(df, response = "y")))
  expect_match(repr(feature_columns_from_data(df64, response = "y"))[[1]], sprintf("mean=%s", format(mean(df$x), digits = 7)),
               fixed = TRUE)
  pa <- predict(a, df)$predictions
  pb <- predict(b, df64)$predictions
  expect_equal(pb, pa)
  expect_gt(stats::sd(pb), 0.1)  # not one constant for every row
  # a model trained on doubles reads integer64 rows as their values, and the other way round
  expect_equal(predict(a, df64)$predictions, pa)
  expect_equal(predict(b, df)$predictions, pa)
  expect_equal(quietly(evaluate(b, df64))$loss, quietly(evaluate(a, df))$loss)
  # an integer64 response too
  df64y <- df64
  df64y$y <- bit64::as.integer64(round(df$y))
  dfy <- df
  dfy$y <- round(df$y)
  expect_equal(predict(fit(df64y), df)$predictions, predict(fit(dfy), df)$predictions)
})

test_that("integer64 through input_fn(), classifiers and missing values", {
  skip_if_not_installed("bit64")
  df <- int64_frame()
  df$label <- factor(ifelse(df$x > 110, "hi", "lo"))
  df$x[3] <- NA
  df64 <- as_int64(df)
  expect_true(is.na(df64$x[3]))
  run <- function(data) {
    set.seed(3)
    est <- suppressMessages(linear_classifier(feature_columns(column_numeric("x", normalizer_fn =
      normalizer_standardize(110, 6))), label_vocabulary = c("hi", "lo")))
    input <- quietly(input_fn(data[-3, ], features = "x", response = "label", batch_size = 10, shuffle = FALSE))
    quietly(train(est, input_fn = input))
    predict(est, data, type = "prob")
  }
  pa <- run(df)
  pb <- run(df64)
  expect_equal(pb, pa)
  expect_true(is.na(pb[3, 1]))
})

test_that("an integer64 beyond 2^53 is an error naming the column and the row", {
  skip_if_not_installed("bit64")
  df <- data.frame(x = 1:3, y = c(1, 2, 3))
  df$x <- bit64::as.integer64(c("1", "9007199254740992", "9007199254740993"))
  # 2^53 itself is exact
  expect_identical(cppestimators:::read_column(df$x[1:2], "x"), c(1, 9007199254740992))
  err <- expect_error(feature_columns_from_data(df, response = "y"), class = "cppestimators_precision_error")
  expect_match(conditionMessage(err), "column 'x' is an integer64 whose value 9007199254740993 (row 3)", fixed = TRUE)
  expect_match(conditionMessage(err), "as.character()", fixed = TRUE)
  expect_s3_class(err, "cppestimators_error")
  est <- suppressMessages(linear_regressor(feature_columns(column_numeric("x"))))
  expect_error(train(est, df, response = "y", steps = 1), "beyond 2\\^53", class = "cppestimators_precision_error")
  df$x <- -df$x
  expect_error(input_fn(df, features = "x", response = "y"), "value -9007199254740993 \\(row 3\\)")
})

test_that("a class the package does not know is refused, naming the column and the class", {
  df <- data.frame(x = 1:3, y = c(1, 2, 3))
  df$x <- structure(c(1, 2, 3), class = "myclass")
  expect_error(feature_columns_from_data(df, response = "y"),
               "column 'x' is of class 'myclass' \\(double values underneath\\)", class = "cppestimators_feature_type")
  expect_error(input_fn(df, features = "x", response = "y"), "as.numeric\\(data\\$x\\)",
               class = "cppestimators_feature_type")
  est <- suppressMessages(linear_regressor(feature_columns(column_numeric("x"))))
  expect_error(train(est, df, response = "y", steps = 1), "'myclass'", class = "cppestimators_feature_type")
  plain <- data.frame(x = c(1, 2, 3), y = c(1, 2, 3))
  quietly(train(est, plain, response = "y", steps = 1))
  expect_error(predict(est, df), "column 'x' is of class 'myclass'", class = "cppestimators_feature_type")
  # a classed response
  df2 <- plain
  df2$y <- structure(c(1, 2, 3), class = "myclass")
  expect_error(train(est, df2, response = "y", steps = 1), "column 'y' is of class 'myclass'",
               class = "cppestimators_feature_type")
})

test_that("haven's labelled values are refused with the way to convert them", {
  skip_if_not_installed("haven")
  df <- data.frame(y = c(1, 2, 3, 4))
  df$x <- haven::labelled(c(1, 2, 1, 2), c(low = 1, high = 2))
  err <- expect_error(feature_columns_from_data(df, response = "y"), class = "cppestimators_feature_type")
  expect_match(conditionMessage(err), "column 'x' is of class 'haven_labelled/vctrs_vctr/double'")
  expect_match(conditionMessage(err), "haven::zap_labels()", fixed = TRUE)
  est <- suppressMessages(linear_regressor(feature_columns(column_numeric("x"))))
  expect_error(train(est, df, response = "y", steps = 1), "haven::as_factor", class = "cppestimators_feature_type")
  df$x <- haven::zap_labels(df$x)
  expect_silent(quietly(train(est, df, response = "y", steps = 1)))
})

test_that("I() columns are read as what they wrap", {
  df <- int64_frame(30)
  df_i <- df
  df_i$x <- I(df$x)
  cols <- feature_columns_from_data(df, response = "y")
  repr <- function(cols) vapply(cols, cppestimators:::column_repr, "")
  expect_identical(repr(feature_columns_from_data(df_i, response = "y")), repr(cols))
  est <- suppressMessages(linear_regressor(feature_columns = cols))
  quietly(train(est, df, num_epochs = 2, shuffle = FALSE))
  expect_equal(predict(est, df_i)$predictions, predict(est, df)$predictions)
})

test_that("dates are still explained, not read as numbers", {
  df <- data.frame(x = as.Date("2024-01-01") + 0:2, y = c(1, 2, 3))
  est <- suppressMessages(linear_regressor(feature_columns(column_numeric("x"))))
  expect_error(train(est, df, response = "y", steps = 1), "days since 1970-01-01",
               class = "cppestimators_feature_type")
})

test_that("a dataset_map() result's integer64 and unknown classes are read by their class", {
  skip_if_not_installed("bit64")
  path <- tempfile(fileext = ".csv")
  on.exit(unlink(path))
  write.csv(data.frame(id = 1:6, v = c(0.5, 1, 1.5, 2, 2.5, 3)), path, row.names = FALSE)
  ds <- text_line_dataset(path, csv_record_spec(path))
  big <- dataset_map(ds, function(b) data.frame(id = b$id, w = bit64::as.integer64(b$id) * 1000L))
  out <- dataset_collect(big)
  expect_identical(out$w, as.double(1:6) * 1000)
  odd <- dataset_map(ds, function(b) list(id = b$id, u = structure(b$v, class = "myclass")))
  expect_error(dataset_collect(odd), "column 'u' after .* is of class 'myclass'", class = "cppestimators_feature_type")
})

test_that("parsnip fits read integer64 predictors and outcomes as numbers", {
  skip_if_not_installed("bit64")
  skip_if_not_installed("parsnip")
  df <- int64_frame()
  df64 <- as_int64(df)
  spec <- parsnip::set_engine(parsnip::linear_reg(), "cppestimators")
  fa <- briefly(parsnip::fit(spec, y ~ x + z, data = df))
  fb <- briefly(parsnip::fit(spec, y ~ x + z, data = df64))
  expect_equal(predict(fb, df64)$.pred, predict(fa, df)$.pred, tolerance = 1e-6)
  fc <- briefly(parsnip::fit_xy(spec, x = df64[c("x", "z")], y = df$y))
  expect_equal(predict(fc, df)$.pred, predict(fa, df)$.pred, tolerance = 1e-6)
})
