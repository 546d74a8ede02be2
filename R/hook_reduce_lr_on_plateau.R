#' Lower the learning rate when a metric stops improving
#'
#' Keras' `ReduceLROnPlateau` for [train()]: the hook watches one metric and,
#' after `patience` checks without improvement, multiplies the learning rate
#' by `factor` (never below `min_lr`), logs the change with [message()], and
#' then waits `cooldown` checks before counting again. A value improves on
#' the best so far when it is lower (`mode = "min"`) or higher (`"max"`) by
#' more than `min_delta`.
#'
#' What it watches, each value being one check:
#' * with a [hook_in_memory_evaluator()] in the same `train()` call, each of
#'   its evaluations, as it happens (`metric` is an evaluation metric, such
#'   as `"loss"`, `"average_loss"` or `"accuracy"`);
#' * otherwise, with evaluations written to `eval_dir` during training (given,
#'   or the evaluations of [train_and_evaluate()]), each new evaluation found
#'   there (the event files are re-read every `every_n_steps` steps);
#' * otherwise the training tensor `metric` (`"loss"`, `"average_loss"`, ...)
#'   averaged over each window of `every_n_steps` steps.
#'
#' The reduction is a factor on every optimizer's rate, constant or
#' scheduled ([learning_rate_schedules]): a wide and deep model's two rates
#' are lowered together, and a schedule goes on at the lowered level.
#' `min_lr` bounds the reduction of the (first) optimizer's current rate. The
#' factor is a variable of the model, `"learning_rate_scale"`, saved in its
#' checkpoints, so training resumed later (another `train()` call, another
#' session reading `model_dir`) keeps the lowered rate; models that never used
#' the hook have no such variable. The fetched tensor `"learning_rate"` and
#' the `learning_rate` summaries show the lowered rate. The counts of checks
#' start afresh with each `train()` call. Boosted trees have no optimizer:
#' the hook is an error there.
#'
#' @param metric The metric to watch.
#' @param factor What the rate is multiplied by (in (0, 1)).
#' @param patience Checks without improvement before lowering the rate.
#' @param min_delta The smallest change that counts as an improvement.
#' @param cooldown Checks to wait after a reduction before counting again.
#' @param min_lr The lowest rate to reduce to.
#' @param mode `"min"` (lower is better) or `"max"`.
#' @param every_n_steps Steps of each window of the training metric, and how
#'   often `eval_dir` is re-read.
#' @param eval_dir Directory of evaluation event files to watch; default:
#'   those of [train_and_evaluate()] when it runs the hook.
#' @inherit hook_progress_bar return
#' @family hooks
#' @seealso [learning_rate_schedules]
#' @export
#' @examples
#' fcs <- feature_columns(column_numeric("drat"))
#' train_input <- input_fn(mtcars, response = "mpg", features = "drat", batch_size = 8L,
#'                         num_epochs = NULL)
#' est <- linear_regressor(feature_columns = fcs, optimizer = optimizer_sgd(0.001))
#' plateau <- hook_reduce_lr_on_plateau(factor = 0.5, patience = 2, every_n_steps = 10)
#' train(est, train_input, steps = 200, hooks = list(plateau))
#' variable_value(est, "learning_rate_scale")
hook_reduce_lr_on_plateau <- function(metric = "loss", factor = 0.1, patience = 10, min_delta = 1e-4,
                                      cooldown = 0, min_lr = 0, mode = c("min", "max"),
                                      every_n_steps = 100, eval_dir = NULL) {
  check_string(metric, "metric", must = "the name of a metric, such as \"loss\"")
  check_number(factor, "factor", min = 0, max = 1, exclusive_min = TRUE, exclusive_max = TRUE)
  mode <- if (identical(mode, c("min", "max"))) "min" else check_choice(mode, "mode", c("min", "max"))
  check_string(eval_dir, "eval_dir", null_ok = TRUE, must = "NULL or a directory path")
  new_hook("reduce_lr_on_plateau", list(
    metric = metric, factor = factor,
    patience = check_whole(patience, "patience", min = 0, null_ok = FALSE),
    min_delta = check_number(min_delta, "min_delta", min = 0),
    cooldown = check_whole(cooldown, "cooldown", min = 0, null_ok = FALSE),
    min_lr = check_number(min_lr, "min_lr", min = 0),
    mode = mode,
    every_n_steps = check_whole(every_n_steps, "every_n_steps", min = 1, null_ok = FALSE),
    eval_dir = if (is.null(eval_dir)) NULL else path.expand(eval_dir)),
    training_only = TRUE, per_call = TRUE)
}

# Where the hook's checks come from in this run (see the documentation):
# an in-memory evaluator, an evaluation directory, or the training metric.
#' @noRd
hook_prepare.cppestimators_hook_reduce_lr_on_plateau <- function(hook, run) {
  if (!model_trait(estimator_model(run$object$spec), "has_optimizer")) {
    abort(paste("hook_reduce_lr_on_plateau() cannot run with boosted trees: they have no optimizer",
                "whose learning rate it could lower (their `learning_rate` is a fixed shrinkage)."),
          class = "cppestimators_hook_argument_error")
  }
  hook$follow_evaluator <- any(vapply(run$hooks, hook_has_role, TRUE, role = "evaluator"))
  if (hook$follow_evaluator) {
    hook$eval_dir <- ""
  } else if (is.null(hook$eval_dir)) {
    hook$eval_dir <- evaluations_written_to(run$hooks) %||% ""
  }
  hook
}

# The directory a checkpoint listener evaluates into during the run
# (train_and_evaluate()), or NULL.
evaluations_written_to <- function(hooks) {
  listeners <- unlist(lapply(hooks, function(h) if (is.list(h$listeners)) h$listeners), recursive = FALSE)
  for (l in listeners) if (is.character(l$evaluates_into) && length(l$evaluates_into) == 1L) return(l$evaluates_into)
  NULL
}
