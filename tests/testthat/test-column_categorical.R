# Categorical columns together: the wrapper columns (indicator, weighted,
# embedding) in training, selections over several features, sizes refused
# before they reach a table, and a linear classifier on a census-like frame
# end to end. Each column kind's own tests are in test-column_<kind>.R.

test_that("indicator, weighted and embedding columns train in a linear model", {
  voc <- column_categorical_with_vocabulary_list("x", vocabulary_list = c("a", "b"))
  expect_equal(column_indicator(voc)$name, "x_indicator")
  expect_equal(touched_rows(column_indicator(voc), data.frame(x = c("b", "b")), 2), 1)
  weighted <- column_categorical_weighted(voc, "w")
  expect_equal(weighted$name, "x_weighted_by_w")
  expect_equal(touched_rows(weighted, data.frame(x = c("a", "b"), w = c(0, 2)), 2), 1)
  emb <- column_embedding(voc, dimension = 3, combiner = "sqrtn")
  expect_equal(emb$name, "x_embedding")
  est <- suppressMessages(linear_regressor(feature_columns(emb),
                                           config = run_config(tf_random_seed = 3)))
  before <- engine_values(est, "linear/linear_model/x_embedding/embedding_weights")[[1]]
  expect_equal(dim(before), c(2, 3))
  expect_true(all(abs(before) <= 2 / sqrt(3)))
  quietly(train(est, input_fn(data.frame(x = c("a", "b"), y = c(1, -1)), response = "y",
                              num_epochs = NULL), steps = 20))
  after <- variable_value(est, "linear/linear_model/x_embedding/embedding_weights")[[1]]
  expect_false(isTRUE(all.equal(before, after)))
  expect_error(column_indicator(column_numeric("x")),
               "must be a categorical column .* not the numeric column 'x'")
  expect_error(column_embedding(voc, dimension = 2, combiner = "max"), "`combiner` must be one of")
})

test_that("a factor in column_numeric() is an error that suggests a categorical column", {
  est <- suppressMessages(linear_regressor(feature_columns(column_numeric("Species"))))
  expect_error(quietly(train(est, input_fn(iris, response = "Sepal.Length", features = "Species"),
                             steps = 1)),
               paste0("feature 'Species' is a factor: column_numeric\\(\\) needs numbers.*",
                      "column_categorical_with_vocabulary_list"))
  num <- suppressMessages(linear_regressor(feature_columns(column_numeric("x"))))
  expect_error(quietly(train(num, input_fn(data.frame(x = c(1, NA, 3), y = 1), response = "y"),
                             steps = 1)),
               "feature 'x' contains missing values (NA), first at row 2", fixed = TRUE)
})

test_that("selection helpers build categorical columns over several features", {
  df <- data.frame(cat_a = "x", cat_b = "y", num = 1)
  fcs <- feature_columns(column_categorical_with_hash_bucket(starts_with("cat"), hash_bucket_size = 5),
                         names = df)
  expect_equal(vapply(fcs, function(c) c$name, ""), c("cat_a", "cat_b"))
})

census_frame <- function(n, seed) {
  set.seed(seed)
  df <- data.frame(
    age = sample(18:80, n, TRUE),
    education = sample(c("Bachelors", "HS-grad", "Masters", "Doctorate", "Some-college"), n, TRUE),
    occupation = factor(sample(c("Tech", "Sales", "Exec", "Craft", "Service"), n, TRUE)),
    hours = round(stats::runif(n, 10, 70)),
    married = sample(c(TRUE, FALSE), n, TRUE),
    stringsAsFactors = FALSE
  )
  score <- with(df, 0.04 * (age - 45) + ifelse(education %in% c("Masters", "Doctorate"), 1.2, -0.4) +
                  ifelse(occupation == "Exec", 1, 0) + 0.03 * (hours - 40) + ifelse(married, 0.8, -0.5))
  df$income <- as.integer(score + stats::rnorm(n) > 0.3)
  df
}

census_columns <- function() {
  feature_columns(
    column_numeric("hours"),
    column_bucketized(column_numeric("age"), boundaries = c(25, 35, 45, 55, 65)),
    column_categorical_with_vocabulary_list(
      "education", vocabulary_list = c("Bachelors", "HS-grad", "Masters", "Doctorate")),
    column_categorical_with_hash_bucket("occupation", hash_bucket_size = 100),
    column_categorical_with_identity("married", num_buckets = 2),
    column_crossed(c("education", "occupation"), hash_bucket_size = 1000)
  )
}

test_that("a linear classifier on a census-like frame trains, evaluates, predicts, resumes and survives saveRDS", {
  train_df <- census_frame(4000, 1)
  test_df <- census_frame(1000, 2)
  dir <- tempfile()
  est <- suppressMessages(linear_classifier(census_columns(), model_dir = dir,
                                            config = run_config(tf_random_seed = 1)))
  quietly(train(est, input_fn(train_df, response = "income", batch_size = 64, num_epochs = 3)))
  ev <- quietly(evaluate(est, input_fn(test_df, response = "income", batch_size = 250)))
  expect_gt(ev$accuracy, ev$accuracy_baseline + 0.1)
  expect_gt(ev$auc, 0.85)
  expect_equal(ev$global_step, ceiling(3 * 4000 / 64))
  pred <- predict(est, input_fn(test_df[1:20, ], features = -income))
  rds <- tempfile(fileext = ".rds")
  saveRDS(est, rds)
  expect_equal(nrow(pred), 20)
  expect_setequal(unique(pred$classes), c("0", "1"))
  # coef() labels vocabulary ids by their words
  cf <- coef(est)
  expect_true(all(c("education[Masters]", "education[Doctorate]", "age_bucketized[0]") %in% names(cf)))
  expect_gt(cf[["education[Masters]"]], cf[["education[HS-grad]"]])
  # a checkpoint was written, and a new estimator on the same directory resumes from it
  expect_true(nzchar(latest_checkpoint(dir)))
  again <- suppressMessages(linear_classifier(census_columns(), model_dir = dir))
  expect_equal(predict(again, input_fn(test_df[1:20, ], features = -income)), pred)
  quietly(train(again, input_fn(train_df, response = "income", batch_size = 64), steps = 5))
  expect_equal(variable_value(again, "global_step")[[1]], ceiling(3 * 4000 / 64) + 5)
  # saveRDS() into a fresh process predicts the same, from the object alone
  unlink(dir, recursive = TRUE)
  skip_on_cran()  # the rest spawns an R process
  skip_if_not_installed("callr")
  fresh <- callr::r(function(rds, df, libs) {
    .libPaths(libs)
    library(cppestimators)
    predict(readRDS(rds), input_fn(df, features = -income))
  }, args = list(rds, test_df[1:20, ], .libPaths()))
  expect_equal(fresh, pred)
})

test_that("bucketized columns cross, and wrap in indicators and embeddings", {
  age <- column_bucketized(column_numeric("age"), boundaries = c(30, 50))
  cross <- column_crossed(list(age, "job"), hash_bucket_size = 100)
  expect_equal(cross$name, "age_bucketized_X_job")
  df <- data.frame(age = c(20, 40, 60), job = c("a", "b", "a"))
  expect_length(touched_rows(cross, df, 100), 3)
  expect_equal(touched_rows(column_indicator(age), df, 3), c(0, 1, 2))
  expect_equal(column_embedding(age, dimension = 2)$name, "age_bucketized_embedding")
})

test_that("bad sizes and defaults are refused before they reach a table", {
  expect_error(column_categorical_with_hash_bucket("x", hash_bucket_size = 2^32 + 1),
               "`hash_bucket_size` must be <= 2147483647")
  expect_error(column_categorical_with_identity("x", num_buckets = 2^31), "`num_buckets` must be <=")
  expect_error(column_categorical_with_vocabulary_list("x", vocabulary_list = c("a", "b"),
                                                       default_value = 5),
               "`default_value` must be <= 1")
  w <- column_categorical_weighted(column_categorical_with_identity("x", num_buckets = 3), "w")
  expect_error(column_crossed(list(w, "y"), hash_bucket_size = 10),
               "does not support weighted columns in `keys`: 'x_weighted_by_w'")
})

test_that("NA hashes as the text \"NA\"; one-dimensional arrays are plain vectors", {
  col <- column_categorical_with_hash_bucket("x", hash_bucket_size = 1000)
  expect_equal(touched_rows(col, data.frame(x = NA_character_), 1000),
               touched_rows(col, data.frame(x = "NA"), 1000))
  ids <- column_categorical_with_identity("x", num_buckets = 5)
  expect_equal(touched_rows(ids, list(x = array(c(1L, 3L))), 5), c(1, 3))
  num <- suppressMessages(linear_regressor(feature_columns(column_numeric("x"))))
  quietly(train(num, input_fn(list(x = array(c(1, 2, 3)), y = c(2, 4, 6)), response = "y"), steps = 1))
  expect_equal(variable_value(num, "global_step")[[1]], 1)
})

test_that("column_indicator(<feature name>) reads the categories off the training data (mtcars' am)", {
  cfg <- run_config(tf_random_seed = 1)
  fit <- function(col, data) {
    est <- dnn_classifier(hidden_units = 4, feature_columns = feature_columns(col, column_numeric("drat")),
                          config = cfg, model_dir = tempfile())
    quietly(train(est, data, response = "vs", num_epochs = 5, batch_size = 8))
    est
  }
  expect_s3_class(column_indicator("am"), "cppestimators_column_indicator")
  expect_equal(column_indicator("am")$name, "am_indicator")
  expect_match(format(column_indicator("am")), "vocabulary_list=<read from the training data>", fixed = TRUE)
  expect_length(column_indicator(c("am", "vs")), 2L)
  # am as numbers 0/1: the same model as the vocabulary written out
  by_name <- fit(column_indicator("am"), mtcars)
  by_hand <- fit(column_indicator(column_categorical_with_vocabulary_list("am", vocabulary_list = c(0, 1))), mtcars)
  expect_identical(by_name$spec$feature_columns[[1]]$categorical_column$vocabulary, c(0, 1))
  expect_equal(predict(by_name, mtcars)$logits, predict(by_hand, mtcars)$logits)
  unseen <- mtcars
  unseen$am[3] <- 2
  expect_error(predict(by_name, unseen), "feature 'am' has a value not seen in training: '2'")
  expect_error(evaluate(by_name, unseen), "feature 'am' has a value not seen in training: '2'")
  # am as a factor
  f <- mtcars
  f$am <- factor(ifelse(mtcars$am == 1, "manual", "automatic"))
  by_name <- fit(column_indicator("am"), f)
  by_hand <- fit(column_indicator(column_categorical_with_vocabulary_list("am", vocabulary_list = levels(f$am))), f)
  expect_identical(by_name$spec$feature_columns[[1]]$categorical_column$vocabulary, c("automatic", "manual"))
  expect_equal(predict(by_name, f)$logits, predict(by_hand, f)$logits)
  g <- f
  g$am <- factor(ifelse(mtcars$am == 1, "manual", "other"))
  expect_error(predict(by_name, g), "feature 'am' has a value not seen in training: 'other'")
  expect_error(predict(by_name, mtcars), "feature 'am' was a factor or character in training but is numeric here")
  # kept by saveRDS()
  path <- tempfile(fileext = ".rds")
  saveRDS(by_name, path)
  expect_equal(predict(readRDS(path), f)$logits, predict(by_name, f)$logits)
})

test_that("column_indicator(<feature name>) before training, and on features without categories, says what to do", {
  est <- linear_classifier(feature_columns(column_indicator("am")), model_dir = tempfile())
  expect_error(predict(est, mtcars), "reads its categories from the training data .*train\\(\\) the estimator first",
               class = "cppestimators_untrained")
  est <- linear_classifier(feature_columns(column_indicator("drat")), model_dir = tempfile())
  expect_error(train(est, mtcars, response = "vs"), "holds numbers that are not whole \\(3.9\\).*column_bucketized",
               class = "cppestimators_feature_columns")
  expect_error(column_indicator(NA_character_), "must be a categorical column or feature names",
               class = "cppestimators_feature_columns")
})
