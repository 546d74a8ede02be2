test_that("every_n_iter = 2 over 5 steps logs iterations 1, 3 and 5", {
  est <- x_regressor()
  msgs <- messages_of(train(est, x_input(), steps = 5, hooks = list(
    hook_logging_tensor(list(loss = "loss", step = "global_step"), every_n_iter = 2))))
  logged <- grep("^loss = ", msgs, value = TRUE)
  expect_length(logged, 3)
  expect_equal(as.numeric(sub(".*step = ([0-9]+).*", "\\1", logged)), c(1, 3, 5))
  expect_match(logged[1], "^loss = [0-9.e+-]+, step = 1$")
  expect_match(logged[2], "^loss = [0-9.e+-]+, step = 3 \\([0-9]+\\.[0-9]{3} sec\\)$")
})

test_that("tags: names sort alphabetically, an unnamed list keeps its order and names", {
  msgs <- messages_of(train(x_regressor(), x_input(), steps = 1, hooks = list(
    hook_logging_tensor(list(zeta = "global_step", alpha = "learning_rate"), every_n_iter = 1))))
  expect_equal(msgs[1], "alpha = 0.2, zeta = 1")
  msgs <- messages_of(train(x_regressor(), x_input(), steps = 1, hooks = list(
    hook_logging_tensor(list("global_step"), every_n_iter = 1))))
  expect_equal(msgs[1], "global_step = 1")
  msgs <- messages_of(train(x_regressor(), x_input(), steps = 1, hooks = list(
    hook_logging_tensor(c("global_step", "learning_rate"), every_n_iter = 1))))
  expect_equal(msgs[1], "global_step = 1, learning_rate = 0.2")
})

test_that("a formatter gets the named values (and the elapsed seconds)", {
  seen <- NULL
  fmt <- function(values) {
    seen <<- values
    sprintf("custom: step %d", as.integer(values$step))
  }
  msgs <- messages_of(train(x_regressor(), x_input(), steps = 2, hooks = list(
    hook_logging_tensor(list(step = "global_step", loss = "loss"), every_n_iter = 1,
                        formatter = fmt))))
  expect_equal(grep("^custom", msgs, value = TRUE), c("custom: step 1", "custom: step 2"))
  expect_named(seen, c("loss", "step"))
  elapsed <- c()
  fmt2 <- function(values, elapsed_secs) {
    elapsed <<- c(elapsed, elapsed_secs)
    "x"
  }
  messages_of(train(x_regressor(), x_input(), steps = 2, hooks = list(
    hook_logging_tensor(list("loss"), every_n_iter = 1, formatter = fmt2))))
  expect_true(is.na(elapsed[1]))
  expect_true(elapsed[2] >= 0)
  bad <- hook_logging_tensor(list("loss"), every_n_iter = 1, formatter = function(v) 1)
  expect_error(quietly(train(x_regressor(), x_input(), steps = 1, hooks = list(bad))),
               "`formatter` must return one string")
})

test_that("at_end logs once more at the end; every_n_secs logs the first run", {
  msgs <- messages_of(train(x_regressor(), x_input(), steps = 3, hooks = list(
    hook_logging_tensor(list(step = "global_step"), at_end = TRUE))))
  expect_equal(msgs, "step = 3")
  msgs <- messages_of(train(x_regressor(), x_input(), steps = 3, hooks = list(
    hook_logging_tensor(list(step = "global_step"), every_n_secs = 3600))))
  expect_equal(msgs, "step = 1")
})

test_that("hook_logging_tensor() validates its arguments", {
  expect_error(hook_logging_tensor(list("loss")),
               "either at_end and/or exactly one of every_n_iter and every_n_secs must be provided.", fixed = TRUE)
  expect_error(hook_logging_tensor(list("loss"), every_n_iter = 1, every_n_secs = 1),
               "exactly one of every_n_iter and every_n_secs")
  expect_error(hook_logging_tensor(list("loss"), every_n_iter = 0), "invalid every_n_iter=0")
  expect_error(hook_logging_tensor(list("loss"), every_n_secs = -1), "`every_n_secs` must be a positive number")
  expect_error(hook_logging_tensor(42, every_n_iter = 1), "`tensors` must be a non-empty list")
  expect_error(hook_logging_tensor(list(1), every_n_iter = 1), "`tensors` must hold tensor names")
  expect_error(hook_logging_tensor(list("loss"), every_n_iter = 1, formatter = "f"), "`formatter` must be a function")
  bad <- hook_logging_tensor(list("nope"), every_n_iter = 1)
  expect_error(quietly(train(x_regressor(), x_input(), steps = 1, hooks = list(bad))),
               "hook_logging_tensor\\(\\): 'nope' is not a tensor of this session")
})

test_that("the logged lines (snapshot)", {
  mask <- function(x) gsub("\\([0-9]+\\.[0-9]{3} sec\\)", "(<elapsed> sec)", x)
  expect_snapshot(
    train(x_regressor(), x_input(), steps = 5, hooks = list(
      hook_logging_tensor(list(loss = "loss", step = "global_step"), every_n_iter = 2,
                          at_end = TRUE))),
    transform = mask)
})
