#' Variables of an estimator
#'
#' `variable_names()` lists the estimator's variables, sorted, with
#' `global_step` first: the model's weights
#' (`linear/linear_model/<column>/weights`, `linear/linear_model/bias_weights`,
#' `linear/linear_model/<column>/embedding_weights` for embedding columns)
#' and the optimizer's slots (for example `.../weights/Ftrl`). Slot names are
#' an implementation detail. `variable_value()` returns their current values
#' as a named list: vectors, or matrices with one row per input (or id) and
#' one column per output unit. `coef()` gives a linear estimator's weights by
#' feature, with `(Intercept)` for the bias: one row per numeric value
#' (`x`, or `x[1]`, `x[2]`, ... for a multi-valued feature) and one row per
#' id of a categorical column (`education[Masters]` for vocabulary columns
#' and `education_indicator[Masters]` for indicator columns over them,
#' `age_bucketized[3]` for the others, ids counted from 0).
#'
#' @param object An estimator.
#' @param names Variable names; all by default.
#' @param ... Unused: any argument given there is an error.
#' @return `variable_names()`: a character vector. `variable_value()`: a named
#'   list. `coef()`: a named numeric vector (one output unit) or a matrix
#'   (one column per unit).
#' @family estimator methods
#' @export
#' @examples
#' fcs <- feature_columns(column_numeric("drat", "wt"))
#' input <- input_fn(mtcars, response = "mpg", features = c("drat", "wt"), batch_size = 8L)
#' est <- linear_regressor(feature_columns = fcs)
#' train(est, input_fn = input, steps = 4)
#' variable_names(est)
#' variable_value(est, "global_step")
#' coef(est)
variable_names <- function(object, ...) {
  check_dots(dots_names(...), "variable_names", character())
  check_estimator(object)
  ptr <- estimator_ptr(object)
  sync_from_model_dir(object, ptr)
  check_trained(object, ptr, "variable_names")
  vars <- cpp_estimator_variable_names(ptr)
  c("global_step", sort(setdiff(vars, "global_step"), method = "radix"))
}

#' @rdname variable_names
#' @export
variable_value <- function(object, names = NULL, ...) {
  check_dots(dots_names(...), "variable_value", "names")
  check_estimator(object)
  ptr <- estimator_ptr(object)
  sync_from_model_dir(object, ptr)
  check_trained(object, ptr, "variable_value")
  names <- names %||% variable_names(object)
  if (!is.character(names)) abort("`names` must be a character vector of variable names.")
  check_variable_names(names, object)
  stats::setNames(lapply(names, function(n) cpp_estimator_variable(ptr, n)), names)
}

#' @rdname variable_names
#' @export
coef.tf_estimator <- function(object, ...) {
  if (!model_trait(estimator_model(object$spec), "coefficients")) {
    abort(paste0("coef() gives the weights of linear estimators; use variable_value() for ", object$spec$name, "()."))
  }
  check_dots(dots_names(...), "coef", character())
  ptr <- estimator_ptr(object)
  sync_from_model_dir(object, ptr)
  check_trained(object, ptr, "coef")
  cols <- object$spec$feature_columns
  cols <- cols[order(vapply(cols, function(c) c$name, ""), method = "radix")]
  rows <- list(cpp_estimator_variable(ptr, "linear/linear_model/bias_weights"))
  labels <- "(Intercept)"
  for (col in cols) {
    w <- cpp_estimator_variable(ptr, sprintf("linear/linear_model/%s/weights", col$name))
    rows <- c(rows, lapply(seq_len(nrow(w)), function(i) w[i, ]))
    labels <- c(labels, weight_labels(col, nrow(w)))
  }
  m <- do.call(rbind, rows)
  rownames(m) <- labels
  if (ncol(m) == 1L) return(stats::setNames(m[, 1], labels))
  colnames(m) <- if (!is.null(object$spec$label_vocabulary)) object$spec$label_vocabulary else
    paste0("unit", seq_len(ncol(m)) - 1L)
  m
}

# Row names of a column's weights in coef(): the feature for a one-valued
# numeric column, "name[i]" otherwise, vocabulary words where there are some
# (an indicator column's from its vocabulary column, as in
# boosted_trees_feature_importance()).
weight_labels <- function(col, n) {
  numeric <- is_numeric_column(col)
  if (n == 1L && numeric) return(col$name)
  words <- column_vocabulary_words(col)
  if (length(words) && n >= length(words)) {
    oov <- if (n > length(words)) paste0("oov", seq_len(n - length(words)))
    return(paste0(col$name, "[", c(words, oov), "]"))
  }
  paste0(col$name, "[", seq_len(n) - 1L + numeric, "]")
}

# Unknown variable names: TensorFlow's "Variable not found", with the
# nearest known name and the first known ones.
check_variable_names <- function(names, object) {
  known <- variable_names(object)
  bad <- names[!(names %in% known | sub(":[0-9]+$", "", names) %in% known)]
  if (!length(bad)) return(invisible())
  d <- utils::adist(bad[1], known)[1, ]
  near <- known[which.min(d)]
  abort(sprintf("Variable not found: %s; did you mean '%s'? The estimator's variables are %s (see variable_names()).",
                bad[1], near, name_list(known, max = 10L)), class = "cppestimators_unknown_variable")
}

check_estimator <- function(object) {
  if (!inherits(object, "tf_estimator")) {
    abort(paste0("`object` must be an estimator, not ", describe(object), "."))
  }
}

# tfestimators' error for an estimator that never trained and whose
# model_dir holds no checkpoint.
check_trained <- function(object, ptr, fn) {
  if (cpp_estimator_global_step(ptr) > 0) return(invisible())
  dir <- object$spec$model_dir
  if (!is.null(dir) && nzchar(cpp_latest_checkpoint(dir))) return(invisible())
  abort(sprintf("'%s()' must be called on a trained model", fn))
}
