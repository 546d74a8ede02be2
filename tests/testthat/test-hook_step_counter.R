test_that("every_n_steps = 10 over 30 steps logs the rate at global steps 11 and 21", {
  steps_at_log <- c()
  spy <- session_run_hook(after_run = function(context, values) {
    steps_at_log <<- c(steps_at_log, context$session$run("global_step"))
  })
  msgs <- character()
  logged_steps <- c()
  withCallingHandlers(
    utils::capture.output(train(x_regressor(), x_input(), steps = 30,
                                hooks = list(hook_step_counter(every_n_steps = 10), spy))),
    message = function(m) {
      if (grepl("^global_step/sec", conditionMessage(m))) {
        msgs <<- c(msgs, sub("\n$", "", conditionMessage(m)))
        logged_steps <<- c(logged_steps, length(steps_at_log) + 1)
      }
      invokeRestart("muffleMessage")
    })
  expect_length(msgs, 2)
  expect_match(msgs, "^global_step/sec: [0-9.e+-]+$")
  expect_equal(logged_steps, c(11, 21))
})

test_that("passing only every_n_secs works; invalid combinations are errors", {
  h <- hook_step_counter(every_n_secs = 5)
  expect_null(h$every_n_steps)
  expect_equal(h$every_n_secs, 5)
  msgs <- messages_of(train(x_regressor(), x_input(), steps = 3, hooks = list(h)))
  expect_length(grep("global_step/sec", msgs), 0)
  expect_error(hook_step_counter(every_n_steps = 10, every_n_secs = 5),
               "exactly one of every_n_steps and every_n_secs should be provided.", fixed = TRUE)
  expect_error(hook_step_counter(every_n_steps = NULL),
               "exactly one of every_n_steps and every_n_secs should be provided.", fixed = TRUE)
  expect_error(hook_step_counter(every_n_steps = 0), "`every_n_steps` must be >= 1")
  expect_error(hook_step_counter(every_n_secs = "a"), "`every_n_secs` must be a positive number")
})
