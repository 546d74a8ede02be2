#' Predict with an estimator
#'
#' Runs the model over the input (in order, without shuffling) and returns one
#' row per example. Scalar keys (`predictions` of a one-target regressor,
#' `logits` and `logistic` of a binary classifier, `class_ids`, `classes`)
#' are plain columns; vector keys (`probabilities`, multi-class `logits`,
#' multi-target `predictions`) are list columns.
#'
#' @inheritParams train
#' @param object An estimator.
#' @param checkpoint_path `NULL` for the estimator's current state, or the
#'   path of a checkpoint file (or its prefix, such as `<model_dir>/model.ckpt-100`)
#'   to use instead, leaving the estimator unchanged.
#' @param predict_keys Which predictions to return; keys the estimator's head
#'   does not produce are skipped.
#' @param as_iterable,yield_single_examples Accepted for compatibility; ignored.
#' @param simplify `TRUE` for a data frame, `FALSE` for a list with one
#'   element per example.
#' @return A data frame with one row per example (or a list).
#' @family estimator methods
#' @export
#' @examples
#' fcs <- feature_columns(column_numeric("drat"))
#' input <- input_fn(mtcars, response = "mpg", features = "drat", batch_size = 8L)
#' est <- linear_regressor(feature_columns = fcs)
#' train(est, input_fn = input, steps = 4)
#' head(predict(est, input_fn = input))
predict.tf_estimator <- function(object, input_fn, checkpoint_path = NULL,
                                 predict_keys = c("predictions", "classes", "class_ids",
                                                  "logistic", "logits", "probabilities"),
                                 hooks = NULL, as_iterable = FALSE, simplify = TRUE,
                                 yield_single_examples = TRUE, ...) {
  all_keys <- eval(formals(sys.function())$predict_keys)
  predict_keys <- match.arg(predict_keys, all_keys, several.ok = TRUE)
  ptr <- estimator_ptr(object)
  head_keys <- cpp_estimator_prediction_keys(ptr)
  keys <- head_keys[head_keys %in% predict_keys]
  if (length(keys) == 0L) {
    stop(sprintf("Expected to run at least one output from %s; this estimator produces %s.",
                 paste(predict_keys, collapse = ", "), paste(head_keys, collapse = ", ")),
         call. = FALSE)
  }
  hooks <- refuse_training_only(normalize_hooks(hooks), "predict()")
  hooks <- prepare_hooks(hooks, object, "infer", "Predicting", NULL)
  run <- run_session(object, input_fn, "infer", hooks,
                     predict_keys = keys,
                     checkpoint_path = checkpoint_path)
  out <- lapply(names(run$predictions), function(k) {
    m <- run$predictions[[k]]
    if (k == "classes") return(class_labels(object, m))
    if (k == "class_ids") return(as.integer(m))
    if (!is.matrix(m)) return(m)
    lapply(seq_len(nrow(m)), function(i) m[i, ])
  })
  names(out) <- names(run$predictions)
  if (!isTRUE(simplify)) {
    n <- length(out[[1]])
    return(lapply(seq_len(n), function(i) lapply(out, function(col) col[[i]])))
  }
  df <- data.frame(row.names = seq_along(out[[1]]))
  for (k in names(out)) df[[k]] <- out[[k]]
  df
}

class_labels <- function(object, ids) {
  vocab <- object$spec$label_vocabulary
  if (is.null(vocab)) as.character(as.integer(ids)) else vocab[ids + 1]
}
