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
