# Bucketized columns: the bucket is the number of boundaries at or below the value.

test_that("bucketized columns: the number of boundaries at or below the value", {
  col <- column_bucketized(column_numeric("x"), boundaries = c(0, 10, 100))
  expect_equal(col$name, "x_bucketized")
  expect_equal(touched_rows(col, data.frame(x = c(-5, 10, 5)), 4), c(0, 1, 2))
  expect_equal(touched_rows(col, data.frame(x = c(100, 150)), 4), 3)
  expect_error(column_bucketized(column_numeric("x"), boundaries = c(1, 0)),
               "boundaries must be a sorted list.")
  expect_error(column_bucketized("x", boundaries = 1), "must be a column made by column_numeric()")
})
