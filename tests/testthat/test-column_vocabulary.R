# Vocabulary columns (lists and files): ids, defaults, OOV buckets, errors.

test_that("vocabulary lists: positions, default_value, OOV buckets; NA is out of vocabulary, \"\" gives no id", {
  col <- column_categorical_with_vocabulary_list("x", vocabulary_list = c("a", "b", "c"))
  expect_equal(touched_rows(col, data.frame(x = c("c", "zz", "")), 3), 2)
  # a missing value has no id to take without a default or OOV buckets: an error in training
  expect_error(touched_rows(col, data.frame(x = c("c", NA)), 3), "feature 'x' has 1 missing values",
               class = "cppestimators_missing_values")
  dflt <- column_categorical_with_vocabulary_list("x", vocabulary_list = c("a", "b", "c"),
                                                  default_value = 0)
  expect_equal(touched_rows(dflt, data.frame(x = c("c", NA, "")), 3), c(0, 2))
  oov <- column_categorical_with_vocabulary_list("x", vocabulary_list = c("a", "b"),
                                                 num_oov_buckets = 3)
  # Fingerprint64("c") %% 3 = 1, Fingerprint64("d") %% 3 = 2: ids 3 and 4
  expect_equal(touched_rows(oov, data.frame(x = c("c", "d", "a")), 5), c(0, 3, 4))
  ints <- column_categorical_with_vocabulary_list("x", vocabulary_list = c(4, 6, 8))
  expect_equal(ints$dtype, "int64")
  expect_equal(touched_rows(ints, data.frame(x = c(8L, 5L)), 3), 2)
  expect_error(column_categorical_with_vocabulary_list("x", vocabulary_list = c("a", "a")),
               "Duplicate keys in vocabulary_list: 'a'")
  expect_error(column_categorical_with_vocabulary_list("x", vocabulary_list = c("a"),
                                                       default_value = 0, num_oov_buckets = 2),
               "Can't specify both num_oov_buckets and default_value")
  expect_error(column_categorical_with_vocabulary_list("x", vocabulary_list = character()),
               "must not be empty")
})

test_that("vocabulary files are read once; missing or short files are named", {
  voc <- tempfile()
  writeLines(c("setosa", "versicolor", "virginica", "unused"), voc)
  col <- column_categorical_with_vocabulary_file("Species", vocabulary_file = voc, vocabulary_size = 3)
  expect_equal(col$vocabulary, c("setosa", "versicolor", "virginica"))
  unlink(voc)
  expect_equal(touched_rows(col, iris[c(1, 51), "Species", drop = FALSE], 3), c(0, 1))
  expect_error(column_categorical_with_vocabulary_file("x", vocabulary_file = voc),
               sprintf("no file at '%s'", voc), fixed = TRUE)
  writeLines(c("a", "b"), voc)
  expect_error(column_categorical_with_vocabulary_file("x", vocabulary_file = voc, vocabulary_size = 5),
               sprintf("'%s' has 2 lines but `vocabulary_size` is 5", voc), fixed = TRUE)
})

test_that("a value argument given by position is an error saying it was taken as column names", {
  d <- data.frame(cut = factor(c("Fair", "Good", "Ideal")))
  expect_error(column_categorical_with_vocabulary_list("cut", levels(d$cut)), class = "cppestimators_error",
               regexp = paste0("`vocabulary_list` is missing: column_categorical_with_vocabulary_list() takes every ",
                               "unnamed argument as a column name, so \"cut\", levels(d$cut) were taken as column ",
                               "names; give `vocabulary_list` by name: `vocabulary_list = levels(d$cut)`."),
               fixed = TRUE)
  expect_error(column_categorical_with_vocabulary_list("cut"), class = "cppestimators_missing_argument",
               regexp = "so \"cut\" was taken as a column name; give `vocabulary_list` by name: `vocabulary_list = `.",
               fixed = TRUE)
  voc <- tempfile()
  expect_error(column_categorical_with_vocabulary_file("cut", voc), class = "cppestimators_error",
               regexp = "`vocabulary_file` is missing: .* so \"cut\", voc were taken as column names; give `vocabulary_file` by name: `vocabulary_file = voc`")
  expect_error(column_categorical_with_hash_bucket("cut", 10), class = "cppestimators_error",
               regexp = "`hash_bucket_size` is missing: .*\"cut\", 10 were taken as column names.*`hash_bucket_size = 10`")
  expect_error(column_categorical_with_identity("cut", 10), class = "cppestimators_error",
               regexp = "`num_buckets` is missing: .*\"cut\", 10 were taken as column names.*`num_buckets = 10`")
  # named, the same values make the columns; without names at all, capture_names() says so
  expect_equal(column_categorical_with_vocabulary_list("cut", vocabulary_list = levels(d$cut))$vocabulary,
               c("Fair", "Good", "Ideal"))
  expect_error(column_categorical_with_identity(num_buckets = 3), "no feature names given in `...`.",
               class = "cppestimators_error", fixed = TRUE)
})

test_that("vocabulary columns take the tf object's integer dtypes", {
  ints <- column_categorical_with_vocabulary_list("x", vocabulary_list = c(1, 5, 9), dtype = tf$int64)
  expect_equal(ints$dtype, "int64")
  expect_identical(ints, column_categorical_with_vocabulary_list("x", vocabulary_list = c(1, 5, 9), dtype = "int64"))
  expect_error(column_categorical_with_vocabulary_list("x", vocabulary_list = c("a", "b"), dtype = tf$int32),
               "dtype \"int32\" does not match")
  voc <- tempfile()
  writeLines(c("3", "4"), voc)
  expect_equal(column_categorical_with_vocabulary_file("x", vocabulary_file = voc, dtype = tf$int32)$dtype, "int32")
  expect_error(column_categorical_with_vocabulary_file("x", vocabulary_file = voc, dtype = tf$float64),
               class = "cppestimators_dtype_error")
})
