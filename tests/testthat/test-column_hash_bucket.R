# Hash-bucket columns: the ids TensorFlow gives the same strings.

test_that("hash buckets are TensorFlow's: a b c d with 10 buckets are 9 2 2 5", {
  col <- column_categorical_with_hash_bucket("x", hash_bucket_size = 10)
  expect_equal(col$name, "x")
  expect_equal(touched_rows(col, data.frame(x = c("a", "b", "c", "d")), 10), c(2, 5, 9))
  # the same ids from a factor and through the weights' values: b and c share bucket 2
  est <- suppressMessages(linear_regressor(feature_columns(col), optimizer = optimizer_sgd(0.1)))
  quietly(train(est, input_fn(data.frame(x = factor(c("a", "b", "c", "d")), y = 1), response = "y",
                              batch_size = 4L, shuffle = FALSE), steps = 1))
  w <- variable_value(est, "linear/linear_model/x/weights")[[1]][, 1]
  expect_equal(w[c(10, 3, 6)], c(0.2, 0.4, 0.2))
})

test_that("dtype takes the tf object's integer dtypes; strings stay \"string\"", {
  # tfestimators' wide_and_deep example
  col <- column_categorical_with_hash_bucket("x", hash_bucket_size = 10, dtype = tf$int32)
  expect_equal(col$dtype, "int32")
  expect_identical(col, column_categorical_with_hash_bucket("x", hash_bucket_size = 10, dtype = "int32"))
  expect_equal(column_categorical_with_hash_bucket("x", hash_bucket_size = 10, dtype = tf$int64)$dtype, "int64")
  err <- expect_error(column_categorical_with_hash_bucket("x", hash_bucket_size = 10, dtype = tf$float32),
                      class = "cppestimators_dtype_error")
  expect_equal(conditionMessage(err),
               "`dtype` must be one of \"string\", \"int64\", \"int32\", tf$int64 or tf$int32, not tf$float32.")
  # the same hashed ids as the string form
  d <- data.frame(x = c(3L, 7L, 3L, 11L), y = c(1, 2, 1, 3))
  fit <- function(dtype) {
    est <- linear_regressor(feature_columns(column_categorical_with_hash_bucket("x", hash_bucket_size = 10,
                                                                                 dtype = dtype)),
                            model_dir = tempfile())
    quietly(train(est, input_fn(d, response = "y", batch_size = 4L, shuffle = FALSE), steps = 2))
    coef(est)
  }
  expect_identical(fit(tf$int32), fit("int32"))
})
