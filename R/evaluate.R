#' Evaluate an estimator
#'
#' Computes the head's metrics over the input (or its first `steps` batches)
#' with the estimator's current weights. Regressors report `average_loss`,
#' `label/mean`, `loss` and `prediction/mean`; binary classifiers add
#' `accuracy`, `accuracy_baseline`, `auc`, `auc_precision_recall`,
#' `precision` and `recall`; multi-class classifiers `accuracy`. `loss` is the
#' mean over batches of the batch's summed loss, `average_loss` the mean
#' per-example loss. With a `weight_column`, every metric is weighted as in
#' TensorFlow: means are `sum(w * v) / sum(w)`, accuracy, precision, recall
#' and AUC count each example by its weight, and `loss` is the mean over
#' batches of each batch's weighted training loss (see [linear_estimators]).
#' `global_step` is appended. The metrics are also written
#' as TensorBoard scalars at that global step (see [read_summaries()]) and
#' logged with [message()].
#'
#' Over the whole input (`steps = NULL`) the rows are read in order whatever
#' the input's `shuffle`: every row is read once either way, so the order
#' cannot change the metrics beyond float rounding, and reading in order is
#' several times faster. With `steps`, the input's `shuffle` decides which
#' rows the first batches hold.
#'
#' @inheritParams train
#' @param steps Number of batches to evaluate, or `NULL` for the whole input.
#' @param checkpoint_path `NULL` for the estimator's current state, or the
#'   path of a checkpoint file (or its prefix, such as `<model_dir>/model.ckpt-100`)
#'   to use instead, leaving the estimator unchanged.
#' @param name `NULL`, or a name for this evaluation: its summaries go to
#'   `model_dir/eval_<name>` instead of `model_dir/eval`.
#' @param simplify `TRUE` for a one-row data frame, `FALSE` for a named list.
#' @param ... With a data frame as `input_fn`: `response`, `batch_size`,
#'   `shuffle`, `num_epochs` (or `epochs`), as for [train()]. Any other argument is an
#'   error naming the nearest valid one.
#' @section Untrained estimators:
#' An estimator that never trained (global step 0, no checkpoint in its
#' `model_dir`) can not be evaluated: that is an error, with the message of
#' TensorFlow 1.3 to 1.7 ("Could not find trained model in model_dir: <dir>.";
#' later versions logged it and went on with the initial weights, whose
#' metrics mean nothing). An estimator read back by
#' `readRDS()` or [load_estimator()], or whose `model_dir` holds checkpoints
#' written by another estimator object or process, is trained.
#' @return A one-row data frame of metrics, of class `tf_estimator_metrics`
#'   (or a named list); [tidy()][tidy.tf_estimator_metrics()] turns it into
#'   yardstick's long form.
#' @family estimator methods
#' @export
#' @examples
#' fcs <- feature_columns(column_numeric("drat"))
#' input <- input_fn(mtcars, response = "mpg", features = "drat", batch_size = 8L)
#' est <- linear_regressor(feature_columns = fcs)
#' train(est, input_fn = input, steps = 4)
#' evaluate(est, input_fn = input)
evaluate <- function(object, ...) {
  UseMethod("evaluate")
}

#' @rdname evaluate
#' @export
evaluate.tf_estimator <- function(object, input_fn, steps = NULL, checkpoint_path = NULL,
                                  name = NULL, hooks = NULL, simplify = TRUE, ...) {
  steps <- check_steps(steps, "steps")
  check_not_sparse(input_fn, "input_fn", "evaluate")
  if (is.data.frame(input_fn)) {
    input_fn <- data_input(object, input_fn, "eval", "evaluate", ...)
  } else {
    check_method_dots(dots_names(...), "evaluate", evaluate.tf_estimator)
  }
  eval_dir(object, name)
  hooks <- refuse_training_only(normalize_hooks(hooks), "evaluate()")
  if (is.null(checkpoint_path)) check_model_trained(object, estimator_ptr(object))
  hooks <- evaluation_hooks(object, hooks, steps)
  run <- run_session(object, input_fn, "eval", hooks, checkpoint_path = checkpoint_path,
                     in_order = is.null(steps))
  if (run$steps == 0) {
    abort("evaluate(): the input produced no batches (is the data empty?).")
  }
  metrics <- as.list(run$metrics)
  metrics$global_step <- run$global_step
  write_eval_summaries(object, metrics, name)
  if (!isTRUE(simplify)) return(metrics)
  metrics_frame(metrics)
}

# The hooks of an evaluate() call (the defaults, then the stop after
# `steps`), prepared; kept in the estimator's call cache for the next call
# with identical hooks, steps and progress option.
evaluation_hooks <- function(object, hooks, steps) {
  key <- list(hooks, steps, getOption("cppestimators.progress", TRUE))
  memo(object, "evaluation_hooks", key, function(key) {
    hooks <- with_defaults(hooks, list(hook_history_saver(10), hook_progress_bar()))
    if (!is.null(steps)) hooks <- c(hooks, list(new_hook("stop_after_steps", list(steps = steps))))
    prepare_hooks(hooks, object, "eval", "Evaluating", steps)
  })
}

# evaluate()'s one-row data frame of metrics: what as.data.frame() gives
# for a list of unnamed scalars, built directly (as.data.frame() of a list
# costs ~0.3 ms); other lists go through as.data.frame().
metrics_frame <- function(metrics) {
  scalar <- vapply(metrics, function(v) is.atomic(v) && length(v) == 1L && is.null(names(v)), TRUE)
  out <- if (all(scalar) && !anyDuplicated(names(metrics)) && all(nzchar(names(metrics)))) {
    structure(metrics, row.names = c(NA, -1L), class = "data.frame")
  } else {
    as.data.frame(metrics, check.names = FALSE, stringsAsFactors = FALSE)
  }
  class(out) <- c("tf_estimator_metrics", class(out))
  out
}

# Evaluates the engine `ptr` as it is, for `object`'s head and input: no
# checkpoint, no look at model_dir. Returns the metrics with global_step.
evaluate_now <- function(object, ptr, input_fn, steps, hooks, name) {
  hooks <- normalize_hooks(hooks)
  if (!is.null(steps)) hooks <- c(hooks, list(new_hook("stop_after_steps", list(steps = steps))))
  hooks <- prepare_hooks(hooks, object, "eval", "Evaluating", steps, ptr = ptr)
  run <- run_session(object, input_fn, "eval", hooks, ptr = ptr, in_order = is.null(steps))
  # interrupted inside a training session, which stops in order (the engine
  # reads NULL as the interrupt)
  if (is.null(run)) return(NULL)
  if (run$steps == 0) abort("the evaluation input produced no batches (is the data empty?).")
  metrics <- as.list(run$metrics)
  metrics$global_step <- run$global_step
  write_eval_summaries(object, metrics, name)
  unlist(metrics)
}

# The in-memory evaluations of a run as a data frame: steps, then
# eval_<metric> columns (eval_<name>_<metric> for further named evaluators).
evaluations_table <- function(evaluations) {
  if (length(evaluations) == 0L) return(NULL)
  tables <- lapply(seq_along(evaluations), function(k) {
    ev <- evaluations[[k]]
    if (length(ev$steps) == 0L) return(NULL)
    m <- do.call(rbind, lapply(ev$metrics, function(v) v[order(names(v), method = "radix")]))
    prefix <- if (k == 1L || !nzchar(ev$name)) "eval_" else paste0("eval_", ev$name, "_")
    df <- data.frame(steps = ev$steps)
    for (j in seq_len(ncol(m))) df[[paste0(prefix, colnames(m)[j])]] <- m[, j]
    df
  })
  tables <- tables[!vapply(tables, is.null, TRUE)]
  if (length(tables) == 0L) return(NULL)
  Reduce(function(a, b) merge(a, b, by = "steps", all = TRUE), tables)
}
