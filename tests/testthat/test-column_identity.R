# Identity columns: the value is the id.

test_that("identity columns use the value; out of range is an error unless default_value", {
  col <- column_categorical_with_identity("cyl", num_buckets = 10)
  expect_equal(touched_rows(col, data.frame(cyl = c(4, 6, 8)), 10), c(4, 6, 8))
  est <- suppressMessages(linear_regressor(feature_columns(col)))
  expect_error(quietly(train(est, input_fn(data.frame(cyl = c(4, 12), y = 1), response = "y"),
                             steps = 1)),
               "feature 'cyl' (row 2) is 12, outside [0, 10)", fixed = TRUE)
  expect_error(quietly(train(est, input_fn(data.frame(cyl = c(4, NA), y = 1), response = "y"),
                             steps = 1)),
               "feature 'cyl' (row 2) is NA; set `default_value`", fixed = TRUE)
  dflt <- column_categorical_with_identity("cyl", num_buckets = 10, default_value = 0)
  expect_equal(touched_rows(dflt, data.frame(cyl = c(12L, 3L, NA)), 10), c(0, 3))
  expect_error(column_categorical_with_identity("cyl", num_buckets = 3, default_value = 3),
               "not in range [0, 3)", fixed = TRUE)
  expect_error(quietly(train(est, input_fn(data.frame(cyl = c("a", "b"), y = 1), response = "y"),
                             steps = 1)),
               "needs integer values, but feature 'cyl' is character")
})
