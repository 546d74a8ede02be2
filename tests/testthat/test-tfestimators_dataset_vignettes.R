# The code of tfestimators' "Dataset API" vignette, unchanged but for
# library(), and the parts of its "Parsing Utilities" vignette that need no
# TensorFlow.

test_that("the Dataset API vignette of tfestimators runs", {
  dir <- local_test_dir()
  old <- setwd(dir)
  on.exit(setwd(old), add = TRUE)
  out <- utils::capture.output(suppressMessages({
    set.seed(123)
    train_idx <- sample(nrow(iris), nrow(iris) * 2/3)

    iris_train <- iris[train_idx,]
    iris_validation <- iris[-train_idx,]
    iris_sample <- iris_train %>%
      head(10)

    write.csv(iris_train, "iris_train.csv", row.names = FALSE)
    write.csv(iris_validation, "iris_validation.csv", row.names = FALSE)
    write.csv(iris_sample, "iris_sample.csv", row.names = FALSE)

    response <- "Species"
    features <- setdiff(names(iris), response)
    feature_columns <- feature_columns(
      column_numeric(features)
    )

    classifier <- dnn_classifier(
      feature_columns = feature_columns,
      hidden_units = c(16, 32, 16),
      n_classes = 3,
      label_vocabulary = c("setosa", "virginica", "versicolor")
    )

    iris_input_fn <- function(data) {
      input_fn(data, features = features, response = response)
    }

    iris_spec <- csv_record_spec("iris_sample.csv")
    iris_train <- text_line_dataset(
      "iris_train.csv", record_spec = iris_spec) %>%
      dataset_batch(10) %>%
      dataset_repeat(10)
    iris_validation <- text_line_dataset(
      "iris_validation.csv", record_spec = iris_spec) %>%
      dataset_batch(10) %>%
      dataset_repeat(1)

    history <- train(classifier, input_fn = iris_input_fn(iris_train))
    plot(history)
    predictions <- predict(classifier, input_fn = iris_input_fn(iris_validation))
    predictions
    evaluation <- evaluate(classifier, input_fn = iris_input_fn(iris_validation))
    evaluation
  }), type = "message")
  # 100 rows in batches of 10, ten passes; 50 validation rows
  expect_equal(max(as.data.frame(history)$step), 100)
  expect_equal(nrow(predictions), 50L)
  expect_setequal(unique(as.character(predictions$classes)), c("setosa", "virginica", "versicolor"))
  expect_equal(evaluation$global_step, 100)
  expect_gt(evaluation$accuracy, 0.6)
  expect_equal(mean(as.character(predictions$classes) == as.character(iris[-train_idx, "Species"])),
               evaluation$accuracy, tolerance = 1e-6)
})

test_that("the Parsing Utilities vignette's spec comes out as it describes", {
  parsing_spec <- classifier_parse_example_spec(
    feature_columns = column_numeric('a'),
    label_key = 'b',
    weight_column = 'c'
  )
  # a and c: FixedLenFeature((1,), float32); b: FixedLenFeature((1,), int64)
  # (a Python dict: the order of its keys does not matter)
  expect_setequal(names(parsing_spec), c("a", "b", "c"))
  expect_equal(vapply(parsing_spec[c("a", "c", "b")], function(f) f$dtype, ""),
               c(a = "float32", c = "float32", b = "int64"))
  expect_equal(lapply(parsing_spec[c("a", "c", "b")], function(f) f$shape), list(a = 1L, c = 1L, b = 1L))
  expect_true(all(vapply(parsing_spec, inherits, NA, "cppestimators_fixed_len_feature")))
})
