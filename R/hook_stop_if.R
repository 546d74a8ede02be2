#' Early stopping hooks
#'
#' Stop training when an evaluation metric stops improving
#' (`hook_stop_if_no_decrease()`, `hook_stop_if_no_increase()`) or crosses a
#' threshold (`hook_stop_if_lower()`, `hook_stop_if_higher()`), with the rules
#' of TensorFlow's `tf.estimator.experimental.stop_if_*` hooks:
#' * no decrease/increase: over the evaluations at steps `>= min_steps`, in
#'   order, the best value changes only on a strict improvement (by more than
#'   `min_delta`); training stops once the evaluated step is
#'   `max_steps_without_*` or more steps past the best one;
#' * lower/higher: training stops at the first evaluation whose value is
#'   strictly below/above `threshold`.
#'
#' When a [hook_in_memory_evaluator()] of the same estimator is attached to
#' the same `train()` call, each of its results is checked as soon as it
#' exists (TensorFlow's hooks only read event files, so they lagged behind).
#' Otherwise the evaluation event files in `eval_dir` are re-read on the
#' first step and then every `run_every_steps` steps or `run_every_secs`
#' seconds. Stops are logged with [message()]. A hook with nothing to read
#' (no evaluator in the call, no event files in `eval_dir`, not under
#' [train_and_evaluate()]) is an error when `train()` starts, as it could
#' never stop training.
#'
#' With `restore_best = TRUE`, the weights of the best evaluation are restored
#' when training ends (the global step stays) and saved as a checkpoint.
#'
#' @param estimator The estimator being trained.
#' @param metric_name The metric to watch, e.g. `"loss"` or `"accuracy"`.
#' @param max_steps_without_decrease,max_steps_without_increase Steps without
#'   improvement after which to stop.
#' @param threshold The threshold of `hook_stop_if_lower()`/`hook_stop_if_higher()`.
#' @param eval_dir Directory of the evaluation event files; default
#'   `model_dir/eval`.
#' @param min_steps Ignore evaluations before this global step.
#' @param run_every_secs,run_every_steps How often to re-read the event files
#'   (at most one of the two; `run_every_steps` alone is accepted).
#' @param min_delta The smallest change that counts as an improvement.
#' @param restore_best Restore and save the best evaluation's weights at the end.
#' @inherit hook_progress_bar return
#' @family hooks
#' @name early_stopping
#' @examples
#' fcs <- feature_columns(column_numeric("drat"))
#' train_input <- input_fn(mtcars, response = "mpg", features = "drat", batch_size = 4L,
#'                         num_epochs = NULL)
#' eval_input <- input_fn(mtcars, response = "mpg", features = "drat")
#' est <- linear_regressor(feature_columns = fcs)
#' hooks <- list(
#'   hook_in_memory_evaluator(est, eval_input, every_n_iter = 10),
#'   hook_stop_if_no_decrease(est, "loss", max_steps_without_decrease = 30,
#'                            min_delta = 1, restore_best = TRUE))
#' history <- train(est, train_input, steps = 500, hooks = hooks)
NULL

#' @rdname early_stopping
#' @export
hook_stop_if_no_decrease <- function(estimator, metric_name, max_steps_without_decrease,
                                     eval_dir = NULL, min_steps = 0, run_every_secs = 60,
                                     run_every_steps = NULL, min_delta = 0, restore_best = FALSE) {
  if (missing(run_every_secs) && !is.null(run_every_steps)) run_every_secs <- NULL
  early_stopping_hook("no_decrease", estimator, metric_name,
                      max_steps_without = check_whole(max_steps_without_decrease,
                                                      "max_steps_without_decrease", min = 0,
                                                      null_ok = FALSE),
                      eval_dir = eval_dir, min_steps = min_steps, run_every_secs = run_every_secs,
                      run_every_steps = run_every_steps, min_delta = min_delta,
                      restore_best = restore_best)
}

#' @rdname early_stopping
#' @export
hook_stop_if_no_increase <- function(estimator, metric_name, max_steps_without_increase,
                                     eval_dir = NULL, min_steps = 0, run_every_secs = 60,
                                     run_every_steps = NULL, min_delta = 0, restore_best = FALSE) {
  if (missing(run_every_secs) && !is.null(run_every_steps)) run_every_secs <- NULL
  early_stopping_hook("no_increase", estimator, metric_name,
                      max_steps_without = check_whole(max_steps_without_increase,
                                                      "max_steps_without_increase", min = 0,
                                                      null_ok = FALSE),
                      eval_dir = eval_dir, min_steps = min_steps, run_every_secs = run_every_secs,
                      run_every_steps = run_every_steps, min_delta = min_delta,
                      restore_best = restore_best)
}

#' @rdname early_stopping
#' @export
hook_stop_if_lower <- function(estimator, metric_name, threshold, eval_dir = NULL, min_steps = 0,
                               run_every_secs = 60, run_every_steps = NULL, restore_best = FALSE) {
  if (missing(run_every_secs) && !is.null(run_every_steps)) run_every_secs <- NULL
  early_stopping_hook("lower", estimator, metric_name, threshold = check_threshold(threshold),
                      eval_dir = eval_dir, min_steps = min_steps, run_every_secs = run_every_secs,
                      run_every_steps = run_every_steps, min_delta = 0, restore_best = restore_best)
}

#' @rdname early_stopping
#' @export
hook_stop_if_higher <- function(estimator, metric_name, threshold, eval_dir = NULL, min_steps = 0,
                                run_every_secs = 60, run_every_steps = NULL, restore_best = FALSE) {
  if (missing(run_every_secs) && !is.null(run_every_steps)) run_every_secs <- NULL
  early_stopping_hook("higher", estimator, metric_name, threshold = check_threshold(threshold),
                      eval_dir = eval_dir, min_steps = min_steps, run_every_secs = run_every_secs,
                      run_every_steps = run_every_steps, min_delta = 0, restore_best = restore_best)
}

check_threshold <- function(x) {
  if (missing(x)) abort("`threshold` must be a single number.")
  check_number(x, "threshold", finite = FALSE)
}

early_stopping_hook <- function(rule, estimator, metric_name, max_steps_without = NULL,
                                threshold = NULL, eval_dir, min_steps, run_every_secs,
                                run_every_steps, min_delta, restore_best) {
  if (!inherits(estimator, "tf_estimator")) {
    abort(sprintf("`estimator` must have type `tf.estimator.Estimator`. Got: %s", describe(estimator)))
  }
  metric_must <- "the name of an evaluation metric, such as \"loss\""
  if (missing(metric_name)) abort(sprintf("`metric_name` must be %s.", metric_must))
  check_string(metric_name, "metric_name", must = metric_must)
  if (!is.null(run_every_secs) && !is.null(run_every_steps)) {
    abort("Only one of `run_every_secs` and `run_every_steps` must be set.")
  }
  if (is.null(run_every_secs) && is.null(run_every_steps)) {
    abort("Either run_every_secs or run_every_steps should be provided.")
  }
  run_every_secs <- check_seconds(run_every_secs, "run_every_secs")
  min_delta <- check_number(min_delta, "min_delta", min = 0, finite = FALSE, must = "a single number >= 0")
  check_flag(restore_best, "restore_best")
  check_string(eval_dir, "eval_dir", null_ok = TRUE, must = "NULL or a directory path")
  new_hook("early_stopping", list(
    rule = rule, estimator = estimator, metric_name = metric_name,
    max_steps_without = max_steps_without, threshold = threshold,
    eval_dir = path.expand(eval_dir %||% eval_dir(estimator)),
    min_steps = check_whole(min_steps, "min_steps", min = 0, null_ok = FALSE),
    run_every_secs = run_every_secs,
    run_every_steps = check_whole(run_every_steps, "run_every_steps"),
    min_delta = min_delta, restore_best = restore_best),
    training_only = TRUE, r_only = "estimator", roles = "stops_training", per_call = TRUE)
}

# An early stopper of the trained estimator follows the call's in-memory
# evaluator (the engine attaches it at begin()); restore_best needs one.
#' @noRd
hook_prepare.cppestimators_hook_early_stopping <- function(hook, run) {
  follow <- same_model(hook$estimator, run$object) &&
    any(vapply(run$hooks, hook_has_role, TRUE, role = "evaluator"))
  if (isTRUE(hook$restore_best) && !follow) {
    abort(paste("restore_best = TRUE needs a hook_in_memory_evaluator() of the same estimator in the same",
                "train() call (the weights of an evaluation read from event files are gone)."))
  }
  if (!follow && !evaluations_expected(hook$eval_dir, run$hooks)) {
    abort(sprintf(paste(
      "hook %s (%s) has no evaluations to act on: no hook_in_memory_evaluator() of the estimator",
      "in this train() call and no evaluation event files in its `eval_dir` (%s), so it would never",
      "stop training. Add an evaluator to `hooks`, e.g. hooks = list(hook_in_memory_evaluator(est,",
      "eval_input, every_n_iter = 100), <this hook>), or use train_and_evaluate()."),
      hook$position %||% "?", paste0("hook_stop_if_", hook$rule, "()"), hook$eval_dir),
      class = "cppestimators_hook_argument_error")
  }
  hook$follow_evaluator <- follow
  hook$model_dir <- run$object$spec$model_dir
  hook$keep_checkpoint_max <- run$object$spec$config$keep_checkpoint_max %||% 0
  hook
}

# Whether evaluations will reach `dir` during the run without an in-memory
# evaluator: event files already there (evaluate(), another process), or a
# checkpoint listener that evaluates into it (train_and_evaluate()).
evaluations_expected <- function(dir, hooks) {
  if (length(list.files(dir, pattern = "^events\\.out\\.tfevents\\."))) return(TRUE)
  listeners <- unlist(lapply(hooks, function(h) if (is.list(h$listeners)) h$listeners), recursive = FALSE)
  any(vapply(listeners, function(l) same_dir(l$evaluates_into, dir), TRUE))
}
