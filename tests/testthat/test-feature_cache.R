# The cached float32 block of an input's dense columns (R/feature_cache.R).

wide_frame <- function(n = 300, p = 7, seed = 1) {
  set.seed(seed)
  df <- as.data.frame(matrix(stats::rnorm(n * p), n, p, dimnames = list(NULL, paste0("x", seq_len(p)))))
  df$y <- 2 * df$x1 - df$x2 + stats::rnorm(n)
  df
}

wide_estimator <- function(df, seed = 7) {
  suppressMessages(linear_regressor(
    feature_columns(column_numeric(starts_with("x")), names = df),
    optimizer = optimizer_sgd(0.001), config = run_config(tf_random_seed = seed)))
}

test_that("the cached and uncached paths give bit-identical weights for the same seed", {
  df <- wide_frame(n = 700)  # several chunks of rows per batch
  run <- function(budget, shuffle) {
    old <- options(cppestimators.cache_bytes = budget)
    on.exit(options(old))
    est <- wide_estimator(df)
    input <- input_fn(df, response = "y", batch_size = 300L, num_epochs = NULL, shuffle = shuffle)
    quietly(train(est, input, steps = 12))
    list(weights = variable_value(est), cached = !is.null(input$cache$block),
         eval = quietly(evaluate(est, input_fn(df, response = "y", batch_size = 300L))),
         pred = predict(est, input_fn(df, features = starts_with("x"))))
  }
  for (shuffle in c(TRUE, FALSE)) {
    cached <- run(2^30, shuffle)
    direct <- run(0, shuffle)
    expect_true(cached$cached)
    expect_false(direct$cached)
    expect_identical(cached$weights, direct$weights)
    expect_identical(cached$eval, direct$eval)
    expect_identical(cached$pred, direct$pred)
  }
})

test_that("the block is reused, rebuilt when the data or the columns change, and freed with the input", {
  df <- wide_frame()
  est <- wide_estimator(df)
  input <- input_fn(df, response = "y", batch_size = 50L)
  invisible(gc())  # blocks of other tests' inputs that nothing refers to any more
  before <- cppestimators:::cpp_live_blocks()
  quietly(train(est, input))
  block <- input$cache$block
  expect_false(is.null(block))
  expect_equal(cppestimators:::cpp_live_blocks(), before + 1)
  quietly(evaluate(est, input))
  quietly(train(est, input))
  expect_identical(input$cache$block, block)  # the same block, not rebuilt
  # other columns: a new block replaces it
  est2 <- suppressMessages(linear_regressor(feature_columns(column_numeric("x1", "x2")),
                                            optimizer = optimizer_sgd(0.001)))
  quietly(train(est2, input))
  expect_false(identical(input$cache$block, block))
  # other data: a modified copy of the input gets a new block
  changed <- input
  changed$features$x1 <- changed$features$x1 + 1
  quietly(train(est2, changed))
  expect_false(identical(changed$cache$block, block))
  rm(input, changed, block)
  invisible(gc())
  expect_equal(cppestimators:::cpp_live_blocks(), before)
})

test_that("a budget of 0 turns the cache off; a bad budget is an error naming the option", {
  df <- wide_frame()
  est <- wide_estimator(df)
  input <- input_fn(df, response = "y", batch_size = 50L)
  withr_local <- options(cppestimators.cache_bytes = 0)
  on.exit(options(withr_local))
  quietly(train(est, input))
  expect_null(input$cache$block)
  expect_equal(variable_value(est, "global_step")[[1]], 6)
  options(cppestimators.cache_bytes = -1)
  expect_error(quietly(train(est, input)), "options\\(cppestimators.cache_bytes =\\) must be a number of bytes >= 0")
})

test_that("evaluate() over the whole input reads rows in order, with the same metrics", {
  df <- wide_frame(n = 333)
  est <- wide_estimator(df)
  quietly(train(est, input_fn(df, response = "y", batch_size = 50L), steps = 5))
  shuffled <- quietly(evaluate(est, input_fn(df, response = "y", batch_size = 50L, shuffle = TRUE)))
  ordered <- quietly(evaluate(est, input_fn(df, response = "y", batch_size = 50L, shuffle = FALSE)))
  expect_identical(shuffled, ordered)
})

test_that("large batches split over threads: one result per thread count, cached or not", {
  df <- wide_frame(n = 3000, p = 40)
  run <- function(threads, budget) {
    old <- options(cppestimators.threads = threads, cppestimators.cache_bytes = budget)
    on.exit(options(old))
    est <- wide_estimator(df)
    quietly(train(est, input_fn(df, response = "y", batch_size = 2048L, num_epochs = NULL), steps = 6))
    variable_value(est)
  }
  two <- run(2, 2^30)
  expect_identical(run(2, 2^30), two)
  expect_identical(run(2, 0), two)
  one <- run(1, 2^30)
  expect_identical(run(1, 0), one)
  # different thread counts add the same products in another order
  expect_equal(one, two, tolerance = 1e-5)
  old <- options(cppestimators.threads = 0)
  on.exit(options(old))
  expect_error(quietly(train(wide_estimator(df), input_fn(df, response = "y"), steps = 1)),
               "options\\(cppestimators.threads =\\) must be a whole number of threads >= 1")
})

test_that("a few steps over a large data frame build no float32 copy of it; a full pass does", {
  set.seed(5)
  n <- 3e5  # 8 columns of doubles: 19 MB, above the size whose cache is kept with the estimator
  df <- as.data.frame(matrix(rnorm(n * 7), n, 7, dimnames = list(NULL, paste0("x", 1:7))))
  df$y <- df$x1 - df$x2
  counter <- new.env()
  counter$n <- 0
  count <- function() counter$n <- counter$n + 1
  suppressMessages(trace("cpp_dense_block", tracer = bquote(.(count)()),
                         where = asNamespace("cppestimators"), print = FALSE))
  on.exit(suppressMessages(untrace("cpp_dense_block", where = asNamespace("cppestimators"))))
  est <- suppressMessages(linear_regressor(feature_columns(column_numeric(paste0("x", 1:7)))))
  quietly(train(est, df, response = "y", steps = 20, batch_size = 64))
  expect_identical(counter$n, 0)
  expect_equal(unname(unlist(variable_value(est, "global_step"))), 20)
  quietly(train(est, df, response = "y", num_epochs = 1, batch_size = 5000))
  expect_identical(counter$n, 1)
  quietly(train(est, df, response = "y", steps = 60, batch_size = 5000))  # 300,000 rows: every row
  expect_identical(counter$n, 2)
  expect_equal(unname(unlist(variable_value(est, "global_step"))), 140)
  # the same model either way: gathered batches read the same values as the block
  other <- suppressMessages(linear_regressor(feature_columns(column_numeric(paste0("x", 1:7)))))
  quietly(train(other, df[1:1984, ], response = "y", num_epochs = 1, batch_size = 64, shuffle = FALSE))
  small <- suppressMessages(linear_regressor(feature_columns(column_numeric(paste0("x", 1:7)))))
  quietly(train(small, df, response = "y", steps = 31, batch_size = 64, shuffle = FALSE))
  expect_equal(predict(small, df[1:50, ])$predictions, predict(other, df[1:50, ])$predictions, tolerance = 1e-6)
})
