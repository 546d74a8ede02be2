# The hook protocol of R/hook.R: kinds the engine's registry builds, traits
# kept by each hook, per-call preparation, the engine's view of a hook.

every_hook <- function(est = drat_regressor()) {
  list(
    hook_progress_bar(), hook_history_saver(), hook_stop_at_step(num_steps = 1),
    hook_logging_tensor("loss", every_n_iter = 1), hook_nan_tensor(),
    hook_step_counter(), hook_summary_saver(save_steps = 1),
    hook_checkpoint_saver(tempfile(), save_steps = 1), hook_global_step_waiter(0),
    hook_in_memory_evaluator(est, mtcars_input()),
    hook_stop_if_no_decrease(est, "loss", 10), session_run_hook()
  )
}

test_that("every hook constructor names a kind the engine's hook registry builds", {
  kinds <- cppestimators:::cpp_registry_kinds("hook")
  expect_true(all(c("progress_bar", "early_stopping", "session_run_hook") %in% kinds))
  expect_identical(kinds, sort(kinds, method = "radix"))
  made <- vapply(every_hook(), function(h) h$kind, "")
  expect_true(all(made %in% kinds))
  for (family in c("column", "head", "optimizer", "model")) {
    expect_gt(length(cppestimators:::cpp_registry_kinds(family)), 2)
  }
  expect_error(cppestimators:::cpp_registry_kinds("layer"), "unknown registry 'layer'")
})

test_that("an unknown hook kind reaching the engine is an error naming it", {
  bogus <- cppestimators:::new_hook("progress_barr", list())
  err <- expect_error(quietly(train(drat_regressor(), mtcars_input(), steps = 1, hooks = list(bogus))),
                      "unknown hook kind 'progress_barr'; known kinds are 'checkpoint_saver'")
  expect_s3_class(err, "cppestimators_error")
})

test_that("traits live with each hook: training-only hooks and hooks running R code", {
  hooks <- every_hook()
  trait <- function(name) vapply(hooks, function(h) isTRUE(cppestimators:::hook_trait(h, name)), TRUE)
  kinds <- vapply(hooks, function(h) h$kind, "")
  expect_setequal(kinds[trait("training_only")], c("in_memory_evaluator", "early_stopping"))
  expect_setequal(kinds[trait("runs_r_code")],
                  c("logging_tensor", "checkpoint_saver", "in_memory_evaluator", "session_run_hook"))
  expect_true(cppestimators:::hook_has_role(hooks[[10]], "evaluator"))
  expect_false(cppestimators:::hook_has_role(hooks[[11]], "evaluator"))
  # traits survive the list edits train() makes
  h <- hooks[[10]]
  h$position <- 3L
  expect_true(cppestimators:::hook_trait(h, "training_only"))
  expect_error(evaluate(drat_regressor(), mtcars_input(), hooks = list(hooks[[11]])),
               "hook_early_stopping evaluates during training and cannot be used with evaluate()")
})

test_that("the engine sees a hook without its R-only fields or traits", {
  est <- drat_regressor()
  specs <- cppestimators:::engine_hook_specs(list(
    hook_in_memory_evaluator(est, mtcars_input(), name = "holdout"),
    hook_stop_if_no_decrease(est, "loss", 10)))
  expect_setequal(names(specs[[1]]), c("kind", "name", "every_n_iter"))
  expect_false("estimator" %in% names(specs[[2]]))
  expect_null(attr(specs[[1]], "hook_traits"))
  expect_null(attr(specs[[1]], "class"))
})

test_that("hook_prepare() gives each hook what it needs for the call", {
  est <- drat_regressor()
  hooks <- cppestimators:::prepare_hooks(
    list(hook_progress_bar(), hook_summary_saver(save_steps = 2), hook_global_step_waiter(5),
         hook_checkpoint_saver(tempfile(), save_steps = 1)),
    est, "train", "Training", 7)
  expect_identical(hooks[[1]]$label, "Training")
  expect_identical(hooks[[1]]$total, 7)
  expect_identical(hooks[[2]]$output_dir, model_dir(est))
  expect_identical(hooks[[3]]$model_dir, model_dir(est))
  expect_identical(hooks[[4]]$keep_checkpoint_max, est$spec$config$keep_checkpoint_max)
  # outside training, summaries go only where output_dir says
  evals <- cppestimators:::prepare_hooks(list(hook_summary_saver(save_steps = 2)), est, "eval",
                                         "Evaluating", NULL)
  expect_null(evals[[1]]$output_dir)
})

test_that("an early stopper follows the call's evaluator; restore_best needs one", {
  est <- drat_regressor()
  stopper <- hook_stop_if_no_decrease(est, "loss", 10, restore_best = TRUE)
  alone <- expect_error(quietly(train(est, mtcars_input(), steps = 2, hooks = list(stopper))),
                        "restore_best = TRUE needs a hook_in_memory_evaluator()", fixed = TRUE)
  expect_s3_class(alone, "cppestimators_error")
  hooks <- cppestimators:::prepare_hooks(
    list(stopper, hook_in_memory_evaluator(est, mtcars_input())), est, "train", "Training", 2,
    ptr = cppestimators:::estimator_ptr(est))
  expect_true(hooks[[1]]$follow_evaluator)
  expect_true(is.function(hooks[[2]]$evaluate))
})
