test_that("feature_columns() flattens lists and keeps the later duplicate", {
  a <- column_numeric("a")
  a2 <- column_numeric("a", normalizer_fn = function(x) x * 2)
  fcs <- feature_columns(a, column_numeric("b", "c"), a2)
  expect_s3_class(fcs, "cppestimators_feature_columns")
  expect_equal(vapply(fcs, function(c) c$name, ""), c("b", "c", "a"))
  expect_true(is.function(fcs[[3]]$normalizer_fn))
  expect_error(feature_columns(), "feature_columns must not be empty")
  expect_error(feature_columns("a"), "takes feature columns made by column_")
  expect_output(print(fcs), "3 feature columns")
})

test_that("normalizer_fn is applied to the feature before training", {
  df <- data.frame(x = c(1, 2, 3, 4), y = c(2, 4, 6, 8))
  scale_by_10 <- column_numeric("x", normalizer_fn = function(x) x * 10)
  est <- linear_regressor(feature_columns(scale_by_10), optimizer = "SGD")
  quietly(train(est, input_fn(df, response = "y", batch_size = 4L, shuffle = FALSE), steps = 1))
  # gradient of the summed squared error at w = 0: -2 * sum(10 x * y)
  p <- predict(est, input_fn(data.frame(x = 1), features = "x"))
  w <- 0.2 * 2 * sum(10 * df$x * df$y)
  b <- 0.2 * 2 * sum(df$y)
  expect_equal(p$predictions, 10 * w + b, tolerance = 1e-5)
})

test_that("every column kind formats itself with a column_repr() method of its class", {
  kinds <- c("numeric", "bucketized", "vocabulary_list", "vocabulary_file", "identity", "hash_bucket", "crossed",
             "indicator", "embedding", "weighted")
  ns <- asNamespace("cppestimators")
  for (kind in kinds) {
    expect_true(is.function(utils::getS3method("column_repr", paste0("cppestimators_column_", kind), envir = ns)),
                label = kind)
  }
  odd <- structure(list(kind = "mystery", name = "z"), class = "cppestimators_feature_column")
  expect_equal(format(odd), "_mysteryColumn(name='z')")
})

test_that("a feature column's first class is TensorFlow's class for it", {
  # tfestimators' tests/testthat/test-feature-columns.R
  fcs <- feature_columns(mtcars, column_numeric(drat))
  expect_equal(length(fcs), 1)
  expect_true(grepl("NumericColumn", class(fcs[[1]])[1]))
  fcs <- feature_columns(mtcars, column_numeric(drat, cyl))
  expect_equal(length(fcs), 2)
  expect_true(grepl("NumericColumn", class(fcs[[1]])[1]))
  tf <- "tensorflow.python.feature_column.feature_column."
  expect_equal(class(column_numeric("a"))[1], paste0(tf, "_NumericColumn"))
  vocab <- column_categorical_with_vocabulary_list("c", vocabulary_list = c("x", "y"))
  expect_equal(class(vocab)[1], paste0(tf, "_VocabularyListCategoricalColumn"))
  expect_equal(class(column_indicator(vocab))[1], paste0(tf, "_IndicatorColumn"))
  expect_equal(class(column_embedding(vocab, dimension = 2))[1], paste0(tf, "_EmbeddingColumn"))
  expect_equal(class(column_categorical_with_identity("i", num_buckets = 3))[1],
               paste0(tf, "_IdentityCategoricalColumn"))
  expect_equal(class(column_categorical_with_hash_bucket("h", hash_bucket_size = 5))[1],
               paste0(tf, "_HashedCategoricalColumn"))
  expect_equal(class(column_bucketized(column_numeric("a"), boundaries = c(0, 1)))[1],
               paste0(tf, "_BucketizedColumn"))
  expect_equal(class(column_crossed(c("c", "d"), hash_bucket_size = 5))[1], paste0(tf, "_CrossedColumn"))
  expect_equal(class(column_categorical_weighted(vocab, "w"))[1], paste0(tf, "_WeightedCategoricalColumn"))
  # our classes follow, so S3 methods and inherits() keep working
  expect_s3_class(vocab, c("cppestimators_column_vocabulary_list", "cppestimators_categorical_column",
                           "cppestimators_feature_column"))
})
