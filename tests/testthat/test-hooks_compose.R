test_that("all built-in hooks and two R hooks compose and run in list order", {
  dir <- tempfile()
  events <- character()
  r_hook <- function(tag) {
    session_run_hook(
      begin = function() message(tag, ":begin"),
      after_run = function(context, values) message(tag, ":after_run:", context$session$run("global_step")),
      end = function(session) message(tag, ":end"))
  }
  hooks <- list(
    r_hook("A"),
    hook_logging_tensor(list(step = "global_step"), every_n_iter = 2),
    hook_step_counter(every_n_steps = 2),
    hook_checkpoint_saver(dir, save_steps = 2),
    hook_nan_tensor(),
    hook_global_step_waiter(0),
    hook_stop_at_step(num_steps = 3),
    hook_history_saver(every_n_step = 1),
    hook_progress_bar(),
    r_hook("B"))
  all_msgs <- messages_of(h <- train(x_regressor(), x_input(), hooks = hooks))
  saving <- grep("^Saving checkpoints", all_msgs, value = TRUE)
  expect_equal(saving, sprintf("Saving checkpoints for %d into %s/model.ckpt.", c(0, 2, 3),
                               normalizePath(dir, mustWork = FALSE)))
  msgs <- setdiff(all_msgs, saving)
  expect_length(msgs, 13)
  expect_equal(msgs[1:2], c("A:begin", "B:begin"))
  # per step: A, then the logger (on logging steps), then B
  expect_equal(msgs[3:5], c("A:after_run:1", "step = 1", "B:after_run:1"))
  expect_equal(msgs[6:7], c("A:after_run:2", "B:after_run:2"))
  expect_equal(msgs[8], "A:after_run:3")
  expect_match(msgs[9], "^step = 3 \\(")
  expect_match(msgs[10], "^global_step/sec: ")
  expect_equal(msgs[11:13], c("B:after_run:3", "A:end", "B:end"))
  expect_equal(wide(h)$steps, 1:3)
  expect_true(file.exists(file.path(dir, "checkpoint")))
})
