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

test_that("boundaries are a numeric vector or a list of numbers, as tfestimators' articles give them", {
  by_list <- column_bucketized(column_numeric("age"), boundaries = list(18, 25, 30))
  expect_identical(by_list, column_bucketized(column_numeric("age"), boundaries = c(18, 25, 30)))
  expect_identical(by_list$boundaries, c(18, 25, 30))
  expect_identical(column_bucketized(column_numeric("age"), boundaries = list(18L, 25.5))$boundaries, c(18, 25.5))
  expect_equal(touched_rows(by_list, data.frame(age = c(10, 18, 26, 40)), 4), c(0, 1, 2, 3))
  err <- expect_error(column_bucketized(column_numeric("age"), boundaries = list(18, 30, 25)),
                      class = "cppestimators_bad_boundaries")
  expect_match(conditionMessage(err), paste("boundaries must be a sorted list: `boundaries` must be strictly",
                                            "increasing, but 30 (at position 2) is followed by 25"), fixed = TRUE)
  expect_error(column_bucketized(column_numeric("age"), boundaries = list(18, "25")),
               "`boundaries` must be finite numbers.*not a list holding character \"25\"",
               class = "cppestimators_bad_boundaries")
  expect_error(column_bucketized(column_numeric("age"), boundaries = list(18, c(20, 30))),
               "not a list holding a numeric vector of length 2", class = "cppestimators_bad_boundaries")
  expect_error(column_bucketized(column_numeric("age"), boundaries = c(1, NA)),
               "not numbers including NA", class = "cppestimators_bad_boundaries")
  expect_error(column_bucketized(column_numeric("age"), boundaries = "18"),
               "not character \"18\"", class = "cppestimators_bad_boundaries")
})
