#' Evaluate during training, in memory
#'
#' A hook that evaluates the estimator's current weights while it trains,
#' without going through a checkpoint: once before the first step (showing
#' the metrics before training), every `every_n_iter` training iterations, and
#' at the end (unless it just evaluated at that global step). Each evaluation
#' resets its metrics, runs the evaluation `hooks`, logs
#' `Saving dict for global step <n>: ...` with [message()], writes the
#' metrics as summaries to `model_dir/eval` (or `eval_<name>`), and is joined
#' to the history `train()` returns as `eval_<metric>` columns at the step it
#' was computed. Early-stopping hooks of the same estimator read its results
#' as soon as they exist.
#'
#' Limitations: like TensorFlow's `InMemoryEvaluatorHook`, it supports only
#' single-machine training and has no custom saving logic (such as an
#' exponential moving average of the weights). Unlike TensorFlow's, it also
#' evaluates boosted trees: their ensemble is held in ordinary variables.
#' Several evaluators may run in one `train()` call, each with its own input,
#' hooks and name.
#'
#' @param estimator The estimator being trained.
#' @param input_fn The evaluation input, as for [evaluate()]: an input
#'   function, or a data frame, read as `evaluate()` reads one (over the
#'   features the estimator's columns use, with the response `train()` or
#'   [feature_columns_from_data()] recorded unless `...` gives `response`)
#'   when the `train()` call it runs in starts.
#' @param steps Number of evaluation batches; `NULL` evaluates the whole input.
#' @param hooks Hooks run inside each evaluation.
#' @param name Name of the evaluation: results go to `model_dir/eval_<name>`.
#' @param every_n_iter Evaluate every this many training iterations.
#' @param exporters An exporter ([best_exporter()], [latest_exporter()],
#'   [final_exporter()]) or a list of them, with distinct names, called after
#'   each evaluation with its metrics; the final evaluation is the one at the
#'   end of the `train()` call (final exports are written when the training
#'   session has ended, from the weights it ended with). The history
#'   `train()` returns lists the exports in its `exports` element.
#' @param ... With a data frame as `input_fn`: `response`, `batch_size`,
#'   `shuffle` and `num_epochs`, as [evaluate()] takes them.
#' @inherit hook_progress_bar return
#' @family hooks
#' @export
#' @examples
#' fcs <- feature_columns(column_numeric("drat"))
#' train_input <- input_fn(mtcars, response = "mpg", features = "drat", batch_size = 4L,
#'                         num_epochs = NULL)
#' eval_input <- input_fn(mtcars, response = "mpg", features = "drat")
#' est <- linear_regressor(feature_columns = fcs)
#' evaluator <- hook_in_memory_evaluator(est, eval_input, every_n_iter = 10)
#' history <- est %>% train(train_input, steps = 30, hooks = list(evaluator))
#' as.data.frame(history)
#' # a data frame, as evaluate() reads it
#' evaluator <- hook_in_memory_evaluator(est, mtcars, response = "mpg", every_n_iter = 10)
#' history <- est %>% train(train_input, steps = 30, hooks = list(evaluator))
hook_in_memory_evaluator <- function(estimator, input_fn, steps = NULL, hooks = NULL, name = NULL,
                                     every_n_iter = 100, exporters = NULL, ...) {
  check_estimator(estimator)
  every_n_iter <- check_every_n_iter(every_n_iter)
  if (missing(input_fn)) abort("`input_fn` is required: the evaluation input.")
  # a data frame's arguments (response, batch_size, ...), as given: the
  # input is made when train() starts, once it knows the response
  data_args <- NULL
  if (is.data.frame(input_fn)) {
    data_args <- rlang::enquos(...)
  } else {
    check_method_dots(dots_names(...), "hook_in_memory_evaluator", hook_in_memory_evaluator)
  }
  eval_dir(estimator, name)
  new_hook("in_memory_evaluator", list(
    estimator = estimator, input_fn = input_fn, data_args = data_args, steps = check_steps(steps, "steps"),
    hooks = normalize_hooks(hooks), name = name, every_n_iter = every_n_iter,
    exporters = normalize_exporters(exporters)),
    training_only = TRUE, runs_r_code = TRUE, roles = "evaluator", per_call = TRUE,
    r_only = c("estimator", "input_fn", "data_args", "steps", "hooks", "exporters", "exports"))
}

# The evaluation callback runs on the engine being trained; the evaluator's
# estimator must have the trained one's model.
#' @noRd
hook_prepare.cppestimators_hook_in_memory_evaluator <- function(hook, run) {
  if (!same_model(hook$estimator, run$object)) {
    abort(paste("hook_in_memory_evaluator(): `estimator` must be the estimator being trained",
                "(or one with the same feature columns and head)."))
  }
  if (is.data.frame(hook$input_fn)) {
    # as evaluate() reads a data frame, with the response the trained estimator recorded
    read <- rlang::call2(data_input, run$object, hook$input_fn, "eval", "hook_in_memory_evaluator",
                         !!!hook$data_args)
    hook$input_fn <- rlang::eval_tidy(read)
  }
  hook$exports <- exporter_run(hook$exporters, run$object, run$ptr)
  hook$evaluate <- evaluation_of(hook, run$ptr)
  hook
}

# After the session: the final exports, of the weights training ended with
# (the session's end() made the final evaluation).
#' @noRd
hook_finish.cppestimators_hook_in_memory_evaluator <- function(hook, run) {
  if (!is.null(run)) hook$exports$final_only(run$global_step)
  hook$exports$made
}

# The evaluation an in-memory evaluator hook runs: a closure of its own
# frame, so that several evaluators of one train() call each keep their
# input, steps, hooks and name.
evaluation_of <- function(h, ptr) {
  est <- h$estimator
  input <- h$input_fn
  steps <- h$steps
  eval_hooks <- h$hooks
  name <- h$name
  exports <- h$exports
  function() {
    m <- evaluate_now(est, ptr, input, steps, eval_hooks, name)
    if (!is.null(m)) exports$after_evaluation(m, final = FALSE)
    m
  }
}

same_model <- function(a, b) {
  identical(a$state, b$state) || identical(model_signature(a), model_signature(b))
}
