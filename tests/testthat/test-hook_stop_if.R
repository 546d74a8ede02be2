# Early-stopping hooks need evaluations to act on; their own bad arguments
# are reported as theirs.

test_that("an early-stopping hook without evaluations is an error when train() starts", {
  est <- x_regressor()
  for (make in list(function() hook_stop_if_no_decrease(est, "loss", 10, run_every_steps = 5),
                    function() hook_stop_if_no_increase(est, "accuracy", 10),
                    function() hook_stop_if_lower(est, "loss", 1),
                    function() hook_stop_if_higher(est, "loss", 1))) {
    stopper <- make()
    expect_error(quietly(train(est, x_input(), steps = 5, hooks = list(hook_history_saver(1), stopper))),
                 class = "cppestimators_error",
                 regexp = sprintf("hook 2 (hook_stop_if_%s()) has no evaluations to act on", stopper$rule),
                 fixed = TRUE)
  }
  expect_snapshot(error = TRUE, train(est, x_input(), steps = 5,
                                      hooks = list(hook_stop_if_no_decrease(est, "loss", 10))),
                  transform = function(x) gsub("\\([^()]*/eval\\)", "(<model_dir>/eval)", x))
  # refused before any step: nothing was saved
  expect_length(list.files(model_dir(est), pattern = "ckpt"), 0)
})

test_that("an evaluator, event files or train_and_evaluate() give the hook its evaluations", {
  est <- x_regressor()
  h <- quietly(train(est, x_input(), steps = 10, hooks = list(
    hook_in_memory_evaluator(est, x_input(num_epochs = 1), every_n_iter = 5),
    hook_stop_if_higher(est, "loss", threshold = 1e12))))
  expect_equal(max(wide(h)$steps), 10)
  # event files written by evaluate() into eval_dir
  quietly(evaluate(est, x_input(num_epochs = 1)))
  h <- quietly(train(est, x_input(), steps = 3, hooks = list(hook_stop_if_higher(est, "loss", 1e12))))
  expect_equal(max(wide(h)$steps), 13)
  # train_and_evaluate() evaluates into the model's eval_dir as it trains
  fresh <- x_regressor(config = run_config(save_checkpoints_steps = 5))
  h <- quietly(train_and_evaluate(
    fresh,
    train_spec(x_input(), max_steps = 20, hooks = list(hook_stop_if_higher(fresh, "loss", threshold = -1,
                                                                        run_every_steps = 1))),
    eval_spec(x_input(num_epochs = 1), steps = NULL, throttle_secs = 0)))
  # the first evaluation (after the save at step 5) is above -1: training stops soon after
  expect_lt(max(h$evaluations$steps), 20)
  # ... but not into another evaluation's directory
  other <- x_regressor(config = run_config(save_checkpoints_steps = 5))
  expect_error(quietly(train_and_evaluate(
    other,
    train_spec(x_input(), max_steps = 20, hooks = list(hook_stop_if_higher(other, "loss", threshold = -1))),
    eval_spec(x_input(num_epochs = 1), steps = NULL, throttle_secs = 0, name = "holdout"))),
    class = "cppestimators_error", regexp = "has no evaluations to act on")
})

test_that("a metric the evaluator does not report is the early-stopping hook's error", {
  est <- x_regressor()
  hooks <- list(hook_in_memory_evaluator(est, x_input(num_epochs = 1), every_n_iter = 5),
                hook_stop_if_no_decrease(est, "losss", 10))
  err <- expect_error(quietly(train(est, x_input(), steps = 5, hooks = hooks)), class = "cppestimators_error",
                      regexp = paste0("of hook 2 (hook_early_stopping) failed: `metric_name`: metric 'losss' ",
                                      "is not among the evaluation's metrics (average_loss, label/mean, loss, ",
                                      "prediction/mean)"), fixed = TRUE)
  expect_s3_class(err, "cppestimators_hook_error")
  expect_equal(err$hook, 2L)
  expect_snapshot(error = TRUE, quietly(train(est, x_input(), steps = 5, hooks = hooks)))
  # the other order: still the stopper, now hook 1
  expect_error(quietly(train(est, x_input(), steps = 5, hooks = rev(hooks))), class = "cppestimators_hook_error",
               regexp = "of hook 1 (hook_early_stopping) failed: `metric_name`", fixed = TRUE)
})
