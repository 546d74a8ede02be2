# What train(), evaluate() and predict() keep between calls (R/feature_cache.R):
# the spec-derived plan and model description, and the dense block keyed on
# the identity of the data's vectors. Every way of changing the data must be
# seen by the next call: the same error, or the same values, as without any
# cache (options(cppestimators.cache_bytes = 0) turns the block off).

percall_frame <- function(n = 40, p = 6, seed = 3) {
  set.seed(seed)
  df <- as.data.frame(matrix(stats::rnorm(n * p), n, p, dimnames = list(NULL, paste0("x", seq_len(p)))))
  df$y <- df$x1 - 2 * df$x2 + stats::rnorm(n)
  df
}

percall_estimator <- function(df) {
  est <- suppressMessages(linear_regressor(feature_columns(column_numeric(starts_with("x")), names = df),
                                           config = run_config(tf_random_seed = 1)))
  quietly(train(est, df, response = "y", steps = 3))
  est
}

# The result of `f(data)`, or its error's message, with the block cache and
# without it.
with_and_without_cache <- function(f, data) {
  run <- function() tryCatch(f(data), error = function(e) conditionMessage(e))
  cached <- run()
  old <- options(cppestimators.cache_bytes = 0)
  on.exit(options(old))
  list(cached = cached, direct = run())
}

expect_same_as_uncached <- function(f, data, error = NULL) {
  res <- with_and_without_cache(f, data)
  expect_identical(res$cached, res$direct)
  if (!is.null(error)) expect_match(res$cached, error, fixed = TRUE)
  invisible(res$cached)
}

test_that("the identity of the data's vectors is a safe key: R copies a vector the cache holds", {
  df <- percall_frame()
  est <- percall_estimator(df)
  # unreferenced, a list's vector is modified in place ...
  fresh <- list(x1 = stats::rnorm(40))
  at <- rlang::obj_address(fresh$x1)
  fresh$x1[1] <- 0
  expect_identical(rlang::obj_address(fresh$x1), at)
  # ... but not once a call's cache refers to it
  features <- as.list(df[paste0("x", 1:6)])
  p0 <- predict(est, as.data.frame(features))
  p0 <- predict(est, input_fn(features))
  at <- rlang::obj_address(features$x1)
  features$x1[1] <- 0
  expect_false(identical(rlang::obj_address(features$x1), at))
})

test_that("predict() sees every modification of the data frame", {
  df <- percall_frame()
  est <- percall_estimator(df)
  f <- function(data) predict(est, data, na_rows = "error")$predictions
  features <- df[paste0("x", 1:6)]
  p0 <- f(features)
  expect_identical(f(features), p0)
  na <- "feature 'x1' contains missing values (NA), first at row 1"
  # $<- with [<- of one element
  g <- features
  g$x1[1] <- NA
  expect_same_as_uncached(f, g, error = na)
  # [<-.data.frame of one cell
  g <- features
  g[1, "x1"] <- NA
  expect_same_as_uncached(f, g, error = na)
  g <- features
  g[[2]][5] <- Inf
  expect_same_as_uncached(f, g, error = "feature 'x2' contains infinite values (Inf), first at row 5")
  # x[] <- of the whole column, and in a loop over the rows
  g <- features
  g$x3[] <- 0
  p <- expect_same_as_uncached(f, g)
  expect_false(isTRUE(all.equal(p, p0)))
  g <- features
  for (i in seq_len(nrow(g))) g$x4[i] <- g$x4[i] + 1
  p <- expect_same_as_uncached(f, g)
  expect_false(isTRUE(all.equal(p, p0)))
  # a column replaced
  g <- features
  g$x5 <- rev(g$x5)
  p <- expect_same_as_uncached(f, g)
  expect_false(isTRUE(all.equal(p, p0)))
  # rows added, rows dropped
  g <- rbind(features, features[1:3, ])
  p <- expect_same_as_uncached(f, g)
  expect_identical(p[seq_len(nrow(features))], p0)
  p <- expect_same_as_uncached(f, features[-1, ])
  expect_identical(p, p0[-1])
  # and the original data again: its own predictions
  expect_identical(f(features), p0)
})

test_that("a vector modified in place through a variable that is its only reference is seen", {
  df <- percall_frame()
  est <- percall_estimator(df)
  x1 <- df$x1
  data <- df[paste0("x", 1:6)]
  p0 <- predict(est, data)$predictions
  rm(data)
  # a list that is the only holder of its vectors, modified element by element
  l <- as.list(df[paste0("x", 1:6)])
  p1 <- predict(est, as.data.frame(l))$predictions
  expect_identical(p1, p0)
  l$x1[2] <- NA
  expect_same_as_uncached(function(data) predict(est, data, na_rows = "error"), as.data.frame(l),
                          error = "feature 'x1' contains missing values (NA), first at row 2")
  l$x1[2] <- x1[2]
  expect_identical(predict(est, as.data.frame(l))$predictions, p0)
})

test_that("data.table's in-place set() of a column the cache refers to is seen", {
  skip_if_not_installed("data.table")
  df <- percall_frame()
  est <- percall_estimator(df)
  dt <- data.table::as.data.table(df[paste0("x", 1:6)])
  input <- input_fn(dt)
  p0 <- predict(est, dt)$predictions
  expect_identical(predict(est, input)$predictions, p0)
  # set() writes into the vector every holder shares, the input_fn() included
  data.table::set(dt, i = 3L, j = "x2", value = NA_real_)
  na <- "feature 'x2' contains missing values (NA), first at row 3"
  expect_same_as_uncached(function(data) predict(est, data, na_rows = "error"), dt, error = na)
  expect_same_as_uncached(function(data) predict(est, data), input, error = na)
  data.table::set(dt, i = 3L, j = "x2", value = df$x2[3] + 1)
  p <- expect_same_as_uncached(function(data) predict(est, data)$predictions, dt)
  expect_false(isTRUE(all.equal(p, p0)))
  expect_identical(predict(est, input)$predictions, p)
})

test_that("train() and evaluate() on a modified data frame read the new data", {
  df <- percall_frame()
  est <- percall_estimator(df)
  m0 <- quietly(evaluate(est, df, steps = 1))
  g <- df
  g$x2[7] <- NA
  msg <- "feature 'x2' contains missing values (NA), first at row 7"
  expect_same_as_uncached(function(data) quietly(evaluate(est, data, steps = 1)), g, error = msg)
  expect_error(quietly(train(est, g, steps = 1)), msg, fixed = TRUE, class = "cppestimators_error")
  g <- df
  g$y <- g$y + 10
  m <- quietly(evaluate(est, g, steps = 1))
  expect_gt(m$average_loss, m0$average_loss)
  expect_identical(quietly(evaluate(est, df, steps = 1))$average_loss, m0$average_loss)
})

test_that("an input_fn() over modified data gives the new data's answers", {
  df <- percall_frame()
  est <- percall_estimator(df)
  input <- input_fn(df, features = starts_with("x"), response = NULL)
  p0 <- predict(est, input)$predictions
  g <- df
  g$x1[4] <- NA
  expect_error(predict(est, input_fn(g, features = starts_with("x"))),
               "feature 'x1' contains missing values (NA), first at row 4", fixed = TRUE)
  expect_identical(predict(est, input)$predictions, p0)
})

test_that("the model description is computed once and compared with the file's bytes", {
  df <- percall_frame()
  dir <- tempfile()
  est <- suppressMessages(linear_regressor(feature_columns(column_numeric(starts_with("x")), names = df),
                                           model_dir = dir))
  quietly(train(est, df, response = "y", steps = 1))
  path <- file.path(dir, "cppestimators_model.txt")
  expect_identical(readLines(path), unname(cppestimators:::model_description(est)))
  quietly(train(est, df, response = "y", steps = 1))
  # the file changed under the estimator: refused, naming the difference
  writeLines(c(readLines(path), "column: numeric_column(key='z', shape=(1,), default_value=None, dtype=tf.float32, normalizer_fn=None)"), path)
  expect_error(quietly(train(est, df, response = "y", steps = 1)), "in model_dir: +column: numeric_column\\(key='z'",
               class = "cppestimators_error")
  # the same lines with Windows line ends are the same model
  writeBin(charToRaw(paste0(paste(unname(cppestimators:::model_description(est)), collapse = "\r\n"), "\r\n")), path)
  expect_silent(quietly(train(est, df, response = "y", steps = 1)))
  unlink(dir, recursive = TRUE)
})

test_that("an estimator whose columns differ gets its own plan and description", {
  df <- percall_frame()
  est <- percall_estimator(df)
  plan <- cppestimators:::column_plan(est)
  expect_identical(plan$keys, paste0("x", 1:6))
  other <- est
  other$spec$feature_columns <- feature_columns(column_numeric("x1", "x2"))
  expect_identical(cppestimators:::column_plan(other)$keys, c("x1", "x2"))
  expect_identical(cppestimators:::column_plan(est)$keys, paste0("x", 1:6))
  expect_length(cppestimators:::model_description(other), 5L)  # model, head, optimizer and 2 columns
})

test_that("the caches are not saved with the estimator", {
  df <- percall_frame()
  est <- percall_estimator(df)
  invisible(predict(est, df))
  bytes <- length(serialize(est, NULL))
  big <- percall_frame(n = 20000)
  invisible(predict(est, big[1:5000, ]))
  expect_lt(length(serialize(est, NULL)), bytes + 1000)
  back <- unserialize(serialize(est, NULL))
  expect_identical(predict(back, df), predict(est, df))
})

test_that("a wide data frame: the checks still name the first bad column and row", {
  df <- percall_frame(n = 256, p = 600)
  est <- percall_estimator(df)
  p0 <- predict(est, df)  # batches of 128 rows split over 2 threads
  expect_identical(nrow(p0), 256L)
  g <- df
  g$x599[200] <- NA
  g$x300[250] <- NaN
  expect_same_as_uncached(function(data) predict(est, data, na_rows = "error"), g,
                          error = "feature 'x300' contains missing values (NA), first at row 250")
  g <- df
  g$x17 <- as.Date("2020-01-01") + seq_len(256)
  expect_error(predict(est, g), "the feature 'x17' of column_numeric('x17') is a Date", fixed = TRUE,
               class = "cppestimators_feature_type")
  g <- df
  g$x9 <- as.character(g$x9)
  expect_error(predict(est, g), "feature 'x9' was numeric in training but is a factor or character here",
               fixed = TRUE)
})

test_that("train() keeps its prepared hooks for identical calls and prepares them again on any change", {
  df <- percall_frame()
  est <- suppressMessages(linear_regressor(feature_columns(column_numeric(starts_with("x")), names = df),
                                           config = run_config(save_summary_steps = 0, log_step_count_steps = NULL,
                                                               save_checkpoints_steps = NULL,
                                                               save_checkpoints_secs = NULL)))
  calls <- new.env()
  counting <- function(tag) session_run_hook(begin = function() assign(tag, (calls[[tag]] %||% 0) + 1, envir = calls))
  a <- counting("a")
  b <- counting("b")
  step <- function() variable_value(est, "global_step")[[1]]
  tr <- function(...) quietly(train(est, df, response = "y", batch_size = 10, num_epochs = NULL, ...))
  tr(steps = 1, hooks = list(a))
  tr(steps = 1, hooks = list(a))
  expect_identical(calls$a, 2)
  expect_equal(step(), 2)
  # other hooks, other steps
  tr(steps = 1, hooks = list(b))
  expect_identical(calls$b, 1)
  expect_identical(calls$a, 2)
  tr(steps = 3, hooks = list(b))
  expect_equal(step(), 6)
  # a hook changed in one field is another hook
  stop_at <- hook_stop_at_step(last_step = 8)
  tr(hooks = list(stop_at))
  expect_equal(step(), 8)
  stop_at$last_step <- 10
  tr(hooks = list(stop_at))
  expect_equal(step(), 10)
  # the options the hooks read, and the estimator's run_config()
  old <- options(cppestimators.progress = TRUE)
  on.exit(options(old))
  shown <- capture.output(suppressMessages(train(est, df, response = "y", steps = 1)), type = "message")
  options(cppestimators.progress = FALSE)
  expect_identical(capture.output(suppressMessages(train(est, df, response = "y", steps = 1)), type = "message"),
                   character())
  est$spec$config <- run_config(save_summary_steps = 1, log_step_count_steps = NULL, save_checkpoints_steps = NULL,
                                save_checkpoints_secs = NULL)
  quietly(train(est, df, response = "y", steps = 1))
  expect_gt(length(list.files(model_dir(est), pattern = "^events\\.out")), 0L)
  unlink(model_dir(est), recursive = TRUE)
})

test_that("evaluate() keeps its prepared hooks for identical calls and prepares them again on any change", {
  df <- percall_frame()
  est <- percall_estimator(df)
  one <- quietly(evaluate(est, df, response = "y", steps = 1, batch_size = 10))
  two <- quietly(evaluate(est, df, response = "y", steps = 2, batch_size = 10))
  again <- quietly(evaluate(est, df, response = "y", steps = 1, batch_size = 10))
  all <- quietly(evaluate(est, df, response = "y", batch_size = 10))
  expect_false(isTRUE(all.equal(one$average_loss, two$average_loss)))
  expect_identical(again, one)
  # every row's mean loss, against predict()
  p <- predict(est, df[paste0("x", 1:6)])$predictions
  expect_equal(all$average_loss, mean((p - df$y)^2), tolerance = 1e-5)
  expect_s3_class(one, "tf_estimator_metrics")
  expect_identical(names(one), c("average_loss", "label/mean", "loss", "prediction/mean", "global_step"))
  unlink(model_dir(est), recursive = TRUE)
})

test_that("a model description file rewritten with the same size is read again", {
  df <- percall_frame()
  dir <- tempfile()
  est <- suppressMessages(linear_regressor(feature_columns(column_numeric(starts_with("x")), names = df),
                                           model_dir = dir))
  quietly(train(est, df, response = "y", steps = 1))
  quietly(train(est, df, response = "y", steps = 1))  # checked, and its stamp kept
  path <- file.path(dir, "cppestimators_model.txt")
  lines <- readLines(path)
  changed <- sub("key='x1'", "key='q1'", lines, fixed = TRUE)
  expect_identical(sum(nchar(changed)), sum(nchar(lines)))
  writeLines(changed, path)
  expect_error(quietly(train(est, df, response = "y", steps = 1)),
               "in model_dir: +column: _NumericColumn\\(key='q1'", class = "cppestimators_error")
  writeLines(lines, path)
  expect_silent(quietly(train(est, df, response = "y", steps = 1)))
  unlink(dir, recursive = TRUE)
})
