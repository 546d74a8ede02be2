# Row 3's response, 3e38, is finite in float32 but its squared error is
# not: step 3's loss is infinite (non-finite features and responses are
# refused before training, so a diverging loss is how a run meets one).
nan_input <- function() {
  input_fn(data.frame(x = c(1, 2, 3, 4, 5), y = c(1, 2, 3e38, 4, 5)), response = "y", batch_size = 1L,
           num_epochs = 1, shuffle = FALSE)
}

test_that("train() fails fast on a NaN loss by default, naming the step", {
  est <- x_regressor()
  expect_error(quietly(train(est, nan_input())),
               "Infinite loss during training at global step 3 \\(last finite loss: [0-9.e+-]+\\)\\.")
  # the NaN step never reached the weights
  w <- predict(est, input_fn(data.frame(x = 1), features = "x"))$predictions
  expect_true(is.finite(w))
})

test_that("fail_on_nan_loss = FALSE stops softly, with end() and finite weights", {
  est <- x_regressor()
  ended <- FALSE
  msgs <- messages_of(h <- train(est, nan_input(), hooks = list(
    hook_nan_tensor(fail_on_nan_loss = FALSE),
    session_run_hook(end = function(session) ended <<- TRUE))))
  expect_true(ended)
  expect_true(any(grepl("Model diverged with loss = Inf at global step 3", msgs)))
  expect_equal(max(wide(h)$steps), 3)
  p <- predict(est, input_fn(data.frame(x = 1), features = "x"))$predictions
  expect_true(is.finite(p))
  ck <- latest_checkpoint(est)
  expect_match(basename(ck), "model.ckpt-3")
})

test_that("hook_nan_tensor() validates its arguments", {
  expect_error(hook_nan_tensor(loss_tensor = 1), "`loss_tensor` must be a tensor name")
  expect_error(hook_nan_tensor(fail_on_nan_loss = NA), "`fail_on_nan_loss` must be TRUE or FALSE")
  bad <- hook_nan_tensor("nope")
  expect_error(quietly(train(x_regressor(), x_input(), steps = 1, hooks = list(bad))),
               "hook_nan_tensor\\(\\): 'nope' is not a tensor")
})
