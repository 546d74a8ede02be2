# The model record kept in model_dir (cppestimators_model.txt): what it
# names, how a different model is refused, and how the message reads.

dnn_on <- function(dir, optimizer) {
  set.seed(1)
  suppressMessages(dnn_regressor(hidden_units = 3, feature_columns = feature_columns(column_numeric("drat")),
                                 optimizer = optimizer, model_dir = dir))
}

test_that("the record names the optimizer's kind: another kind is a different model", {
  dir <- tempfile()
  on.exit(unlink(dir, recursive = TRUE))
  input <- mtcars_input()
  quietly(train(dnn_on(dir, "Adagrad"), input_fn = input, steps = 2))
  record <- readLines(file.path(dir, "cppestimators_model.txt"))
  expect_true("optimizer: Adagrad" %in% record)
  err <- expect_error(quietly(train(dnn_on(dir, "Adam"), input_fn = input, steps = 2)),
                      class = "cppestimators_model_mismatch")
  msg <- conditionMessage(err)
  expect_match(msg, "holds a different model than this dnn_regressor()", fixed = TRUE)
  expect_match(msg, "in model_dir: +optimizer: Adagrad")
  expect_match(msg, "in this one: +optimizer: Adam")
  expect_no_match(msg, "beta1_power")
  # the learning rate is not part of the model: it may change between calls
  quietly(train(dnn_on(dir, optimizer_adagrad(0.5)), input_fn = input, steps = 2))
  # the same for a linear model, which used to train on with fresh slots
  ldir <- tempfile()
  on.exit(unlink(ldir, recursive = TRUE), add = TRUE)
  quietly(train(drat_regressor(model_dir = ldir), input_fn = input, steps = 1))
  expect_error(quietly(train(drat_regressor(model_dir = ldir, optimizer = "Adagrad"), input_fn = input, steps = 1)),
               "optimizer: Ftrl", class = "cppestimators_model_mismatch")
  quietly(train(drat_regressor(model_dir = ldir, optimizer = optimizer_ftrl(0.01)), input_fn = input, steps = 1))
})

test_that("a record written before the optimizer was recorded is read without it", {
  dir <- tempfile()
  on.exit(unlink(dir, recursive = TRUE))
  input <- mtcars_input()
  quietly(train(dnn_on(dir, "Adagrad"), input_fn = input, steps = 2))
  path <- file.path(dir, "cppestimators_model.txt")
  old <- grep("^optimizer:", readLines(path), value = TRUE, invert = TRUE)
  writeLines(old, path)
  est <- dnn_on(dir, "Adagrad")
  quietly(train(est, input_fn = input, steps = 2))
  expect_equal(unname(unlist(variable_value(est, "global_step"))), 4)
  # the old record is kept as it was
  expect_identical(readLines(path), old)
})

test_that("a different model's message fits on a screen and says how to go on", {
  set.seed(2)
  df <- as.data.frame(matrix(rnorm(40 * 30), 40, 30))
  df$y <- rnorm(40)
  dir <- tempfile()
  on.exit(unlink(dir, recursive = TRUE))
  est <- suppressMessages(linear_regressor(feature_columns = feature_columns_from_data(df[1:20, ], response = "y"),
                                           model_dir = dir))
  quietly(train(est, df[1:20, ], steps = 1))
  # refitted on other rows: new standardization statistics in every column
  again <- suppressMessages(linear_regressor(feature_columns = feature_columns_from_data(df[21:40, ], response = "y"),
                                             model_dir = dir))
  err <- expect_error(quietly(train(again, df[21:40, ], steps = 1)), class = "cppestimators_model_mismatch")
  lines <- strsplit(conditionMessage(err), "\n", fixed = TRUE)[[1]]
  expect_lte(length(lines), 11L)
  # (the lines that name model_dir are as long as its path)
  expect_lte(max(nchar(lines[!grepl(dir, lines, fixed = TRUE)])), 130L)
  expect_match(lines[2], "in model_dir: +column: _NumericColumn\\(key='V1'")
  expect_match(lines[3], "in this one: +column: _NumericColumn\\(key='V1'")
  expect_true(any(grepl("and 27 more fields that differ", lines, fixed = TRUE)))
  expect_true(any(grepl(sprintf("unlink(\"%s\", recursive = TRUE)", dir), lines, fixed = TRUE)))
  expect_true(any(grepl("keep and reuse the first ones", lines, fixed = TRUE)))
  # a column only one of them has
  third <- suppressMessages(linear_regressor(feature_columns = feature_columns_from_data(df[1:20, ], response = "y",
                                                                                        features = V1:V29),
                                             model_dir = dir))
  err <- expect_error(quietly(train(third, df[1:20, ], steps = 1)), class = "cppestimators_model_mismatch")
  expect_match(conditionMessage(err), "in this one: +\\(no _NumericColumn\\(key='V30'\\)")
})
