# Crossed columns: combinations hashed; keys that cannot be crossed are refused.

test_that("crossed columns hash combinations; hash-bucket keys are refused", {
  col <- column_crossed(c("a", "b"), hash_bucket_size = 1000)
  expect_equal(column_crossed(c("b", "a"), hash_bucket_size = 1000)$name, "a_X_b")
  # FingerprintCat64 chain of TensorFlow: a x b = 986 with the default key
  expect_equal(touched_rows(col, data.frame(b = "b", a = "a"), 1000), 986)
  voc <- column_categorical_with_vocabulary_list("v", vocabulary_list = c("a", "b"))
  mixed <- column_crossed(list("r", voc), hash_bucket_size = 1000)
  expect_equal(mixed$name, "r_X_v")
  # the categorical input (id 1) is hashed before the raw feature: 445
  expect_equal(touched_rows(mixed, data.frame(r = "a", v = "b"), 1000), 445)
  expect_error(column_crossed(list("a", column_categorical_with_hash_bucket("b", hash_bucket_size = 10)), 100),
               "not supported in `keys` of column_crossed(). Instead, use the feature name as a string",
               fixed = TRUE)
  expect_error(column_crossed("a", 100), "keys must be a list with length > 1")
  expect_error(column_crossed(c("a", "b"), 1), "hash_bucket_size must be > 1")
})
