# Training, evaluation and prediction over streaming datasets, compared with
# the same data given as a data frame.

stream_frame <- function(n = 600, seed = 1) {
  set.seed(seed)
  df <- data.frame(x1 = round(rnorm(n), 6), x2 = round(runif(n), 6),
                   g = sample(c("a", "b", "c"), n, TRUE), stringsAsFactors = FALSE)
  df$y <- round(2 * df$x1 - df$x2 + (df$g == "b") + rnorm(n, sd = 0.1), 6)
  df$label <- ifelse(df$y > 0.3, "up", "down")
  df$w <- round(runif(n, 0.5, 2), 3)
  df
}

stream_csv <- function(df, files = 1L, env = parent.frame()) {
  parts <- split(df, rep(seq_len(files), length.out = nrow(df))[order(rep(seq_len(files), length.out = nrow(df)))])
  paths <- vapply(seq_along(parts), function(i) local_test_file(fileext = ".csv", env = env), "")
  for (i in seq_along(parts)) utils::write.csv(parts[[i]], paths[i], row.names = FALSE)
  paths
}

stream_columns <- function() {
  feature_columns(column_numeric("x1", "x2"),
                  column_indicator(column_categorical_with_vocabulary_list("g", vocabulary_list = c("a", "b", "c"))))
}

test_that("a linear regressor trained over a CSV stream equals one trained on the data frame", {
  df <- stream_frame()
  paths <- stream_csv(df, files = 3L)
  spec <- csv_record_spec(paths[1])
  ds <- text_line_dataset(paths, spec) %>% dataset_batch(10) %>% dataset_repeat(3)
  a <- linear_regressor(stream_columns())
  suppressMessages(train(a, input_fn(ds, features = c(x1, x2, g), response = y)))
  b <- linear_regressor(stream_columns())
  suppressMessages(train(b, input_fn(df, features = c(x1, x2, g), response = y, batch_size = 10,
                                     num_epochs = 3, shuffle = FALSE)))
  expect_equal(cpp_estimator_global_step(estimator_ptr(a)), 180)
  expect_identical(variable_value(a), variable_value(b))
  # windows smaller than the data, and not a multiple of the batch: batches
  # cross the windows and the three files
  withr_opts <- options(cppestimators.stream_window_rows = 37)
  on.exit(options(withr_opts), add = TRUE)
  c2 <- linear_regressor(stream_columns())
  suppressMessages(train(c2, input_fn(ds, features = c(x1, x2, g), response = y)))
  expect_identical(variable_value(c2), variable_value(a))
  # evaluation and prediction read the stream as they read the data frame
  e1 <- suppressMessages(evaluate(a, input_fn(text_line_dataset(paths, spec), features = c(x1, x2, g), response = y,
                                              batch_size = 50)))
  e2 <- suppressMessages(evaluate(a, input_fn(df, features = c(x1, x2, g), response = y, batch_size = 50,
                                              shuffle = FALSE)))
  expect_equal(e1, e2)
  p1 <- predict(a, input_fn(text_line_dataset(paths, spec), features = c(x1, x2, g)))
  p2 <- predict(a, input_fn(df, features = c(x1, x2, g), shuffle = FALSE))
  expect_equal(nrow(p1), 600L)
  expect_identical(p1, p2)
})

test_that("without dataset_batch() the input_fn's batch size cuts batches that cross passes", {
  df <- stream_frame(95)
  paths <- stream_csv(df)
  ds <- text_line_dataset(paths, csv_record_spec(paths)) %>% dataset_repeat(2)
  a <- linear_regressor(stream_columns())
  suppressMessages(train(a, input_fn(ds, features = c(x1, x2, g), response = y, batch_size = 20)))
  b <- linear_regressor(stream_columns())
  suppressMessages(train(b, input_fn(df, features = c(x1, x2, g), response = y, batch_size = 20, num_epochs = 2,
                                     shuffle = FALSE)))
  # 190 rows in batches of 20 crossing the two passes: 10 steps, the last partial
  expect_equal(cpp_estimator_global_step(estimator_ptr(a)), 10)
  expect_identical(variable_value(a), variable_value(b))
  # after dataset_batch() each pass ends in its own partial batch: 2 x 5 steps
  c2 <- linear_regressor(stream_columns())
  suppressMessages(train(c2, input_fn(text_line_dataset(paths, csv_record_spec(paths)) %>% dataset_batch(20) %>%
                                        dataset_repeat(2), features = c(x1, x2, g), response = y)))
  expect_equal(cpp_estimator_global_step(estimator_ptr(c2)), 10)
  d <- linear_regressor(stream_columns())
  suppressMessages(train(d, input_fn(text_line_dataset(paths, csv_record_spec(paths)) %>% dataset_batch(20, drop_remainder = TRUE) %>%
                                       dataset_repeat(2), features = c(x1, x2, g), response = y)))
  expect_equal(cpp_estimator_global_step(estimator_ptr(d)), 8)
})

test_that("a classifier reads a text response through its label_vocabulary, and weights from the stream", {
  df <- stream_frame()
  paths <- stream_csv(df)
  ds <- text_line_dataset(paths, csv_record_spec(paths)) %>% dataset_batch(25)
  a <- linear_classifier(stream_columns(), label_vocabulary = c("down", "up"), weight_column = "w")
  suppressMessages(train(a, input_fn(ds, features = c(x1, x2, g), response = label)))
  b <- linear_classifier(stream_columns(), label_vocabulary = c("down", "up"), weight_column = "w")
  suppressMessages(train(b, input_fn(df, features = c(x1, x2, g, w), response = label, batch_size = 25,
                                     shuffle = FALSE)))
  expect_identical(variable_value(a), variable_value(b))
  m <- suppressMessages(evaluate(a, input_fn(ds, features = c(x1, x2, g), response = label)))
  expect_gt(m$accuracy, 0.8)
  bad <- df
  bad$label[250] <- "sideways"
  p2 <- stream_csv(bad)
  expect_error(suppressMessages(train(linear_classifier(stream_columns(), label_vocabulary = c("down", "up")),
                                      input_fn(text_line_dataset(p2, csv_record_spec(p2)), features = c(x1, x2, g),
                                               response = label))),
               class = "cppestimators_error", regexp = "not in `label_vocabulary`: 'sideways' \\(row 250\\)")
  expect_error(suppressMessages(train(linear_classifier(stream_columns()),
                                      input_fn(ds, features = c(x1, x2, g), response = label))),
               class = "cppestimators_error", regexp = "is character: give the classifier a `label_vocabulary`")
})

test_that("bad values in a later window are errors naming the feature and the dataset's row", {
  df <- stream_frame(300)
  paths <- stream_csv(df)
  lines <- readLines(paths)
  # row 200's x1 NaN (the reader takes it; training refuses it in its window)
  writeLines(replace(lines, 1 + 200, sub("^[^,]*", "NaN", lines[1 + 200])), paths)
  spec <- csv_record_spec(paths, defaults = list(NA_real_, 0, "", 0, "", 1))
  old <- options(cppestimators.stream_window_rows = 64)
  on.exit(options(old), add = TRUE)
  est <- linear_regressor(stream_columns())
  expect_error(suppressMessages(train(est, input_fn(text_line_dataset(paths, spec), features = c(x1, x2, g),
                                                    response = y, batch_size = 16))),
               class = "cppestimators_error",
               regexp = "feature 'x1' contains missing values \\(NA\\), first at row 8: impute.* \\(rows counted from row 193 of the dataset\\)")
  # the steps before the bad window were trained
  expect_gt(cpp_estimator_global_step(estimator_ptr(est)), 0)
  # left empty, with no default (NA_real_ is none): the reader names the file's line
  writeLines(replace(lines, 1 + 200, sub("^[^,]*", "", lines[1 + 200])), paths)
  est <- linear_regressor(stream_columns())
  expect_error(suppressMessages(train(est, input_fn(text_line_dataset(paths, spec), features = c(x1, x2, g),
                                                    response = y, batch_size = 16))),
               class = "cppestimators_error",
               regexp = paste0(basename(paths), ":201: column 'x1' is missing \\(an empty field\\) and has no default"))
  expect_gt(cpp_estimator_global_step(estimator_ptr(est)), 0)
  expect_error(train(linear_regressor(stream_columns()), input_fn(text_line_dataset(paths, spec), features = c(x1, x2, g))),
               class = "cppestimators_error", regexp = "has no response")
  expect_error(predict(est, input_fn(text_line_dataset(paths, spec) %>% dataset_repeat(), features = c(x1, x2, g))),
               class = "cppestimators_error", regexp = "predict\\(\\) needs a finite dataset")
})

test_that("boosted trees over a stream equal trees trained in memory when the first window holds the data", {
  df <- stream_frame(800)
  paths <- stream_csv(df)
  ds <- text_line_dataset(paths, csv_record_spec(paths)) %>% dataset_batch(100) %>% dataset_repeat()
  fc <- feature_columns(column_numeric("x1", "x2"))
  a <- boosted_trees_regressor(fc, n_batches_per_layer = 4, n_trees = 4, max_depth = 3)
  b <- boosted_trees_regressor(fc, n_batches_per_layer = 4, n_trees = 4, max_depth = 3)
  suppressMessages(train(a, input_fn(ds, features = c(x1, x2), response = y), steps = 100))
  suppressMessages(train(b, input_fn(df, features = c(x1, x2), response = y, batch_size = 100, num_epochs = NULL,
                                     shuffle = FALSE), steps = 100))
  expect_equal(cpp_estimator_global_step(estimator_ptr(a)), 48)
  expect_equal(predict(a, input_fn(df, features = c(x1, x2))), predict(b, input_fn(df, features = c(x1, x2))))
  # windows of 150 rows: every window recomputes its rows' buckets and trees
  old <- options(cppestimators.stream_window_rows = 150)
  on.exit(options(old), add = TRUE)
  c2 <- boosted_trees_regressor(fc, n_batches_per_layer = 1, n_trees = 4, max_depth = 3)
  d2 <- boosted_trees_regressor(fc, n_batches_per_layer = 1, n_trees = 4, max_depth = 3)
  suppressMessages(train(c2, input_fn(ds, features = c(x1, x2), response = y), steps = 100))
  suppressMessages(train(d2, input_fn(df, features = c(x1, x2), response = y, batch_size = 100, num_epochs = NULL,
                                      shuffle = FALSE), steps = 100))
  m1 <- suppressMessages(evaluate(c2, input_fn(df, features = c(x1, x2), response = y)))
  m2 <- suppressMessages(evaluate(d2, input_fn(df, features = c(x1, x2), response = y)))
  expect_lt(m1$average_loss, 0.5 * stats::var(df$y))
  expect_lt(abs(m1$average_loss - m2$average_loss), 0.1 * m2$average_loss)
})

test_that("an in-memory evaluator and train_and_evaluate() read streaming evaluation data", {
  df <- stream_frame()
  paths <- stream_csv(df)
  spec <- csv_record_spec(paths)
  train_ds <- text_line_dataset(paths, spec) %>% dataset_batch(50) %>% dataset_repeat()
  eval_in <- input_fn(text_line_dataset(paths, spec), features = c(x1, x2, g), response = y, batch_size = 100)
  est <- linear_regressor(stream_columns())
  h <- suppressMessages(train(est, input_fn(train_ds, features = c(x1, x2, g), response = y), steps = 30,
                              hooks = list(hook_in_memory_evaluator(est, eval_in, every_n_iter = 10))))
  ev <- h$evaluations
  # at the start, then every 10 steps
  expect_equal(ev$steps, c(0, 10, 20, 30))
  direct <- suppressMessages(evaluate(est, eval_in))
  expect_equal(ev$eval_average_loss[4], direct$average_loss, tolerance = 1e-6)
})

test_that("training resumed from a checkpoint reads the dataset from its start, unless the script skips", {
  df <- stream_frame(100)
  paths <- stream_csv(df)
  spec <- csv_record_spec(paths)
  dir <- local_test_dir()
  ds <- text_line_dataset(paths, spec) %>% dataset_batch(10)
  a <- linear_regressor(stream_columns(), model_dir = dir)
  suppressMessages(train(a, input_fn(ds, features = c(x1, x2, g), response = y), steps = 5))
  a2 <- linear_regressor(stream_columns(), model_dir = dir)  # a new process resuming
  suppressMessages(train(a2, input_fn(ds, features = c(x1, x2, g), response = y), steps = 5))
  # the same as two passes over the first 50 rows
  b <- linear_regressor(stream_columns())
  suppressMessages(train(b, input_fn(df[1:50, ], features = c(x1, x2, g), response = y, batch_size = 10,
                                     num_epochs = 2, shuffle = FALSE)))
  expect_equal(cpp_estimator_global_step(estimator_ptr(a2)), 10)
  expect_equal(variable_value(a2), variable_value(b), tolerance = 1e-6)
  # skipping the rows already trained continues where the first run stopped
  dir2 <- local_test_dir()
  c2 <- linear_regressor(stream_columns(), model_dir = dir2)
  suppressMessages(train(c2, input_fn(ds, features = c(x1, x2, g), response = y), steps = 5))
  c3 <- linear_regressor(stream_columns(), model_dir = dir2)
  step <- variable_value(c3, "global_step")[[1]]
  expect_equal(step, 5)
  resumed <- text_line_dataset(paths, spec) %>% dataset_skip(step * 10) %>% dataset_batch(10)
  suppressMessages(train(c3, input_fn(resumed, features = c(x1, x2, g), response = y), steps = 5))
  d <- linear_regressor(stream_columns())
  suppressMessages(train(d, input_fn(df, features = c(x1, x2, g), response = y, batch_size = 10, shuffle = FALSE)))
  expect_equal(variable_value(c3), variable_value(d), tolerance = 1e-6)
})

test_that("TFRecord files train a classifier through classifier_parse_example_spec()", {
  df <- stream_frame(400)
  df$cls <- as.integer(df$label == "up")
  path <- local_test_file(fileext = ".tfrecord")
  write_tfrecord(df[c("x1", "x2", "g", "cls")], path)
  fcs <- stream_columns()
  spec <- classifier_parse_example_spec(fcs, label_key = "cls")
  ds <- tfrecord_dataset(path, spec) %>% dataset_batch(40) %>% dataset_repeat(5)
  a <- linear_classifier(fcs)
  suppressMessages(train(a, input_fn(ds, features = c(x1, x2, g), response = cls)))
  b <- linear_classifier(fcs)
  # the records hold float32 values: the in-memory model reads them as read back
  mem <- dataset_collect(tfrecord_dataset(path, spec))
  # g is a variable-length feature (as TF parses categorical columns): one value per record here
  expect_equal(lengths(mem$g), rep(1L, 400))
  mem$g <- unlist(mem$g)
  expect_equal(mem$x1, df$x1, tolerance = 1e-6)
  suppressMessages(train(b, input_fn(mem, features = c(x1, x2, g), response = cls, batch_size = 40, num_epochs = 5,
                                     shuffle = FALSE)))
  expect_equal(variable_value(a), variable_value(b), tolerance = 1e-6)
  expect_gt(suppressMessages(evaluate(a, input_fn(ds %>% dataset_take(10), features = c(x1, x2, g),
                                                  response = cls)))$accuracy, 0.8)
})

test_that("every feature column kind reads a stream as it reads the data frame", {
  set.seed(3)
  n <- 300
  df <- data.frame(x1 = round(rnorm(n), 5), x2 = round(runif(n), 5),
                   g = sample(c("a", "b", "c"), n, TRUE), h = sample(letters, n, TRUE),
                   id = sample(0:4, n, TRUE), wt = round(runif(n, 0.1, 3), 3), stringsAsFactors = FALSE)
  df$y <- round(df$x1 + (df$g == "a") - 0.1 * df$id + rnorm(n, sd = 0.1), 5)
  paths <- stream_csv(df)
  spec <- csv_record_spec(paths, types = "ddccidd")
  g <- column_categorical_with_vocabulary_list("g", vocabulary_list = c("a", "b", "c"))
  h <- column_categorical_with_hash_bucket("h", hash_bucket_size = 7)
  id <- column_categorical_with_identity("id", num_buckets = 5)
  linear_cols <- feature_columns(column_numeric("x1"), column_bucketized(column_numeric("x2"), c(0.25, 0.5, 0.75)),
                                 g, h, id, column_crossed(c("g", "h"), hash_bucket_size = 11),
                                 column_categorical_weighted(g, "wt"))
  dnn_cols <- feature_columns(column_numeric("x1", "x2"), column_embedding(h, dimension = 3),
                              column_indicator(id), column_indicator(g))
  set.seed(7)
  a <- dnn_linear_combined_regressor(linear_feature_columns = linear_cols, dnn_feature_columns = dnn_cols,
                                     dnn_hidden_units = c(8, 4), config = run_config(tf_random_seed = 11))
  set.seed(7)
  b <- dnn_linear_combined_regressor(linear_feature_columns = linear_cols, dnn_feature_columns = dnn_cols,
                                     dnn_hidden_units = c(8, 4), config = run_config(tf_random_seed = 11))
  feats <- c("x1", "x2", "g", "h", "id", "wt")
  old <- options(cppestimators.stream_window_rows = 70)
  on.exit(options(old), add = TRUE)
  # the repeat before the batch: batches cross the passes, as with num_epochs
  suppressMessages(train(a, input_fn(text_line_dataset(paths, spec) %>% dataset_repeat(2) %>% dataset_batch(32),
                                     features = one_of(feats), response = y)))
  suppressMessages(train(b, input_fn(df, features = one_of(feats), response = y, batch_size = 32, num_epochs = 2,
                                     shuffle = FALSE)))
  expect_equal(variable_value(a), variable_value(b), tolerance = 1e-6)
  p1 <- predict(a, input_fn(text_line_dataset(paths, spec), features = one_of(feats)))
  p2 <- predict(b, input_fn(df, features = one_of(feats), shuffle = FALSE))
  expect_equal(p1, p2, tolerance = 1e-5)
})

test_that("a model trains over an SQLite query, and an error in a later fetch stops training cleanly", {
  skip_if_not_installed("RSQLite")
  skip_if_not_installed("DBI")
  df <- stream_frame(500)
  db <- local_test_file(fileext = ".sqlite")
  con <- DBI::dbConnect(RSQLite::SQLite(), db)
  DBI::dbWriteTable(con, "rows", df)
  DBI::dbDisconnect(con)
  ds <- sqlite_dataset(db, "SELECT x1, x2, g, y FROM rows", chunk_size = 64L) %>% dataset_batch(20)
  a <- linear_regressor(stream_columns())
  suppressMessages(train(a, input_fn(ds, features = c(x1, x2, g), response = y)))
  b <- linear_regressor(stream_columns())
  suppressMessages(train(b, input_fn(df, features = c(x1, x2, g), response = y, batch_size = 20, shuffle = FALSE)))
  expect_identical(variable_value(a), variable_value(b))
  # an R error raised by the source's fetch in the middle of training
  calls <- 0L
  failing <- structure(list(ops = ds$ops, inner = ds), class = c("failing_source_dataset", "cppestimators_dataset"))
  registerS3method("engine_source", "failing_source_dataset", function(dataset) {
    s <- engine_source(dataset$inner)
    fetch <- s$next_chunk
    s$next_chunk <- function(n) {
      calls <<- calls + 1L
      if (calls == 4L) stop("the database went away")
      fetch(n)
    }
    s
  })
  registerS3method("dataset_names", "failing_source_dataset", function(dataset) c("x1", "x2", "g", "y"))
  old <- options(cppestimators.stream_window_rows = 64)  # a fetch per window
  on.exit(options(old), add = TRUE)
  est <- linear_regressor(stream_columns())
  expect_error(suppressMessages(train(est, input_fn(failing, features = c(x1, x2, g), response = y))),
               regexp = "the database went away")
  # the steps before the failing fetch were trained, and the estimator trains on
  expect_gt(cpp_estimator_global_step(estimator_ptr(est)), 0)
  expect_equal(cpp_live_sessions(), 0)
  suppressMessages(train(est, input_fn(ds, features = c(x1, x2, g), response = y), steps = 2))
})
