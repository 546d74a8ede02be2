# Vocabulary columns (lists and files): ids, defaults, OOV buckets, errors.

test_that("vocabulary lists: positions, default_value, OOV buckets; NA is out of vocabulary, \"\" gives no id", {
  col <- column_categorical_with_vocabulary_list("x", vocabulary_list = c("a", "b", "c"))
  expect_equal(touched_rows(col, data.frame(x = c("c", "zz", NA, "")), 3), 2)
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
