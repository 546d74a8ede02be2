# hook_reduce_lr_on_plateau(): keras' ReduceLROnPlateau rule on checks of a
# controlled metric (the global step never decreases; an evaluation's
# label mean never changes), through the learning-rate scale.

plateau_input <- function() {
  input_fn(data.frame(x = rep(0, 4), y = 3), response = "y", batch_size = 4L, num_epochs = NULL,
           shuffle = FALSE)
}
plateau_eval <- function() {
  input_fn(data.frame(x = rep(0, 4), y = 3), response = "y", batch_size = 4L, num_epochs = 1,
           shuffle = FALSE)
}
plateau_regressor <- function(lr = 0.01, ...) {
  suppressMessages(linear_regressor(feature_columns(column_numeric("x")), optimizer = optimizer_sgd(lr), ...))
}

# The rate fetched at each step (the hook goes first, so a step's value is
# the rate that step used).
rate_fetcher <- function() {
  env <- new.env()
  env$lr <- numeric()
  env$hook <- session_run_hook(
    before_run = function(context) session_run_args("learning_rate"),
    after_run = function(context, values) env$lr <- c(env$lr, values$results[[1]]))
  env
}

scale_of <- function(est) variable_value(est, "learning_rate_scale")[[1]]

test_that("the rate falls after `patience` checks without improvement, with a message each time", {
  est <- plateau_regressor()
  f <- rate_fetcher()
  plateau <- hook_reduce_lr_on_plateau("global_step", factor = 0.5, patience = 2, every_n_steps = 1)
  msgs <- messages_of(train(est, plateau_input(), steps = 8, hooks = list(f$hook, plateau)))
  # checks at steps 1..8: best at 1, reductions at 3, 5 and 7
  expect_equal(f$lr, 0.01 * c(1, 1, 1, 0.5, 0.5, 0.25, 0.25, 0.125), tolerance = 1e-6)
  msgs <- grep("hook_reduce_lr_on_plateau", msgs, value = TRUE)
  said <- paste("hook_reduce_lr_on_plateau(): global_step has not improved for 2 checks; reducing the",
                "learning rate from %s to %s at global step %d.")
  expect_equal(msgs, c(sprintf(said, "0.01", "0.005", 3L), sprintf(said, "0.005", "0.0025", 5L),
                       sprintf(said, "0.0025", "0.00125", 7L)))
  expect_equal(scale_of(est), 0.125)
  expect_true("learning_rate_scale" %in% variable_names(est))
})

test_that("an improving metric never lowers the rate; windows average every_n_steps steps", {
  est <- plateau_regressor()
  msgs <- messages_of(train(est, plateau_input(), steps = 10, hooks = list(
    hook_reduce_lr_on_plateau("global_step", mode = "max", patience = 0, every_n_steps = 1))))
  expect_false(any(grepl("reducing", msgs)))
  expect_equal(scale_of(est), 1)
  # windows of 3 steps: means 2, 5, 8; patience 2 -> one reduction, at step 9
  est <- plateau_regressor()
  msgs <- messages_of(train(est, plateau_input(), steps = 11, hooks = list(
    hook_reduce_lr_on_plateau("global_step", factor = 0.5, patience = 2, every_n_steps = 3))))
  expect_equal(sum(grepl("reducing the learning rate from 0.01 to 0.005 at global step 9", msgs)), 1)
  expect_equal(scale_of(est), 0.5)
  # the default, the training loss: falling by more than min_delta each window, no reduction
  est <- plateau_regressor()
  quietly(train(est, plateau_input(), steps = 20, hooks = list(
    hook_reduce_lr_on_plateau(patience = 1, every_n_steps = 2))))
  expect_equal(scale_of(est), 1)
})

test_that("cooldown skips checks after a reduction; min_lr bounds it", {
  est <- plateau_regressor()
  msgs <- messages_of(train(est, plateau_input(), steps = 10, hooks = list(
    hook_reduce_lr_on_plateau("global_step", factor = 0.5, patience = 2, cooldown = 2, every_n_steps = 1))))
  expect_equal(as.numeric(sub(".* at global step ([0-9]+)\\.$", "\\1", grep("reducing", msgs, value = TRUE))),
               c(3, 6, 9))
  est <- plateau_regressor()
  f <- rate_fetcher()
  msgs <- messages_of(train(est, plateau_input(), steps = 8, hooks = list(f$hook,
    hook_reduce_lr_on_plateau("global_step", factor = 0.5, patience = 1, min_lr = 0.003, every_n_steps = 1))))
  expect_equal(f$lr, c(0.01, 0.01, 0.005, rep(0.003, 5)), tolerance = 1e-6)
  expect_equal(sum(grepl("reducing", msgs)), 2)  # none once at min_lr
})

test_that("evaluations of an in-memory evaluator are the checks when there is one", {
  est <- plateau_regressor()
  f <- rate_fetcher()
  hooks <- list(f$hook, hook_in_memory_evaluator(est, plateau_eval(), every_n_iter = 2),
                hook_reduce_lr_on_plateau("label/mean", factor = 0.5, patience = 2))
  msgs <- messages_of(train(est, plateau_input(), steps = 9, hooks = hooks))
  # evaluations at steps 0, 2, 4, 6, 8 with the same label mean: reductions at 4 and 8
  expect_equal(f$lr, 0.01 * c(1, 1, 1, 1, 0.5, 0.5, 0.5, 0.5, 0.25), tolerance = 1e-6)
  expect_equal(sum(grepl("label/mean has not improved", msgs)), 2)
  # an improving evaluation metric: no reduction
  est <- plateau_regressor()
  quietly(train(est, plateau_input(), steps = 9, hooks = list(
    hook_in_memory_evaluator(est, plateau_eval(), every_n_iter = 2),
    hook_reduce_lr_on_plateau("prediction/mean", mode = "max", patience = 0))))
  expect_equal(scale_of(est), 1)
  est <- plateau_regressor()
  expect_error(quietly(train(est, plateau_input(), steps = 2, hooks = list(
    hook_in_memory_evaluator(est, plateau_eval(), every_n_iter = 1),
    hook_reduce_lr_on_plateau("accuracy")))),
    "hook 2 \\(hook_reduce_lr_on_plateau\\).*`metric` 'accuracy' is not among the evaluation's metrics")
})

test_that("under train_and_evaluate() the evaluations in eval_dir are the checks", {
  est <- plateau_regressor(config = run_config(save_checkpoints_steps = 2))
  msgs <- messages_of(train_and_evaluate(
    est, train_spec(plateau_input(), max_steps = 9,
                    hooks = list(hook_reduce_lr_on_plateau("label/mean", factor = 0.5, patience = 2,
                                                           every_n_steps = 1))),
    eval_spec(plateau_eval(), steps = NULL, throttle_secs = 0)))
  # evaluations at 2, 4, 6, 8: the best at 2, a reduction at 6
  expect_equal(grep("reducing", msgs, value = TRUE),
               paste("hook_reduce_lr_on_plateau(): label/mean has not improved for 2 checks; reducing the",
                     "learning rate from 0.01 to 0.005 at global step 6."))
  expect_equal(scale_of(est), 0.5)
})

test_that("the scale is checkpointed: resumed training keeps the lowered rate", {
  dir <- local_test_dir()
  est <- plateau_regressor(model_dir = dir)
  quietly(train(est, plateau_input(), steps = 5, hooks = list(
    hook_reduce_lr_on_plateau("global_step", factor = 0.5, patience = 1, every_n_steps = 1))))
  expect_equal(scale_of(est), 0.0625)
  in_checkpoint <- function(dir) {
    length(grepRaw("learning_rate_scale", readBin(latest_checkpoint(dir), "raw", 1e6))) > 0
  }
  expect_true(in_checkpoint(dir))
  # a new object reading model_dir, without the hook
  resumed <- plateau_regressor(model_dir = dir)
  f <- rate_fetcher()
  quietly(train(resumed, plateau_input(), steps = 2, hooks = list(f$hook)))
  expect_equal(f$lr, rep(0.01 * 0.0625, 2), tolerance = 1e-6)
  expect_equal(scale_of(resumed), 0.0625)
  # the same object, trained again
  f <- rate_fetcher()
  quietly(train(est, plateau_input(), steps = 1, hooks = list(f$hook)))
  expect_equal(f$lr, 0.01 * 0.0625, tolerance = 1e-6)
  # and a saved estimator object
  rds <- local_test_file(fileext = ".rds")
  saveRDS(est, rds)
  expect_equal(scale_of(readRDS(rds)), 0.0625)
  # models that never used the hook have no such variable
  plain <- local_test_dir()
  quietly(train(plateau_regressor(model_dir = plain), plateau_input(), steps = 2))
  expect_false(in_checkpoint(plain))
  expect_false("learning_rate_scale" %in% variable_names(plateau_regressor(model_dir = plain)))
})

test_that("the scale multiplies schedules and both rates of wide and deep; summaries show it", {
  dir <- local_test_dir()
  sched <- learning_rate_exponential_decay(0.01, 4, 0.5)
  est <- plateau_regressor(sched, model_dir = dir, config = run_config(save_summary_steps = 1))
  f <- rate_fetcher()
  quietly(train(est, plateau_input(), steps = 6, hooks = list(f$hook,
    hook_reduce_lr_on_plateau("global_step", factor = 0.5, patience = 1, every_n_steps = 1))))
  scale <- c(1, 1, 0.5, 0.25, 0.125, 0.0625)  # reductions at steps 2, 3, 4, 5
  expect_equal(f$lr, 0.01 * 0.5^((0:5) / 4) * scale, tolerance = 1e-6)
  s <- read_summaries(dir)
  expect_equal(s$value[s$tag == "learning_rate"], f$lr, tolerance = 1e-6)
  # a constant rate with the hook: summaries too
  dir2 <- local_test_dir()
  quietly(train(plateau_regressor(model_dir = dir2, config = run_config(save_summary_steps = 1)),
                plateau_input(), steps = 2, hooks = list(hook_reduce_lr_on_plateau(every_n_steps = 5))))
  expect_equal(read_summaries(dir2)$value[read_summaries(dir2)$tag == "learning_rate"], c(0.01, 0.01),
               tolerance = 1e-6)
  d <- data.frame(x = c(0, 1, 2, 3), y = c(1, 2, 3, 4))
  inp <- input_fn(d, response = "y", batch_size = 4L, num_epochs = NULL, shuffle = FALSE)
  wd <- suppressMessages(dnn_linear_combined_regressor(
    linear_feature_columns = feature_columns(column_numeric("x")), linear_optimizer = optimizer_sgd(0.01),
    dnn_feature_columns = feature_columns(column_numeric("x")), dnn_optimizer = optimizer_adam(0.002),
    dnn_hidden_units = 2L))
  rates <- list()
  fetch <- session_run_hook(
    before_run = function(context) session_run_args(l = "linear/learning_rate", d = "dnn/learning_rate"),
    after_run = function(context, values) rates[[length(rates) + 1L]] <<- unlist(values$results))
  quietly(train(wd, inp, steps = 3, hooks = list(fetch,
    hook_reduce_lr_on_plateau("global_step", factor = 0.5, patience = 1, every_n_steps = 1))))
  got <- do.call(rbind, rates)
  expect_equal(unname(got[, "l"]), c(0.01, 0.01, 0.005), tolerance = 1e-6)
  expect_equal(unname(got[, "d"]), c(0.002, 0.002, 0.001), tolerance = 1e-6)
})

test_that("bad arguments and boosted trees are errors", {
  err <- function(expr, re) expect_error(expr, class = "cppestimators_error", regexp = re)
  err(hook_reduce_lr_on_plateau(metric = 1), "`metric` must be the name of a metric")
  err(hook_reduce_lr_on_plateau(factor = 1), "`factor` must be a number > 0 and < 1")
  err(hook_reduce_lr_on_plateau(patience = -1), "`patience` must be >= 0")
  err(hook_reduce_lr_on_plateau(patience = 1.5), "`patience` must be a single whole number")
  err(hook_reduce_lr_on_plateau(min_delta = -1), "`min_delta` must be a number >= 0")
  err(hook_reduce_lr_on_plateau(cooldown = NA), "`cooldown` must be a single whole number")
  err(hook_reduce_lr_on_plateau(min_lr = -0.1), "`min_lr` must be a number >= 0")
  err(hook_reduce_lr_on_plateau(mode = "auto"), "`mode` must be one of \"min\" or \"max\"")
  err(hook_reduce_lr_on_plateau(every_n_steps = 0), "`every_n_steps` must be >= 1")
  err(hook_reduce_lr_on_plateau(eval_dir = 3), "`eval_dir` must be NULL or a directory path")
  expect_output(print(hook_reduce_lr_on_plateau(factor = 0.5)),
                "<hook_reduce_lr_on_plateau: metric = loss, factor = 0.5, patience = 10")
  est <- plateau_regressor()
  err(train(est, plateau_input(), steps = 1, hooks = list(hook_reduce_lr_on_plateau("nope"))),
      "'nope' is not a tensor of this session")
  err(evaluate(est, plateau_eval(), hooks = list(hook_reduce_lr_on_plateau())), "pass it to train")
  trees <- suppressMessages(boosted_trees_regressor(feature_columns(column_numeric("x")), n_batches_per_layer = 1))
  err(train(trees, plateau_input(), steps = 1, hooks = list(hook_reduce_lr_on_plateau())),
      "cannot run with boosted trees")
})
