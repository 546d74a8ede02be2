# Arguments that `...` would otherwise swallow: unknown names are errors
# naming the nearest valid argument.

test_that("input_fn() refuses a misspelt argument instead of ignoring it", {
  df <- data.frame(a = 1:4, b = 4:1, y = c(0, 1, 0, 1))
  expect_error(input_fn(df, features = c(a, b), response = y, batchsize = 64),
               class = "cppestimators_error",
               regexp = "input_fn(): unknown argument `batchsize`. Did you mean `batch_size`?", fixed = TRUE)
  expect_error(input_fn(y ~ a + b, data = df, epoch = 2), class = "cppestimators_error",
               regexp = "input_fn(): unknown argument `epoch`. Did you mean `num_epochs`?", fixed = TRUE)
  # `epochs`, as tfestimators' articles write it, is num_epochs
  expect_equal(input_fn(y ~ a + b, data = df, epochs = 2)$num_epochs, 2)
  expect_error(input_fn(as.matrix(df), response = "y", shufle = FALSE), class = "cppestimators_error",
               regexp = "input_fn(): unknown argument `shufle`. Did you mean `shuffle`?", fixed = TRUE)
  expect_error(input_fn(as.list(df), response = "y", colour = "red"), class = "cppestimators_error",
               regexp = "^input_fn\\(\\): unknown argument `colour`\\.$")
  expect_error(input_fn(df, c(a, b), "y", 2, FALSE, 1, 1000, 1, 99), class = "cppestimators_error",
               regexp = "input_fn() got 1 unnamed argument it does not use", fixed = TRUE)
  # the valid spelling gives the batch size asked for
  expect_equal(input_fn(df, features = c(a, b), response = y, batch_size = 64)$batch_size, 64)
})

test_that("train(), evaluate() and predict() refuse unknown arguments", {
  est <- drat_regressor()
  input <- mtcars_input()
  expect_error(train(est, input, stesp = 2), class = "cppestimators_error",
               regexp = "train(): unknown argument `stesp`. Did you mean `steps`?", fixed = TRUE)
  expect_error(train(est, input, steps = 1, foo = 1), class = "cppestimators_error",
               regexp = "^train\\(\\): unknown argument `foo`\\.$")
  # data frame arguments belong to input_fn() when the input is an input function
  expect_error(train(est, input, steps = 1, batch_size = 64), class = "cppestimators_error",
               regexp = paste0("train(): `batch_size` is for a data frame given as `input_fn`; ",
                               "with an input function, give it to input_fn()."), fixed = TRUE)
  quietly(train(est, input, steps = 1))
  expect_error(evaluate(est, input, chekpoint_path = NULL), class = "cppestimators_error",
               regexp = "evaluate(): unknown argument `chekpoint_path`. Did you mean `checkpoint_path`?",
               fixed = TRUE)
  expect_error(predict(est, input, predictkeys = "predictions"), class = "cppestimators_error",
               regexp = "predict(): unknown argument `predictkeys`. Did you mean `predict_keys`?", fixed = TRUE)
  # with a data frame, data_input() names the nearest of its own arguments
  expect_error(predict(est, mtcars, batchsize = 8), class = "cppestimators_error",
               regexp = paste0("predict() with a data frame takes `response`, `batch_size`, `shuffle` and ",
                               "`num_epochs`; `batchsize` is not one of them. Did you mean `batch_size`?"),
               fixed = TRUE)
  expect_equal(nrow(predict(est, mtcars, batch_size = 8)), nrow(mtcars))
})

test_that("the other estimator methods refuse what they would drop", {
  est <- drat_regressor()
  quietly(train(est, mtcars_input(), steps = 1))
  expect_error(coef(est, complete = TRUE), class = "cppestimators_error",
               regexp = "^coef\\(\\): unknown argument `complete`\\.$")
  expect_error(variable_value(est, nmes = "global_step"), class = "cppestimators_error",
               regexp = "variable_value(): unknown argument `nmes`. Did you mean `names`?", fixed = TRUE)
  expect_error(variable_names(est, "x"), class = "cppestimators_error",
               regexp = "variable_names() got 1 unnamed argument", fixed = TRUE)
  expect_error(model_dir(est, dir = 1), class = "cppestimators_error",
               regexp = "^model_dir\\(\\): unknown argument `dir`\\.$")
  expect_error(train_and_evaluate(est, train_spec(mtcars_input(), max_steps = 2), eval_spec(mtcars_input()),
                                  throttle = 1),
               class = "cppestimators_error", regexp = "^train_and_evaluate\\(\\): unknown argument `throttle`")
})

test_that("export_savedmodel() warns of tfestimators' arguments and refuses others", {
  est <- drat_regressor()
  quietly(train(est, mtcars_input(), steps = 1))
  base <- tempfile()
  expect_warning(dir <- export_savedmodel(est, base, as_text = TRUE), class = "cppestimators_warning",
                 regexp = "export_savedmodel(): `as_text` is accepted for compatibility with tfestimators and ignored.",
                 fixed = TRUE)
  expect_true(file.exists(file.path(dir, "estimator.rds")))
  expect_error(export_savedmodel(est, base, overwrit = TRUE), class = "cppestimators_error",
               regexp = "export_savedmodel(): unknown argument `overwrit`. Did you mean `overwrite`?", fixed = TRUE)
})
