# tf$metrics: TensorFlow 1.x's streaming metrics for `eval_metric_ops`.
# Each returns a metric object (class cppestimators_tf_metric): list(kind,
# labels, predictions, weights (tensors or NULL), num_thresholds), which
# tf_graph_spec() turns into the engine's metric specs; the engine
# accumulates them over the evaluation's batches.

new_tf_metric <- function(kind, labels, predictions, weights = NULL, num_thresholds = 200L, fn = kind) {
  fn <- sprintf("tf$metrics$%s()", fn)
  g <- tf_graph_of(labels, predictions, weights)
  what <- if (kind == "mean") "values" else "predictions"
  if (is.null(predictions)) abort(sprintf("%s: `%s` is missing.", fn, what), class = "cppestimators_tf_type_error")
  predictions <- as_tf_tensor(predictions, g, arg = what)
  if (!is.null(labels)) {
    labels <- as_tf_tensor(labels, g, arg = "labels")
    if (tf_per_row(labels$shape) != tf_per_row(predictions$shape) ||
          is_batched(labels$shape) != is_batched(predictions$shape)) {
      abort(sprintf(paste0("%s: labels %s and predictions %s must have the same number of values per row ",
                           "(a trailing dimension of 1 is squeezed)."), fn, format_tf_shape(labels$shape),
                    format_tf_shape(predictions$shape)), class = "cppestimators_tf_shape_error")
    }
  }
  if (!is.null(weights)) weights <- as_tf_tensor(weights, g, "float32", "weights")
  structure(list(kind = kind, labels = labels, predictions = predictions, weights = weights,
                 num_thresholds = as.integer(num_thresholds)), class = "cppestimators_tf_metric")
}

#' @export
print.cppestimators_tf_metric <- function(x, ...) {
  parts <- vapply(c("labels", "predictions", "weights"), function(f) {
    if (is.null(x[[f]])) "" else sprintf(" %s=%s", f, x[[f]]$name)
  }, "")
  cat(sprintf("<tf metric %s:%s>\n", x$kind, paste(parts, collapse = "")))
  invisible(x)
}

# The engine's metric specs of eval_metric_ops (a named list of metrics).
tf_metric_specs <- function(g, eval_metric_ops) {
  if (is.null(eval_metric_ops) || length(eval_metric_ops) == 0L) return(list())
  nms <- names(eval_metric_ops)
  if (!is.list(eval_metric_ops) || is.null(nms) || any(!nzchar(nms)) || anyDuplicated(nms)) {
    abort("`eval_metric_ops` must be a named list of tf$metrics results (distinct names).",
          class = "cppestimators_tf_spec_error")
  }
  Map(function(m, nm) {
    if (!inherits(m, "cppestimators_tf_metric")) {
      abort(sprintf("eval_metric_ops '%s' must be a tf$metrics result (e.g. tf$metrics$accuracy()), not %s.", nm,
                    describe(m)), class = "cppestimators_tf_spec_error")
    }
    id <- function(t) {
      if (is.null(t)) return(-1)
      tf_same_graph(t, g, sprintf("eval_metric_ops '%s'", nm))
      as.numeric(t$id)
    }
    list(kind = m$kind, name = nm, labels = id(m$labels), predictions = id(m$predictions), weights = id(m$weights),
         num_thresholds = as.numeric(m$num_thresholds))
  }, unname(eval_metric_ops), nms)
}

tf_metrics_accuracy <- function(labels, predictions, weights = NULL, metrics_collections = NULL,
                                updates_collections = NULL, name = NULL) {
  g <- tf_graph_of(labels, predictions)
  # TF casts the predictions to the labels' dtype
  if (is_tf_tensor(labels) && is_tf_tensor(predictions)) predictions <- tf_cast_to(predictions, labels$dtype)
  new_tf_metric("accuracy", labels, predictions, weights)
}

tf_metrics_auc <- function(labels, predictions, weights = NULL, num_thresholds = 200L, metrics_collections = NULL,
                           updates_collections = NULL, curve = "ROC", name = NULL,
                           summation_method = "trapezoidal") {
  check_choice(curve, "curve", c("ROC", "PR"))
  if (curve == "PR") {
    abort("tf$metrics$auc(curve = \"PR\") is not supported by cppestimators: only the ROC curve.",
          class = "cppestimators_unsupported_tf")
  }
  num_thresholds <- check_whole(num_thresholds, "num_thresholds", min = 2, null_ok = FALSE)
  new_tf_metric("auc", labels, predictions, weights, num_thresholds)
}

tf_metrics_mean <- function(values, weights = NULL, metrics_collections = NULL, updates_collections = NULL,
                            name = NULL) {
  new_tf_metric("mean", NULL, values, weights)
}

tf_metrics_mean_squared_error <- function(labels, predictions, weights = NULL, metrics_collections = NULL,
                                          updates_collections = NULL, name = NULL) {
  new_tf_metric("mean_squared_error", labels, predictions, weights)
}

tf_metrics_root_mean_squared_error <- function(labels, predictions, weights = NULL, metrics_collections = NULL,
                                               updates_collections = NULL, name = NULL) {
  new_tf_metric("root_mean_squared_error", labels, predictions, weights)
}

tf_metrics_mean_absolute_error <- function(labels, predictions, weights = NULL, metrics_collections = NULL,
                                           updates_collections = NULL, name = NULL) {
  new_tf_metric("mean_absolute_error", labels, predictions, weights)
}

tf_metrics_precision <- function(labels, predictions, weights = NULL, metrics_collections = NULL,
                                 updates_collections = NULL, name = NULL) {
  new_tf_metric("precision", labels, predictions, weights)
}

tf_metrics_recall <- function(labels, predictions, weights = NULL, metrics_collections = NULL,
                              updates_collections = NULL, name = NULL) {
  new_tf_metric("recall", labels, predictions, weights)
}
