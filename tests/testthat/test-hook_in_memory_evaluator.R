eval_data <- function() x_input(num_epochs = 1)

test_that("every_n_iter = 10 over 35 steps evaluates at 0, 10, 20, 30 and 35", {
  est <- x_regressor()
  ev <- hook_in_memory_evaluator(est, eval_data(), every_n_iter = 10)
  msgs <- messages_of(h <- train(est, x_input(), steps = 35, hooks = list(ev)))
  saved <- grep("^Saving dict for global step", msgs, value = TRUE)
  expect_equal(as.numeric(sub("^Saving dict for global step ([0-9]+):.*", "\\1", saved)),
               c(0, 10, 20, 30, 35))
  df <- wide(h)
  expect_true(all(c(0, 10, 20, 30, 35) %in% df$steps))
  expect_true(all(c("eval_loss", "eval_average_loss", "eval_label/mean", "eval_prediction/mean") %in% names(df)))
  evals <- df[!is.na(df$eval_loss), ]
  expect_equal(evals$steps, c(0, 10, 20, 30, 35))
  expect_true(is.na(df$mean_losses[df$steps == 0]))
  expect_equal(h$evaluation_metrics$step, 35)
  # the summaries landed in model_dir/eval at the same steps
  s <- read_summaries(file.path(model_dir(est), "eval"))
  expect_equal(unique(s$step), c(0, 10, 20, 30, 35))
})

test_that("an evaluation equals a separate evaluate() at that point and resets its metrics", {
  est <- x_regressor()
  ev <- hook_in_memory_evaluator(est, eval_data(), every_n_iter = 10)
  h <- quietly(train(est, x_input(), steps = 10, hooks = list(ev)))
  df <- wide(h)
  second <- df[df$steps == 10, ]
  direct <- quietly(evaluate(est, eval_data()))
  expect_equal(second$eval_average_loss, direct$average_loss, tolerance = 1e-6)
  expect_equal(second$eval_loss, direct$loss, tolerance = 1e-6)
  expect_equal(second[["eval_prediction/mean"]], direct[["prediction/mean"]], tolerance = 1e-6)
  first <- df[df$steps == 0, ]
  expect_false(isTRUE(all.equal(first$eval_average_loss, second$eval_average_loss)))
})

test_that("evaluations do not leave sessions behind (memory stays flat)", {
  est <- x_regressor()
  ev <- hook_in_memory_evaluator(est, eval_data(), every_n_iter = 1)
  gc()
  before <- cppestimators:::cpp_live_sessions()
  quietly(train(est, x_input(), steps = 20, hooks = list(ev)))
  after20 <- cppestimators:::cpp_live_sessions()
  quietly(train(est, x_input(), steps = 100, hooks = list(ev)))
  after100 <- cppestimators:::cpp_live_sessions()
  expect_equal(after20, before)
  expect_equal(after100, before)
})

test_that("evaluation hooks run inside each evaluation; name selects eval_<name>", {
  n <- 0
  counter <- session_run_hook(after_run = function(context, values) n <<- n + 1)
  est <- x_regressor()
  ev <- hook_in_memory_evaluator(est, x_input(num_epochs = 1, batch_size = 4L), hooks = list(counter),
                                 name = "holdout", every_n_iter = 5)
  quietly(train(est, x_input(), steps = 5, hooks = list(ev)))
  expect_equal(n, 2 * 2)  # evaluations at 0 and 5, 2 batches each
  expect_true(dir.exists(file.path(model_dir(est), "eval_holdout")))
  ev_steps <- hook_in_memory_evaluator(est, x_input(num_epochs = NULL), steps = 3, every_n_iter = 5)
  h <- quietly(train(est, x_input(), steps = 5, hooks = list(ev_steps)))
  expect_equal(sum(!is.na(wide(h)$eval_loss)), 2)
})

test_that("two evaluators in one train() call each evaluate their own input, with their own hooks and name", {
  est <- linear_regressor(feature_columns(column_numeric("drat")), model_dir = tempfile())
  a <- input_fn(mtcars[1:16, ], response = "mpg", features = "drat", batch_size = 8L, num_epochs = 1)
  b <- input_fn(mtcars[17:32, ], response = "mpg", features = "drat", batch_size = 4L, num_epochs = 1)
  runs_a <- 0
  runs_b <- 0
  in_a <- session_run_hook(after_run = function(context, values) runs_a <<- runs_a + 1)
  in_b <- session_run_hook(after_run = function(context, values) runs_b <<- runs_b + 1)
  h <- quietly(train(est, input_fn(mtcars, response = "mpg", features = "drat", batch_size = 8L), steps = 4,
                     hooks = list(hook_in_memory_evaluator(est, a, hooks = list(in_a), every_n_iter = 4),
                                  hook_in_memory_evaluator(est, b, hooks = list(in_b), name = "b", every_n_iter = 4))))
  df <- wide(h)
  last <- df[df$steps == 4, ]
  expect_equal(last$eval_loss, quietly(evaluate(est, a))$loss, tolerance = 1e-6)
  expect_equal(last$eval_b_loss, quietly(evaluate(est, b))$loss, tolerance = 1e-6)
  expect_false(isTRUE(all.equal(last$eval_loss, last$eval_b_loss)))
  expect_equal(c(runs_a, runs_b), c(2 * 2, 2 * 4))  # evaluations at 0 and 4: 2 batches of a, 4 of b
  expect_true(dir.exists(file.path(model_dir(est), "eval")))
  expect_true(dir.exists(file.path(model_dir(est), "eval_b")))
})

test_that("hook_in_memory_evaluator() validates its arguments", {
  est <- x_regressor()
  expect_error(hook_in_memory_evaluator(est, eval_data(), every_n_iter = 0), "invalid every_n_iter=0")
  expect_error(hook_in_memory_evaluator(est, eval_data(), every_n_iter = NULL), "invalid every_n_iter=NULL")
  expect_error(hook_in_memory_evaluator(est, eval_data(), every_n_iter = 2.5), "invalid every_n_iter=2.5")
  expect_error(hook_in_memory_evaluator("est", eval_data()), "`object` must be an estimator")
  other <- suppressMessages(linear_regressor(feature_columns(column_numeric("z"))))
  bad <- hook_in_memory_evaluator(other, eval_data(), every_n_iter = 1)
  expect_error(train(est, x_input(), steps = 1, hooks = list(bad)), "must be the estimator being trained")
})

# Training data follow y = 2x + 1, evaluation data y = x: the evaluation loss
# first falls (weights grow from 0) and then rises as the fit approaches y = 2x + 1.
diverging_eval <- function() {
  input_fn(data.frame(x = seq(0, 1, length.out = 8), y = seq(0, 1, length.out = 8)),
           response = "y", batch_size = 8L, shuffle = FALSE)
}

test_that("early stopping on no decrease stops at the documented step", {
  est <- x_regressor(optimizer = "SGD")
  hooks <- list(
    hook_in_memory_evaluator(est, diverging_eval(), every_n_iter = 2),
    hook_stop_if_no_decrease(est, "loss", max_steps_without_decrease = 6))
  train_in <- input_fn(data.frame(x = seq(0, 1, length.out = 16), y = 0) |>
                         transform(y = 2 * x + 1), response = "y", batch_size = 1L,
                       num_epochs = NULL, shuffle = FALSE)
  msgs <- messages_of(h <- train(est, train_in, steps = 200, hooks = hooks))
  df <- wide(h)
  ev <- df[!is.na(df$eval_loss), c("steps", "eval_loss")]
  # the documented rule applied to the evaluations that ran
  best <- Inf
  best_step <- 0
  expected <- NA
  for (i in seq_len(nrow(ev))) {
    if (ev$eval_loss[i] < best) {
      best <- ev$eval_loss[i]
      best_step <- ev$steps[i]
    }
    if (ev$steps[i] - best_step >= 6) {
      expected <- ev$steps[i]
      break
    }
  }
  expect_false(is.na(expected))
  expect_lt(expected, 200)
  expect_equal(max(df$steps), expected)
  expect_true(any(grepl(sprintf("Requesting early stopping at global step %d", expected), msgs)))
  expect_true(any(grepl('No decrease in metric "loss" for 6 steps', msgs)))
})

test_that("restore_best = TRUE leaves (and checkpoints) the best evaluation's weights", {
  est <- x_regressor(optimizer = "SGD")
  hooks <- list(
    hook_in_memory_evaluator(est, diverging_eval(), every_n_iter = 2),
    hook_stop_if_no_decrease(est, "loss", max_steps_without_decrease = 1000, restore_best = TRUE))
  train_in <- input_fn(transform(data.frame(x = seq(0, 1, length.out = 16)), y = 2 * x + 1),
                       response = "y", batch_size = 1L, num_epochs = NULL, shuffle = FALSE)
  msgs <- messages_of(h <- train(est, train_in, steps = 60, hooks = hooks))
  df <- wide(h)
  ev <- df[!is.na(df$eval_loss), ]
  best <- min(ev$eval_loss)
  expect_lt(best, ev$eval_loss[nrow(ev)])  # the loss did rise again: the last weights are not the best
  after <- quietly(evaluate(est, diverging_eval()))
  expect_equal(after$loss, best, tolerance = 1e-5)
  expect_equal(after$global_step, 60)
  expect_true(any(grepl("Restored the weights of the best evaluation", msgs)))
  # a fresh object on the model_dir sees the restored weights
  again <- x_regressor(optimizer = "SGD", model_dir = model_dir(est))
  expect_equal(quietly(evaluate(again, diverging_eval()))$loss, best, tolerance = 1e-5)
})

test_that("threshold hooks stop at the first evaluation past the threshold", {
  est <- x_regressor()
  hooks <- list(
    hook_in_memory_evaluator(est, eval_data(), every_n_iter = 5),
    hook_stop_if_lower(est, "average_loss", threshold = 1))
  msgs <- messages_of(h <- train(est, x_input(), steps = 500, hooks = hooks))
  df <- wide(h)
  ev <- df[!is.na(df$eval_average_loss), ]
  first_below <- ev$steps[which(ev$eval_average_loss < 1)[1]]
  expect_equal(max(df$steps), first_below)
  stopped <- sprintf(paste('At step %d, metric "average_loss" has value .*',
                           "which is less than the configured threshold \\(1\\)"), first_below)
  expect_true(any(grepl(stopped, msgs)))
  est2 <- x_regressor()
  msgs2 <- messages_of(h2 <- train(est2, x_input(), steps = 30, hooks = list(
    hook_in_memory_evaluator(est2, eval_data(), every_n_iter = 5),
    hook_stop_if_higher(est2, "prediction/mean", threshold = 1e9))))
  expect_equal(max(wide(h2)$steps), 30)
})

test_that("without an in-memory evaluator the hooks read the eval event files", {
  est <- x_regressor()
  quietly(train(est, x_input(), steps = 5))
  quietly(evaluate(est, eval_data()))
  # the existing evaluation at step 5 is already above the threshold
  msgs <- messages_of(h <- train(est, x_input(), steps = 50, hooks = list(
    hook_stop_if_higher(est, "loss", threshold = -1, run_every_steps = 3))))
  expect_equal(max(wide(h)$steps), 6)
  expect_true(any(grepl("Requesting early stopping at global step 6", msgs)))
  expect_error(quietly(train(est, x_input(), steps = 5, hooks = list(
    hook_stop_if_higher(est, "nope", threshold = 0, run_every_steps = 1)))),
    "metric 'nope' not found in the evaluation at step 5")
})

test_that("early stopping hooks validate their arguments", {
  est <- x_regressor()
  expect_error(hook_stop_if_no_decrease("x", "loss", 10), "`estimator` must have type `tf.estimator.Estimator`")
  expect_error(hook_stop_if_no_decrease(est, 1, 10), "`metric_name` must be the name")
  expect_error(hook_stop_if_no_decrease(est, "loss", 10, run_every_secs = 5, run_every_steps = 5),
               "Only one of `run_every_secs` and `run_every_steps` must be set.", fixed = TRUE)
  expect_silent(hook_stop_if_no_increase(est, "accuracy", 10, run_every_steps = 5))
  expect_error(hook_stop_if_lower(est, "loss", threshold = "a"), "`threshold` must be a single number")
  expect_error(hook_stop_if_no_decrease(est, "loss", 10, min_delta = -1), "`min_delta` must be")
  expect_error(hook_stop_if_higher(est, "loss", 1, run_every_secs = NULL),
               "Either run_every_secs or run_every_steps should be provided.")
  ev <- hook_in_memory_evaluator(est, eval_data(), every_n_iter = 1)
  bad <- hook_stop_if_no_decrease(est, "accuracy", 5)
  expect_error(quietly(train(est, x_input(), steps = 2, hooks = list(ev, bad))),
               "metric 'accuracy' is not among the evaluation's metrics")
})

test_that("train_and_evaluate() evaluates after checkpoints and at the end", {
  est <- x_regressor(config = run_config(save_checkpoints_steps = 10))
  msgs <- messages_of(h <- train_and_evaluate(
    est, train_spec(x_input(), max_steps = 25),
    eval_spec(eval_data(), steps = NULL, throttle_secs = 0)))
  df <- wide(h)
  ev <- df[!is.na(df$eval_loss), ]
  expect_equal(ev$steps, c(10, 20, 25))
  expect_equal(h$evaluation_metrics$step, 25)
  expect_equal(h$evaluation_metrics$eval_loss, ev$eval_loss[3])
  direct <- quietly(evaluate(est, eval_data()))
  expect_equal(ev$eval_average_loss[3], direct$average_loss, tolerance = 1e-6)
  # default throttle (600 s) and checkpoints: only the final evaluation
  est2 <- x_regressor()
  h2 <- quietly(train_and_evaluate(est2, train_spec(x_input(), max_steps = 12), eval_spec(eval_data())))
  expect_equal(h2$evaluations$steps, 12)
  expect_error(train_and_evaluate(est2, list(), eval_spec(eval_data())), "`train_spec` must be made by train_spec()")
  expect_error(eval_spec(eval_data(), exporters = list(1)), "`exporters` must be an exporter", class = "cppestimators_error")
  expect_error(eval_spec(eval_data(), throttle_secs = -1), "`throttle_secs` must be")
})
