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
#' @param predict_keys Which predictions to return (unique abbreviations
#'   allowed), or `NULL` for all; keys the estimator's head does not produce
#'   are skipped, and a key that is not one of these is an error.
#' @param as_iterable,yield_single_examples Accepted for compatibility; ignored.
#' @param simplify `TRUE` for a data frame, `FALSE` for a list with one
#'   element per example.
#' @param type `NULL` for TensorFlow's predictions (above); or, as parsnip
#'   names them, `"numeric"` (regressors: a column `.pred`, or `.pred_1`,
#'   ... for several targets), `"class"` (classifiers: `.pred_class`, a
#'   factor whose levels are the classes: `label_vocabulary`, else the
#'   levels of the factor response trained on, else `"0"`, `"1"`, ...) or
#'   `"prob"` (classifiers: one column `.pred_<class>` of probabilities per
#'   class, summing to 1 across a row); or `"contributions"`: per example,
#'   each input feature's contribution to the model's margin (the logit of
#'   the second class of a binary classifier, the prediction of a
#'   regressor) and `.baseline`, which they add up to the margin from
#'   (exact TreeSHAP of boosted trees grown by histograms, by the covers
#'   recorded in training; for linear models, each weight times the value's
#'   distance from its mean, see `reference`; for a DNN, integrated
#'   gradients (Sundararajan et al. 2017) of the logit with respect to its
#'   input layer, from the mean input-layer row of `reference` (the
#'   baseline) to the example, summed per feature, which add up to the logit
#'   up to the integral's error (see `integration_steps`); a feature read by several columns gets the sum of
#'   their contributions). TensorFlow's growth records each split's covers
#'   (its sides' hessian sums, from the statistics that split it); a model
#'   saved before they were recorded has none, and its contributions are an
#'   error of class `cppestimators_no_covers` (its `"dfc"` are not). For several logits (multi-class classifiers,
#'   multi-target regressors), a list of such data frames, one per class or
#'   target. Missing values take the trees' default directions. Or
#'   `"interactions"`: SHAP interaction values, per example an array
#'   `[example, feature, feature]` whose row for a feature sums to its
#'   contribution (its own effect on the diagonal), with `.baseline` in the
#'   last cell, as xgboost's `predinteraction` lays them out. Or `"dfc"`
#'   (boosted trees of TensorFlow's growth): TensorFlow's directional
#'   feature contributions, as its `experimental_predict_with_explanations()`
#'   gave them: along the example's path through the trees in order, the
#'   change of the prediction (a binary classifier's probability of its
#'   second class, a regressor's prediction) at each split goes to the
#'   split's feature; `.baseline` is the bias (the first tree's root, the
#'   centered prior) on the same scale; they sum to the prediction. As in
#'   TensorFlow, it needs `center_bias = TRUE` and one logit. A parsnip
#'   fit of the "cppestimators" engine, or a fitted workflow, is explained
#'   by [fit_contributions()] (parsnip passes no engine-specific prediction
#'   type), which runs a workflow's preprocessing first.
#' @param reference With `type = "contributions"` of a linear model: a data
#'   frame of reference rows (the training data or a sample of it); each
#'   feature's contribution is its weight times its value minus its mean
#'   there (for a categorical feature, its category's weight minus the mean
#'   weight), and `.baseline` the prediction at those means. Not needed when
#'   every column is numeric and standardized in the engine
#'   ([normalizer_standardize()]): their means are 0. A DNN needs it: its
#'   baseline is the mean of these rows' input layer (numeric values,
#'   one-hot and embedding vectors). Trees need none (their baseline is the
#'   expectation over the covers recorded in training).
#' @param integration_steps With `type = "contributions"` of a DNN: the
#'   steps of the integral of the gradients (the midpoint rule): more steps,
#'   a smaller gap between the contributions' sum and the logit.
#' @param na_rows With a data frame as `input_fn`: `"na"` (the default)
#'   predicts `NA` for the rows with a missing value in a numeric feature
#'   (or in a categorical one whose vocabulary column has no
#'   out-of-vocabulary bucket or default value), as `predict()` of `lm()`
#'   with `na.action = na.exclude` does; `"error"` makes such rows an error.
#' @param ... With a data frame as `input_fn`: `batch_size`, as for
#'   [train()]. Any other argument is an error naming the nearest valid
#'   one.
#' @section Explanations with shapviz and treeshap:
#' With the package shapviz installed, `shapviz::shapviz(est, X_pred = data)`
#' turns the contributions of `data`'s rows into a `"shapviz"` object (an
#' `"mshapviz"` of one per class for a multi-class classifier, unless
#' `which_class` picks one; `interactions = TRUE` adds the interaction
#' values; `reference` is passed on), for its plots (`sv_importance()`,
#' `sv_dependence()`, `sv_waterfall()`, ...). With treeshap installed,
#' `treeshap::unify(est, data)` gives the trees of a histogram growth over
#' raw numeric columns as treeshap's unified model (nodes, splits, leaf
#' values and the covers recorded in training), whose
#' `treeshap::treeshap()` values equal the contributions. The global
#' importance, mean absolute contributions: [contribution_importance()].
#' @section Untrained estimators:
#' Predicting with an estimator that never trained (global step 0, no
#' checkpoint in its `model_dir`) is an error, with TensorFlow's message
#' "Could not find trained model in model_dir: <dir>." (an error up to
#' TensorFlow 1.7, a log line later), instead of the outputs of the initial
#' weights. See [evaluate()].
#' @return A data frame with one row per example (or a list).
#' @family estimator methods
#' @export
#' @examples
#' fcs <- feature_columns(column_numeric("drat"))
#' input <- input_fn(mtcars, response = "mpg", features = "drat", batch_size = 8L)
#' est <- linear_regressor(feature_columns = fcs)
#' train(est, input_fn = input, steps = 4)
#' head(predict(est, input_fn = input))
#' head(predict(est, mtcars, type = "numeric"))
predict.tf_estimator <- function(object, input_fn, checkpoint_path = NULL,
                                 predict_keys = c("predictions", "classes", "class_ids",
                                                  "logistic", "logits", "probabilities"),
                                 hooks = NULL, as_iterable = FALSE, simplify = TRUE,
                                 yield_single_examples = TRUE, type = NULL, na_rows = c("na", "error"),
                                 reference = NULL, integration_steps = 50L, ...) {
  if (inherits(input_fn, "sparseMatrix")) input_fn <- input_fn(input_fn)
  if (identical(type, "contributions") || identical(type, "interactions") || identical(type, "dfc")) {
    if (is.data.frame(input_fn)) {
      input_fn <- data_input(object, input_fn, "infer", "predict", ...)
    } else {
      check_method_dots(dots_names(...), "predict", predict.tf_estimator)
    }
    return(predict_contributions(object, input_fn, checkpoint_path, kind = type, reference = reference,
                                 integration_steps = integration_steps))
  }
  if (is.data.frame(input_fn)) {
    na_rows <- match.arg(na_rows)
    incomplete <- if (na_rows == "na") incomplete_rows(object, input_fn)
    if (length(incomplete)) {
      return(predict_complete_rows(object, input_fn, incomplete, checkpoint_path = checkpoint_path,
                                   predict_keys = predict_keys, hooks = hooks, simplify = simplify,
                                   type = type, ...))
    }
    input_fn <- data_input(object, input_fn, "infer", "predict", ...)
  } else {
    check_method_dots(dots_names(...), "predict", predict.tf_estimator)
  }
  if (!is.null(type)) predict_keys <- prediction_type_key(object, type)
  predict_keys <- check_predict_keys(predict_keys)
  note_sparse_features(object, input_fn)
  ptr <- estimator_ptr(object)
  head_keys <- cpp_estimator_prediction_keys(ptr)
  keys <- head_keys[head_keys %in% predict_keys]
  if (length(keys) == 0L) {
    abort(sprintf("Expected to run at least one output from %s; this estimator produces %s.",
                  paste(predict_keys, collapse = ", "), paste(head_keys, collapse = ", ")))
  }
  hooks <- refuse_training_only(normalize_hooks(hooks), "predict()")
  if (is.null(checkpoint_path)) check_model_trained(object, ptr)
  hooks <- prepare_hooks(hooks, object, "infer", "Predicting", NULL)
  run <- run_session(object, input_fn, "infer", hooks,
                     predict_keys = keys,
                     checkpoint_path = checkpoint_path)
  if (!is.null(type)) return(tidy_predictions(object, type, run$predictions[[1]]))
  out <- lapply(names(run$predictions), function(k) {
    m <- run$predictions[[k]]
    if (k == "classes") return(class_labels(object, m))
    if (k == "class_ids") {
      if (!is.matrix(m)) return(as.integer(m))
      storage.mode(m) <- "integer"  # a multi-label classifier's: one column per label
      return(prediction_column(m))
    }
    prediction_column(m)
  })
  names(out) <- names(run$predictions)
  prediction_output(out, simplify)
}

# A key's predictions: a matrix as the list of its rows, else a vector.
prediction_column <- function(m) if (is.matrix(m)) cpp_matrix_rows(m) else as.vector(m)

# predict()'s result from its keys' columns: a data frame, or with
# `simplify = FALSE` a list of one list of keys per row.
prediction_output <- function(out, simplify) {
  if (!isTRUE(simplify)) {
    n <- length(out[[1]])
    return(lapply(seq_len(n), function(i) lapply(out, function(col) col[[i]])))
  }
  df <- data.frame(row.names = seq_along(out[[1]]))
  for (k in names(out)) df[[k]] <- out[[k]]
  df
}

# The rows of a data frame with a missing value (NA) that the model can not
# read: in a numeric feature, or a categorical one whose vocabulary column
# has no out-of-vocabulary bucket or default value. One pass in C over the
# columns when nothing is missing.
incomplete_rows <- function(object, data) {
  plan <- column_plan(object)
  # the histogram growths read missing numeric values (each split has a side for them)
  numeric_keys <- if (is_hist_trees(object)) character() else plan$numeric_keys
  keys <- intersect(c(numeric_keys, plan$strict_keys), names(data))
  if (!length(keys)) return(integer())
  # (read by class: an integer64's NA is not a double's)
  x <- read_columns(if (identical(keys, names(data))) as.list(data) else as.list(data)[keys], keys)
  if (!anyNA(x, recursive = TRUE)) return(integer())
  which(!stats::complete.cases(x))
}

# predict() of the complete rows, with NA for the others, in the input's
# order (as predict() of lm() with na.action = na.exclude).
predict_complete_rows <- function(object, data, incomplete, simplify, ...) {
  n <- nrow(data)
  keep <- setdiff(seq_len(n), incomplete)
  if (!length(keep)) {
    abort(sprintf(paste("predict(): every row of the data has a missing value (NA) in a feature the model",
                        "reads (%d rows): impute them or give complete rows."), n),
          class = "cppestimators_missing_values")
  }
  out <- predict(object, data[keep, , drop = FALSE], simplify = simplify, na_rows = "error", ...)
  at <- match(seq_len(n), keep)
  if (!isTRUE(simplify)) return(lapply(at, function(i) if (is.na(i)) NULL else out[[i]]))
  full <- out[at, , drop = FALSE]
  rownames(full) <- NULL
  full
}

# The keys asked of predict(), each a key of prediction_keys() or its unique
# abbreviation (as match.arg() allowed), or NULL for all of them.
check_predict_keys <- function(keys) {
  known <- eval(formals(predict.tf_estimator)$predict_keys)
  if (is.null(keys)) return(known)
  i <- if (is.character(keys) && length(keys) > 0L) pmatch(keys, known, duplicates.ok = TRUE)
  if (!is.character(keys) || length(keys) == 0L || anyNA(i)) {
    given <- if (is.character(keys) && length(keys) > 0L) {
      paste0("unknown: ", or_list(paste0('"', keys[is.na(i)], '"')))
    } else {
      paste("not", describe(keys))
    }
    abort(sprintf("`predict_keys` must be NULL or keys among %s; %s.",
                  paste0('"', known, '"', collapse = ", "), given))
  }
  unique(known[i])
}

class_labels <- function(object, ids) {
  vocab <- object$spec$label_vocabulary
  if (is.null(vocab)) as.character(as.integer(ids)) else vocab[ids + 1]
}

# The prediction key behind a parsnip-style prediction type.
prediction_type_key <- function(object, type) {
  check_choice(type, "type", c("numeric", "class", "prob"), null_ok = TRUE)
  regression <- is_regression_head(object$spec)
  if (regression != identical(type, "numeric")) {
    abort(sprintf("`type = \"%s\"` is not for a %s: %s.", type,
                  if (regression) "regressor" else "classifier",
                  if (regression) "a regressor predicts type = \"numeric\"" else
                    "a classifier predicts type = \"class\" or \"prob\""))
  }
  switch(type, numeric = "predictions", class = "class_ids", prob = "probabilities")
}

# The classes of a classifier, in class-id order.
class_levels <- function(object) {
  object$spec$label_vocabulary %||% object$state$response_levels %||%
    as.character(seq_len(max(2L, object$spec$head_n)) - 1L)
}

# Predictions as parsnip names them: .pred, .pred_class or .pred_<class>.
tidy_predictions <- function(object, type, m) {
  if (type == "numeric") {
    if (!is.matrix(m)) return(data.frame(.pred = as.numeric(m)))
    out <- as.data.frame(m)
    names(out) <- paste0(".pred_", output_names(object, ncol(m)))
    return(out)
  }
  lv <- class_levels(object)
  if (identical(object$spec$head, "multi_label") && type == "class") {
    out <- as.data.frame(m > 0.5)
    names(out) <- paste0(".pred_", lv)
    return(out)
  }
  if (type == "class") return(data.frame(.pred_class = factor(lv[as.integer(m) + 1L], levels = lv)))
  out <- as.data.frame(m)
  names(out) <- paste0(".pred_", lv)
  out
}
