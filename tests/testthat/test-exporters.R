eval_x <- function() x_input(num_epochs = 1)
ckpt_regressor <- function(...) x_regressor(config = run_config(save_checkpoints_steps = 10), ...)
export_dirs <- function(est, name) {
  sort(list.files(file.path(model_dir(est), "export", name), full.names = TRUE))
}
# A comparison scripted by step: lower score is better.
scripted <- function(scores) {
  function(best_eval_result, current_eval_result) {
    scores[[format(current_eval_result$global_step)]] < scores[[format(best_eval_result$global_step)]]
  }
}
predictions_at <- function(est, step) {
  predict(est, eval_x(), checkpoint_path = file.path(model_dir(est), paste0("model.ckpt-", step)))
}

test_that("best_exporter() exports only improvements and keeps the newest exports_to_keep", {
  est <- ckpt_regressor()
  best <- best_exporter(compare_fn = scripted(c(`0` = 5, `10` = 3, `20` = 4, `30` = 1, `40` = 2)),
                        exports_to_keep = 2)
  ev <- hook_in_memory_evaluator(est, eval_x(), every_n_iter = 10, exporters = best)
  h <- quietly(train(est, x_input(), steps = 40, hooks = list(ev)))
  expect_equal(h$exports$step, c(0, 10, 30))
  expect_equal(h$exports$exporter, rep("best_exporter", 3))
  dirs <- export_dirs(est, "best_exporter")
  expect_equal(normalizePath(dirs), h$exports$path[2:3])
  expect_match(basename(dirs), "^[0-9]{10}$")
  # each export predicts as the model did at its step
  for (k in 2:3) {
    loaded <- quietly(load_estimator(h$exports$path[k]))
    expect_equal(predict(loaded, eval_x()), predictions_at(est, h$exports$step[k]))
  }
})

test_that("the default best_exporter() compares loss and reads the best so far when resuming", {
  est <- ckpt_regressor()
  ev <- hook_in_memory_evaluator(est, eval_x(), every_n_iter = 10, exporters = best_exporter())
  h <- quietly(train(est, x_input(), steps = 20, hooks = list(ev)))
  losses <- h$evaluations$eval_loss
  improved <- c(TRUE, vapply(seq_along(losses)[-1], function(i) losses[i] < min(losses[seq_len(i - 1)]), TRUE))
  expect_equal(h$exports$step, h$evaluations$steps[improved])
  n <- length(export_dirs(est, "best_exporter"))
  # a new call, a new exporter: the evaluation at step 20 again is no improvement
  ev2 <- hook_in_memory_evaluator(est, eval_x(), every_n_iter = 1000, exporters = best_exporter(exports_to_keep = NULL))
  h2 <- quietly(train(est, x_input(), steps = 1, hooks = list(ev2)))
  expect_equal(h2$evaluations$steps, c(20, 21))
  better <- h2$evaluations$eval_loss[2] < min(losses)
  expect_equal(h2$exports$step, if (better) 21 else numeric())
  expect_length(export_dirs(est, "best_exporter"), n + better)
  # a model that only gets worse exports nothing once the history is known
  worse <- function(best_eval_result, current_eval_result) FALSE
  ev3 <- hook_in_memory_evaluator(est, eval_x(), every_n_iter = 1,
                                  exporters = best_exporter("b2", compare_fn = worse))
  h3 <- quietly(train(est, x_input(), steps = 2, hooks = list(ev3)))
  expect_equal(nrow(h3$exports), 0L)
  # without event files to read, the first evaluation is exported
  ev4 <- hook_in_memory_evaluator(est, eval_x(), every_n_iter = 1,
                                  exporters = best_exporter("b3", compare_fn = worse, event_file_pattern = NULL))
  h4 <- quietly(train(est, x_input(), steps = 2, hooks = list(ev4)))
  expect_equal(h4$exports$step, 23)
})

test_that("latest_exporter() exports at every evaluation and keeps the newest N", {
  est <- ckpt_regressor()
  ev <- hook_in_memory_evaluator(est, eval_x(), every_n_iter = 10,
                                 exporters = latest_exporter(exports_to_keep = 3))
  h <- quietly(train(est, x_input(), steps = 45, hooks = list(ev)))
  expect_equal(h$exports$step, c(0, 10, 20, 30, 40, 45))
  dirs <- export_dirs(est, "latest_exporter")
  expect_equal(normalizePath(dirs), tail(h$exports$path, 3))
  expect_true(all(diff(as.numeric(basename(h$exports$path))) > 0))
  loaded <- quietly(load_estimator(dirs[3]))
  expect_equal(predict(loaded, eval_x()), predict(est, eval_x()))
  loaded <- quietly(load_estimator(dirs[1]))
  expect_equal(predict(loaded, eval_x()), predictions_at(est, 30))
  # NULL keeps every export
  ev <- hook_in_memory_evaluator(est, eval_x(), every_n_iter = 1,
                                 exporters = latest_exporter("all", exports_to_keep = NULL))
  quietly(train(est, x_input(), steps = 7, hooks = list(ev)))
  expect_length(export_dirs(est, "all"), 8)
})

test_that("final_exporter() exports once, at the end of training", {
  est <- ckpt_regressor()
  ev <- hook_in_memory_evaluator(est, eval_x(), every_n_iter = 10, exporters = final_exporter())
  h <- quietly(train(est, x_input(), steps = 30, hooks = list(ev)))
  expect_equal(h$exports$step, 30)
  dirs <- export_dirs(est, "final_exporter")
  expect_length(dirs, 1)
  expect_equal(predict(quietly(load_estimator(dirs)), eval_x()), predict(est, eval_x()))
  expect_false(any(grepl("^temp-", list.files(file.path(model_dir(est), "export"), recursive = TRUE))))
})

test_that("train_and_evaluate() runs the exporters of eval_spec()", {
  est <- ckpt_regressor()
  spec <- eval_spec(eval_x(), steps = NULL, throttle_secs = 0,
                    exporters = list(latest_exporter(exports_to_keep = 2), final_exporter(),
                                     best_exporter(compare_fn = scripted(c(`10` = 2, `20` = 3, `25` = 1)))))
  msgs <- messages_of(h <- train_and_evaluate(est, train_spec(x_input(), max_steps = 25), spec))
  expect_equal(h$exports$step[h$exports$exporter == "latest_exporter"], c(10, 20, 25))
  expect_equal(h$exports$step[h$exports$exporter == "final_exporter"], 25)
  expect_equal(h$exports$step[h$exports$exporter == "best_exporter"], c(10, 25))
  expect_length(export_dirs(est, "latest_exporter"), 2)
  expect_length(export_dirs(est, "final_exporter"), 1)
  expect_equal(h$evaluations$steps, c(10, 20, 25))
  expect_length(grep("^Exported the model of global step 25 \\(final_exporter\\) to ", msgs), 1)
  final <- quietly(load_estimator(export_dirs(est, "final_exporter")))
  expect_equal(predict(final, eval_x()), predict(est, eval_x()))
  # the last step evaluated after its save: the final export still happens once
  est2 <- ckpt_regressor()
  h2 <- quietly(train_and_evaluate(est2, train_spec(x_input(), max_steps = 20),
                                   eval_spec(eval_x(), steps = NULL, throttle_secs = 0,
                                             exporters = final_exporter())))
  expect_equal(h2$evaluations$steps, c(10, 20))
  expect_equal(h2$exports$step, 20)
})

test_that("export_savedmodel() numbers exports after the newest and leaves no temporary directory", {
  est <- x_regressor()
  quietly(train(est, x_input(), steps = 2))
  base <- local_test_dir()
  dirs <- vapply(1:3, function(i) export_savedmodel(est, base), "")
  expect_equal(length(unique(dirs)), 3L)
  expect_true(all(diff(as.numeric(basename(dirs))) > 0))
  expect_setequal(list.files(base), basename(dirs))
  dir.create(file.path(base, "9999999999"))
  expect_equal(basename(export_savedmodel(est, base)), "10000000000")
})

test_that("exporters and their arguments are checked", {
  err <- function(expr, msg) expect_error(expr, msg, class = "cppestimators_error")
  err(eval_spec(eval_x(), exporters = "best"), "`exporters` must be an exporter")
  err(eval_spec(eval_x(), exporters = list(latest_exporter(), 1)), "found numeric 1 as element 2")
  err(eval_spec(eval_x(), exporters = list(latest_exporter("a"), best_exporter("a"))),
      "`exporters` must have unique names. All exporter names: \"a\", \"a\"")
  err(hook_in_memory_evaluator(x_regressor(), eval_x(), exporters = list(hook_history_saver())),
      "`exporters` must be an exporter")
  err(latest_exporter(""), "`name` must be a non-empty string")
  err(final_exporter("a/b"), "without slashes")
  err(best_exporter(exports_to_keep = 0),
      "`exports_to_keep`, if provided, must be a positive whole number. Got numeric 0")
  err(latest_exporter(exports_to_keep = 1.5), "must be a positive whole number")
  err(best_exporter(compare_fn = "loss"), "`compare_fn` must be NULL or a function")
  err(best_exporter(compare_fn = function(best_eval_result) TRUE), "must include the current_eval_result argument")
  err(best_exporter(compare_fn = function(best_eval_result, current_eval_result, x) TRUE),
      "arguments it is not called with: `x`")
  expect_warning(latest_exporter(serving_input_receiver_fn = function() NULL, as_text = TRUE),
                 "`serving_input_receiver_fn`, `as_text` are accepted for compatibility",
                 class = "cppestimators_warning")
  expect_snapshot(print(list(best_exporter(), latest_exporter(exports_to_keep = NULL), final_exporter())))
  # TensorFlow's errors of the default comparison
  ls <- cppestimators:::loss_smaller
  err(ls(list(), list(loss = 1)), "best_eval_result cannot be empty or no loss is found in it.")
  err(ls(list(loss = 1), list(accuracy = 1)), "current_eval_result cannot be empty or no loss is found in it.")
  expect_true(ls(list(loss = 2), list(loss = 1)))
  expect_false(ls(list(loss = 1), list(loss = 1)))
  # a comparison that does not answer TRUE or FALSE stops the training
  est <- x_regressor()
  ev <- hook_in_memory_evaluator(est, eval_x(), every_n_iter = 1, exporters = best_exporter(
    compare_fn = function(best_eval_result, current_eval_result) NA))
  expect_error(quietly(train(est, x_input(), steps = 2, hooks = list(ev))), "`compare_fn` must return TRUE or FALSE")
})
