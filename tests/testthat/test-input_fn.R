test_that("input_fn() selects features and response by name or string", {
  a <- input_fn(mtcars, response = "mpg", features = c("drat", "cyl"), batch_size = 8L)
  b <- input_fn(mtcars, response = mpg, features = c(drat, cyl), batch_size = 8L)
  expect_s3_class(a, "cppestimators_input_fn")
  expect_equal(names(a$features), c("drat", "cyl"))
  expect_equal(names(b$features), c("drat", "cyl"))
  expect_equal(a$labels, mtcars$mpg)
  all_but <- input_fn(mtcars, response = "mpg")
  expect_equal(names(all_but$features), setdiff(names(mtcars), "mpg"))
  expect_output(print(a), "32 rows; features drat, cyl; response mpg; batch_size 8")
})

test_that("the formula, matrix and list methods work", {
  f <- input_fn(mpg ~ drat + cyl, data = mtcars)
  expect_equal(names(f$features), c("drat", "cyl"))
  expect_equal(f$response, "mpg")
  f2 <- input_fn(mpg ~ drat + cyl + wt - wt, data = mtcars)
  expect_equal(names(f2$features), c("drat", "cyl"))
  expect_error(input_fn(mpg ~ log(drat), data = mtcars), "unhandled formula operator")
  m <- as.matrix(mtcars[, c("mpg", "drat")])
  expect_equal(names(input_fn(m, response = "mpg")$features), "drat")
  expect_error(input_fn(unname(m)), "cannot create input function from matrix without column names")
  l <- list(x = 1:4, y = c(1, 2, 3, 4))
  expect_equal(names(input_fn(l, features = "x", response = "y")$features), "x")
  expect_error(input_fn(list(x = 1:4, y = 1:3), features = "x", response = "y"),
               "column 'y' has 3 rows but 'x' has 4")
})

test_that("bad arguments are clear errors naming the argument", {
  expect_error(input_fn(mtcars, response = "nope"), "`response`: column 'nope' not found")
  expect_error(input_fn(mtcars, features = c("drat", "zz"), response = "mpg"),
               "`features`: column 'zz' not found")
  expect_error(input_fn(mtcars, response = "mpg", batch_size = 0), "`batch_size` must be >= 1")
  expect_error(input_fn(mtcars, response = "mpg", batch_size = 2.5), "`batch_size` must be a single whole number")
  expect_error(input_fn(mtcars, response = "mpg", shuffle = "yes"), "`shuffle` must be TRUE, FALSE or \"auto\"")
  expect_error(input_fn(mtcars, response = "mpg", num_epochs = -1), "`num_epochs` must be >= 1")
})

test_that("a factor response is encoded 0..K-1 with the reference's message", {
  expect_message(
    inp <- input_fn(iris, response = "Species"),
    paste0("The following factor levels of 'Species' have been encoded:\n",
           "- 'setosa' => 0\n- 'versicolor' => 1\n- 'virginica' => 2"),
    fixed = TRUE
  )
  expect_equal(as.numeric(inp$labels), as.integer(iris$Species) - 1)
})

test_that("batches cross epochs and the last one is partial", {
  steps_seen <- integer()
  sizes <- integer()
  hook <- session_run_hook(
    before_run = function(context) session_run_args(pe = "per_example_loss"),
    after_run = function(context, values) sizes <<- c(sizes, length(values$results$pe))
  )
  est <- drat_regressor()
  quietly(train(est, input_fn(mtcars, response = "mpg", features = "drat", batch_size = 10L,
                              num_epochs = 2), hooks = list(hook)))
  expect_equal(sizes, c(10, 10, 10, 10, 10, 10, 4))
})

test_that("one batch of 32 rows and one epoch makes one step", {
  est <- drat_regressor()
  h <- quietly(train(est, input_fn(mtcars, response = "mpg", features = "drat", batch_size = 32L)))
  expect_equal(wide(h)$steps, 1)
})

test_that("shuffle = 'auto' shuffles for training and not for prediction", {
  seen <- list()
  hook <- session_run_hook(
    before_run = function(context) session_run_args(y = "labels"),
    after_run = function(context, values) seen[[length(seen) + 1]] <<- values$results$y
  )
  est <- drat_regressor()
  set.seed(3)
  quietly(train(est, mtcars_input(batch_size = 32L), hooks = list(hook)))
  expect_false(isTRUE(all.equal(seen[[1]], mtcars$mpg)))
  expect_equal(sort(seen[[1]]), sort(mtcars$mpg), tolerance = 1e-6)
  p <- predict(est, mtcars_input(batch_size = 5L))
  # in input order: the predictions are an exact linear function of drat, row by row
  fit <- stats::lm(p$predictions ~ mtcars$drat)
  expect_lt(max(abs(stats::residuals(fit))), 1e-4)
  expect_equal(nrow(p), 32)
})

test_that("epochs is num_epochs, as tfestimators' articles write it; both is an error", {
  expect_identical(input_fn(mtcars, response = "mpg", epochs = 3)$num_epochs, 3)
  expect_null(input_fn(mtcars, response = "mpg", epochs = NULL)$num_epochs)
  expect_identical(input_fn(mpg ~ drat, data = mtcars, epochs = 2)$num_epochs, 2)
  expect_error(input_fn(mtcars, response = "mpg", epochs = 0), "`num_epochs` must be >= 1")
  expect_error(input_fn(mtcars, response = "mpg", epochs = 2, num_epochs = 3),
               "input_fn(): give `num_epochs` or `epochs` (the same setting, passes over the data), not both.",
               fixed = TRUE, class = "cppestimators_argument_conflict")
  # 3 passes over 32 rows in batches of 8: 12 steps
  est <- drat_regressor(model_dir = tempfile())
  quietly(train(est, input_fn(mtcars, response = "mpg", features = "drat", batch_size = 8L, epochs = 3)))
  expect_equal(variable_value(est, "global_step")$global_step, 12)
})
