# predict(), evaluate() and train() called on what train() returned: the
# training history, not the estimator. A pipe such as
# `lr <- linear_regressor(...) %>% train(...)` leaves the history in `lr`.

#' @rdname training_history
#' @param object A training history (as `predict()`, `evaluate()` or
#'   `train()` get it when given what `train()` returned): an error saying to
#'   call them on the estimator instead.
#' @export
predict.tf_estimator_history <- function(object, ...) history_not_estimator("predict")

#' @rdname training_history
#' @export
evaluate.tf_estimator_history <- function(object, ...) history_not_estimator("evaluate")

#' @rdname training_history
#' @export
train.tf_estimator_history <- function(object, ...) history_not_estimator("train")

history_not_estimator <- function(verb) {
  abort(paste0(
    "train() returns the training history; call ", verb, "() on the estimator:\n",
    "  est <- linear_regressor(...); train(est, ...)\n",
    "  ", verb, "(est, ...)"),
    class = "cppestimators_history_not_estimator")
}
