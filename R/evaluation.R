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
#' @param input_fn The evaluation input, as for [evaluate()].
#' @param steps Number of evaluation batches; `NULL` evaluates the whole input.
#' @param hooks Hooks run inside each evaluation.
#' @param name Name of the evaluation: results go to `model_dir/eval_<name>`.
#' @param every_n_iter Evaluate every this many training iterations.
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
hook_in_memory_evaluator <- function(estimator, input_fn, steps = NULL, hooks = NULL, name = NULL,
                                     every_n_iter = 100) {
  check_estimator(estimator)
  if (is.null(every_n_iter) || !is.numeric(every_n_iter) || length(every_n_iter) != 1L ||
      is.na(every_n_iter) || every_n_iter <= 0 || every_n_iter != floor(every_n_iter)) {
    stop(sprintf("invalid every_n_iter=%s: `every_n_iter` must be a positive whole number.",
                 if (is.null(every_n_iter)) "NULL" else paste(format(every_n_iter), collapse = ",")),
         call. = FALSE)
  }
  if (missing(input_fn)) stop("`input_fn` is required: the evaluation input.", call. = FALSE)
  eval_dir(estimator, name)
  new_hook("in_memory_evaluator", list(
    estimator = estimator, input_fn = input_fn, steps = check_steps(steps, "steps"),
    hooks = normalize_hooks(hooks), name = name, every_n_iter = every_n_iter))
}

# Evaluates the engine `ptr` as it is, for `object`'s head and input: no
# checkpoint, no look at model_dir. Returns the metrics with global_step.
evaluate_now <- function(object, ptr, input_fn, steps, hooks, name) {
  hooks <- normalize_hooks(hooks)
  if (!is.null(steps)) hooks <- c(hooks, list(new_hook("stop_after_steps", list(steps = steps))))
  run <- run_session(object, input_fn, "eval", hooks, ptr = ptr, in_order = is.null(steps))
  if (is.null(run)) stop("the evaluation was interrupted.", call. = FALSE)
  if (run$steps == 0) stop("the evaluation input produced no batches (is the data empty?).", call. = FALSE)
  metrics <- as.list(run$metrics)
  metrics$global_step <- run$global_step
  write_eval_summaries(object, metrics, name)
  unlist(metrics)
}

same_model <- function(a, b) {
  identical(a$state, b$state) || identical(model_signature(a), model_signature(b))
}

# Gives in-memory evaluators their evaluation callback on the engine being
# trained, and points early-stopping hooks at the evaluator of their estimator.
# The evaluation an in-memory evaluator hook runs: a closure of its own
# frame, so that several evaluators of one train() call each keep their
# input, steps, hooks and name.
evaluation_of <- function(h, ptr) {
  est <- h$estimator
  input <- h$input_fn
  steps <- h$steps
  eval_hooks <- h$hooks
  name <- h$name
  function() evaluate_now(est, ptr, input, steps, eval_hooks, name)
}

wire_evaluation_hooks <- function(object, hooks) {
  ptr <- estimator_ptr(object)
  types <- vapply(hooks, function(h) h$type, "")
  evaluators <- which(types == "in_memory_evaluator")
  for (i in evaluators) {
    h <- hooks[[i]]
    if (!same_model(h$estimator, object)) {
      stop("hook_in_memory_evaluator(): `estimator` must be the estimator being trained (or one with the same feature columns and head).",
           call. = FALSE)
    }
    hooks[[i]]$evaluate <- evaluation_of(h, ptr)
  }
  for (i in which(types == "early_stopping")) {
    h <- hooks[[i]]
    match <- evaluators[vapply(evaluators, function(k) same_model(hooks[[k]]$estimator, h$estimator), TRUE)]
    hooks[[i]]["in_memory_evaluator"] <- list(if (length(match)) match[1] else NULL)
    if (isTRUE(h$restore_best) && length(match) == 0L) {
      stop("restore_best = TRUE needs a hook_in_memory_evaluator() of the same estimator in the same train() call (the weights of an evaluation read from event files are gone).",
           call. = FALSE)
    }
    hooks[[i]]$model_dir <- object$spec$model_dir
    hooks[[i]]$keep_checkpoint_max <- object$spec$config$keep_checkpoint_max %||% 0
  }
  hooks
}

# The in-memory evaluations of a run as a data frame: steps, then
# eval_<metric> columns (eval_<name>_<metric> for further named evaluators).
evaluations_table <- function(evaluations, hooks) {
  if (length(evaluations) == 0L) return(NULL)
  names_of <- vapply(hooks[vapply(hooks, function(h) identical(h$type, "in_memory_evaluator"), TRUE)],
                     function(h) h$name %||% "", "")
  tables <- lapply(seq_along(evaluations), function(k) {
    ev <- evaluations[[k]]
    if (length(ev$steps) == 0L) return(NULL)
    m <- do.call(rbind, lapply(ev$metrics, function(v) v[order(names(v), method = "radix")]))
    prefix <- if (k == 1L || !nzchar(names_of[k])) "eval_" else paste0("eval_", names_of[k], "_")
    df <- data.frame(steps = ev$steps)
    for (j in seq_len(ncol(m))) df[[paste0(prefix, colnames(m)[j])]] <- m[, j]
    df
  })
  tables <- tables[!vapply(tables, is.null, TRUE)]
  if (length(tables) == 0L) return(NULL)
  Reduce(function(a, b) merge(a, b, by = "steps", all = TRUE), tables)
}
