# Numeric columns: names, shapes, dtypes and their errors.

test_that("column_numeric() takes strings and bare names", {
  col <- column_numeric("drat")
  expect_s3_class(col, "cppestimators_feature_column")
  expect_equal(col$name, "drat")
  expect_equal(col$shape, 1L)
  cols <- column_numeric(drat, cyl)
  expect_length(cols, 2)
  expect_equal(vapply(cols, function(c) c$name, ""), c("drat", "cyl"))
  expect_equal(vapply(column_numeric(c("wt", "hp")), function(c) c$name, ""), c("wt", "hp"))
  expect_equal(column_numeric("img", shape = c(2, 3))$width, 6L)
})

test_that("column_numeric() rejects bad arguments with named errors", {
  expect_error(column_numeric("x", shape = 0), "`shape` must be a vector of positive whole numbers")
  expect_error(column_numeric("x", shape = 1.5), "`shape`")
  expect_error(column_numeric("x", dtype = "string"), "`dtype` must be one of \"float32\"",
               class = "cppestimators_dtype_error")
  expect_error(column_numeric("x", normalizer_fn = 3), "`normalizer_fn` must be a function or NULL")
  expect_error(column_numeric(), "no feature names")
})

test_that("dtype takes the tf object's dtypes as tfestimators' examples give them", {
  # tfestimators' wide_and_deep example: column_numeric("x", dtype = tf$float32)
  expect_identical(column_numeric("x", dtype = tf$float32), column_numeric("x", dtype = "float32"))
  expect_equal(column_numeric("x", dtype = tf$float64)$dtype, "float64")
  expect_equal(column_numeric("x", dtype = tf$int64)$dtype, "int64")
  expect_equal(column_categorical_weighted(column_categorical_with_identity("k", num_buckets = 3), "w",
                                           dtype = tf$float32)$dtype, "float32")
  err <- expect_error(column_numeric("x", dtype = tf$bool), class = "cppestimators_dtype_error")
  expect_match(conditionMessage(err), "not tf$bool.", fixed = TRUE)
  expect_match(conditionMessage(err), "tf$float32, tf$float64, tf$int32 or tf$int64", fixed = TRUE)
  expect_error(column_numeric("x", dtype = 3), "`dtype` must be one of .* not numeric 3",
               class = "cppestimators_dtype_error")
})
