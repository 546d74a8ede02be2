#' Metrics in yardstick's long form
#'
#' `tidy()` of an [evaluate()] result (class `tf_estimator_metrics`) gives one
#' row per metric with yardstick's columns `.metric`, `.estimator` and
#' `.estimate`, so the metrics bind with those of `yardstick` and `tune`.
#' `tidy_metrics()` does the same for a plain data frame or list of metrics,
#' such as `evaluate(simplify = FALSE)` or a data frame that lost its class.
#' `global_step` is not a metric and is left out.
#'
#' Metrics named differently by yardstick take its names; the others keep
#' TensorFlow's, with `.estimator` `"standard"`:
#'
#' | `evaluate()`           | `.metric`     | `.estimator`                  |
#' |------------------------|---------------|-------------------------------|
#' | `accuracy`             | `accuracy`    | `binary` or `multiclass`      |
#' | `auc`                  | `roc_auc`     | `binary`                      |
#' | `auc_precision_recall` | `pr_auc`      | `binary`                      |
#' | `precision`            | `precision`   | `binary`                      |
#' | `recall`               | `recall`      | `binary`                      |
#' | `average_loss` (classifiers) | `mn_log_loss` | `binary` or `multiclass` |
#' | `average_loss` (regressors)  | `average_loss` (the mean squared error) | `standard` |
#' | `loss`, `label/mean`, `prediction/mean`, `accuracy_baseline` | unchanged | `standard` |
#'
#' The task is read from the metrics: a binary classifier's have `auc`, a
#' multi-class classifier's `accuracy` without `auc`, a regressor's neither.
#' TensorFlow's binary metrics take class 1 (the second label) as the event,
#' as yardstick does with `event_level = "second"`; `roc_auc` and `pr_auc`
#' are TensorFlow's approximations over 200 thresholds.
#'
#' @param x An [evaluate()] result; for `tidy_metrics()` also a one-row data
#'   frame or a named list of numbers.
#' @param ... Unused.
#' @return A data frame with columns `.metric`, `.estimator` and `.estimate`.
#' @family estimator methods
#' @export
#' @examples
#' fcs <- feature_columns(column_numeric("mpg", "wt"))
#' input <- function(...) {
#'   input_fn(mtcars, features = c("mpg", "wt"), response = "am", batch_size = 8L, ...)
#' }
#' est <- linear_classifier(feature_columns = fcs)
#' train(est, input_fn = input(num_epochs = NULL), steps = 40)
#' metrics <- evaluate(est, input_fn = input())
#' tidy(metrics)
#' tidy_metrics(evaluate(est, input_fn = input(), simplify = FALSE))
tidy.tf_estimator_metrics <- function(x, ...) {
  tidy_metrics(x)
}

#' @rdname tidy.tf_estimator_metrics
#' @export
tidy_metrics <- function(x) {
  if (is.data.frame(x)) {
    if (nrow(x) != 1L) abort(sprintf("tidy_metrics(): `x` must have one row of metrics, not %d.", nrow(x)))
    x <- as.list(x)
  }
  ok <- is.list(x) && length(x) > 0L && !is.null(names(x)) && all(nzchar(names(x))) &&
    all(vapply(x, function(v) is.numeric(v) && length(v) == 1L, TRUE))
  if (!ok) {
    abort(paste0("tidy_metrics(): `x` must be the result of evaluate(): named numbers, not ", describe(x), "."))
  }
  x <- x[names(x) != "global_step"]
  ours <- names(x)
  task <- if ("auc" %in% ours) "binary" else if ("accuracy" %in% ours) "multiclass" else "regression"
  renamed <- c(auc = "roc_auc", auc_precision_recall = "pr_auc")
  if (task != "regression") renamed <- c(renamed, average_loss = "mn_log_loss")
  by_task <- c("accuracy", "auc", "auc_precision_recall", "precision", "recall",
               if (task != "regression") "average_loss")
  metric <- ifelse(ours %in% names(renamed), renamed[ours], ours)
  estimator <- ifelse(ours %in% by_task, task, "standard")
  data.frame(.metric = unname(metric), .estimator = unname(estimator),
             .estimate = unname(vapply(x, as.numeric, 0)), stringsAsFactors = FALSE)
}

#' @details `tidy()` of a history is its long `as.data.frame()`.
#' @rdname training_history
#' @export
tidy.tf_estimator_history <- function(x, ...) {
  as.data.frame(x)
}
