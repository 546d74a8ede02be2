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
  expect_error(column_numeric("x", dtype = "string"), "dtype must be convertible to float")
  expect_error(column_numeric("x", normalizer_fn = 3), "`normalizer_fn` must be a function or NULL")
  expect_error(column_numeric(), "no feature names")
})
