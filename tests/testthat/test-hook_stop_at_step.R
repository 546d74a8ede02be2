test_that("num_steps counts from the starting global step, last_step is absolute", {
  est <- x_regressor()
  h <- quietly(train(est, x_input(), hooks = list(hook_stop_at_step(num_steps = 3))))
  expect_equal(max(wide(h)$steps), 3)
  h <- quietly(train(est, x_input(), hooks = list(hook_stop_at_step(num_steps = 3))))
  expect_equal(max(wide(h)$steps), 6)
  h <- quietly(train(est, x_input(), hooks = list(hook_stop_at_step(last_step = 10))))
  expect_equal(max(wide(h)$steps), 10)
  # train(steps =) and train(max_steps =) use the same hook
  h <- quietly(train(est, x_input(), steps = 2))
  expect_equal(wide(h)$steps, 12)
  h <- quietly(train(est, x_input(), max_steps = 15))
  expect_equal(wide(h)$steps, 15)
})

test_that("hook_stop_at_step() validates its arguments", {
  expect_error(hook_stop_at_step(), "One of num_steps or last_step must be specified.", fixed = TRUE)
  expect_error(hook_stop_at_step(1, 2), "Only one of num_steps or last_step can be specified.", fixed = TRUE)
  expect_error(hook_stop_at_step(num_steps = 2.5), "`num_steps` must be a single whole number")
  expect_error(hook_stop_at_step(num_steps = 0), "`num_steps` must be >= 1")
  expect_output(print(hook_stop_at_step(last_step = 4)), "<hook_stop_at_step: last_step = 4>")
})

test_that("argument errors (snapshot)", {
  expect_snapshot(error = TRUE, hook_stop_at_step())
  expect_snapshot(error = TRUE, hook_stop_at_step(num_steps = 1, last_step = 2))
  expect_snapshot(error = TRUE, hook_stop_at_step(num_steps = "a"))
})
