# The histogram growths over streamed datasets: the stream is read twice
# (the cuts' sample, then the bins) and the trees grow from the bins, the
# same trees as from the data frame.

hist_stream_frame <- function(n, seed = 3) {
  set.seed(seed)
  d <- data.frame(x = round(rnorm(n), 5), z = round(runif(n), 4),
                  g = sample(c("a", "b", "c", "d"), n, TRUE), stringsAsFactors = FALSE)
  d$x[seq(5, n, by = 11)] <- NA
  d$y <- round(ifelse(is.na(d$x), 1, d$x) - 2 * d$z + (d$g == "b") + rnorm(n, sd = 0.2), 5)
  d$w <- round(runif(n, 0.5, 2), 3)
  d
}

hist_stream_csv <- function(d, files = 1L, env = parent.frame()) {
  part <- sort(rep(seq_len(files), length.out = nrow(d)))
  paths <- vapply(seq_len(files), function(i) local_test_file(fileext = ".csv", env = env), "")
  for (i in seq_len(files)) utils::write.csv(d[part == i, ], paths[i], row.names = FALSE, na = "NaN")  # (read as NaN)
  paths
}

hist_stream_columns <- function() {
  feature_columns(column_numeric("x", "z"),
                  column_categorical_with_vocabulary_list("g", vocabulary_list = c("a", "b", "c", "d")))
}

hist_vars <- function(est) {
  names <- grep("^boosted_trees/", variable_names(est), value = TRUE)
  stats::setNames(lapply(names, function(v) as.numeric(unlist(variable_value(est, v)))), names)
}

test_that("the histogram growths train over a CSV stream the trees they grow from the data frame", {
  d <- hist_stream_frame(900)
  paths <- hist_stream_csv(d, files = 3L)
  spec <- csv_record_spec(paths[1])
  old <- options(cppestimators.stream_window_rows = 100)  # windows smaller than the data
  on.exit(options(old), add = TRUE)
  for (g in c("depthwise", "lossguide")) {
    make <- function() {
      suppressMessages(boosted_trees_regressor(hist_stream_columns(), growth = g, n_trees = 5, max_depth = 3,
                                               max_leaves = 6, weight_column = "w"))
    }
    streamed <- make()
    ds <- text_line_dataset(paths, spec)
    expect_silent(train(streamed, input_fn(ds, features = c(x, z, g, w), response = y)))
    in_memory <- make()
    train(in_memory, d, response = "y")
    a <- hist_vars(streamed)
    b <- hist_vars(in_memory)
    expect_identical(a, b, info = g)
    expect_equal(cpp_estimator_global_step(estimator_ptr(streamed)), 5)
    expect_gt(length(a[["boosted_trees/node_feature"]]), 5 * 3)
    p1 <- predict(streamed, input_fn(text_line_dataset(paths, spec), features = c(x, z, g)))
    p2 <- predict(in_memory, d)
    expect_identical(p1$predictions, p2$predictions)
  }
})

test_that("a stream's bins are the data frame's when the rows outnumber the cuts' sample", {
  skip_on_cran()
  # 270,000 rows: more than the 262,144 sampled for the cuts, which both
  # choose by the rows' indices
  d <- hist_stream_frame(270000, seed = 8)
  d$w <- NULL
  paths <- hist_stream_csv(d, files = 2L)
  spec <- csv_record_spec(paths[1])
  make <- function() {
    suppressMessages(boosted_trees_regressor(hist_stream_columns(), growth = "depthwise", n_trees = 2,
                                             max_depth = 3, max_bin = 64))
  }
  streamed <- make()
  train(streamed, input_fn(text_line_dataset(paths, spec), features = c(x, z, g), response = y))
  in_memory <- make()
  train(in_memory, d, response = "y")
  a <- hist_vars(streamed)
  b <- hist_vars(in_memory)
  # 62 cuts each (some values are repeated, so not every quantile is new)
  expect_gt(sum(a[["boosted_trees/bin_counts"]]), 100)
  expect_identical(a[["boosted_trees/bin_cuts"]], b[["boosted_trees/bin_cuts"]])
  expect_identical(a[["boosted_trees/node_feature"]], b[["boosted_trees/node_feature"]])
  expect_identical(a[["boosted_trees/node_threshold"]], b[["boosted_trees/node_threshold"]])
  expect_equal(a[["boosted_trees/node_value"]], b[["boosted_trees/node_value"]], tolerance = 1e-6)
})

test_that("steps bound the trees of a streamed training, and train() again goes on", {
  d <- hist_stream_frame(300)
  paths <- hist_stream_csv(d)
  spec <- csv_record_spec(paths)
  est <- suppressMessages(boosted_trees_regressor(hist_stream_columns(), growth = "depthwise", n_trees = 4,
                                                  max_depth = 2))
  input <- input_fn(text_line_dataset(paths, spec), features = c(x, z, g), response = y)
  train(est, input, steps = 3)
  expect_equal(cpp_estimator_global_step(estimator_ptr(est)), 3)
  expect_equal(hist_vars(est)[["boosted_trees/state"]][1], 3)
  train(est, input)
  expect_equal(hist_vars(est)[["boosted_trees/state"]][1], 4)
  whole <- suppressMessages(boosted_trees_regressor(hist_stream_columns(), growth = "depthwise", n_trees = 4,
                                                    max_depth = 2))
  train(whole, d, response = "y")
  expect_identical(hist_vars(est), hist_vars(whole))
})

test_that("a stream the histogram growths cannot read twice is refused", {
  d <- hist_stream_frame(200)
  paths <- hist_stream_csv(d)
  spec <- csv_record_spec(paths)
  est <- suppressMessages(boosted_trees_regressor(hist_stream_columns(), growth = "lossguide", n_trees = 2))
  forever <- text_line_dataset(paths, spec) %>% dataset_repeat()
  expect_error(train(est, input_fn(forever, features = c(x, z, g), response = y)),
               "read a streamed dataset twice .*repeats forever", class = "cppestimators_stream_error")
  # a filter keeping every row on one pass and fewer on the next (a pass
  # starts with the file's first row)
  passes <- new.env()
  passes$n <- 0
  alternating <- text_line_dataset(paths, spec) %>%
    dataset_filter(function(r) {
      if (identical(r$x[1], d$x[1])) passes$n <- passes$n + 1
      if (passes$n %% 2 == 1) rep(TRUE, nrow(r)) else is.na(r$x) | r$x > 0
    })
  expect_error(train(est, input_fn(alternating, features = c(x, z, g), response = y)),
               "gave [0-9]+ rows on its first pass and [0-9]+( or more)? on its second: .*every pass must give the same rows")
  expect_equal(cpp_estimator_global_step(estimator_ptr(est)), 0)
})
