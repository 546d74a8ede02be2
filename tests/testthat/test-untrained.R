# predict(), evaluate() and coef() of an estimator that never trained are
# errors (TensorFlow's for predict and evaluate), not the initial weights'
# outputs.

untrained_message <- "^Could not find trained model in model_dir: .+\\. Train the estimator with train\\(\\) first \\(or give `checkpoint_path`\\)\\.$"

test_that("predict(), evaluate() and coef() of an untrained estimator are errors", {
  dir <- tempfile()
  est <- drat_regressor(model_dir = dir)
  input <- mtcars_input()
  expect_error(predict(est, input), class = "cppestimators_error", regexp = untrained_message)
  expect_error(predict(est, input), regexp = dir, fixed = TRUE)
  expect_error(evaluate(est, input), class = "cppestimators_error", regexp = untrained_message)
  expect_error(predict(est, mtcars, type = "numeric"), class = "cppestimators_error", regexp = untrained_message)
  expect_error(evaluate(est, mtcars, response = mpg), class = "cppestimators_error", regexp = untrained_message)
  expect_error(coef(est), class = "cppestimators_error",
               regexp = "'coef()' must be called on a trained model", fixed = TRUE)
  expect_error(variable_value(est), class = "cppestimators_error",
               regexp = "'variable_value()' must be called on a trained model", fixed = TRUE)
  cls <- suppressMessages(linear_classifier(feature_columns(column_numeric("drat"))))
  expect_error(predict(cls, input_fn(mtcars, features = "drat", response = "am")),
               class = "cppestimators_untrained")
})

test_that("trained, read back, loaded or sharing a trained model_dir is trained", {
  dir <- tempfile()
  est <- drat_regressor(model_dir = dir)
  input <- mtcars_input()
  quietly(train(est, input, steps = 2))
  pred <- predict(est, input)
  expect_equal(nrow(pred), nrow(mtcars))
  expect_equal(quietly(evaluate(est, input))$global_step, 2)
  expect_named(coef(est), c("(Intercept)", "drat"))
  # another object on the same model_dir restores its checkpoints
  other <- drat_regressor(model_dir = dir)
  expect_equal(predict(other, input), pred)
  # saveRDS()/readRDS(), without the model_dir
  rds <- tempfile(fileext = ".rds")
  saveRDS(est, rds)
  unlink(dir, recursive = TRUE)
  back <- readRDS(rds)
  expect_equal(predict(back, input), pred)
  expect_equal(coef(back), coef(est))
  # load_estimator() of an export, into a new model_dir
  loaded <- load_estimator(export_savedmodel(est, tempfile()))
  expect_equal(predict(loaded, input), pred)
  expect_equal(quietly(evaluate(loaded, input))$global_step, 2)
})

test_that("an untrained estimator can use another model's checkpoint_path", {
  est <- drat_regressor(model_dir = tempfile())
  quietly(train(est, mtcars_input(), steps = 2))
  fresh <- drat_regressor(model_dir = tempfile())
  ckpt <- latest_checkpoint(est)
  expect_equal(predict(fresh, mtcars_input(), checkpoint_path = ckpt), predict(est, mtcars_input()))
  expect_equal(quietly(evaluate(fresh, mtcars_input(), checkpoint_path = ckpt))$global_step, 2)
  # and stays untrained itself
  expect_error(predict(fresh, mtcars_input()), class = "cppestimators_untrained")
})
