#' Tidy summaries of an estimator
#'
#' Methods for the generics of the `generics` package (re-exported, so they
#' work after `library(cppestimators)`, and used by broom and tidymodels).
#' They return plain data frames and change nothing in the estimator.
#'
#' `tidy()` depends on the model:
#' * linear estimators: one row per weight, as [coef()] gives them: `term`
#'   (coef()'s name, `(Intercept)` for the bias), `column` (the feature
#'   column), `category` (`NA` for numeric columns; the vocabulary word, or
#'   `oov1`, `oov2`, ... for the out-of-vocabulary buckets, the bucket of a
#'   bucketized column as an interval such as `[18,25)`, the id for the other
#'   categorical columns), and `estimate`. A head with several outputs adds a
#'   column before `estimate`: `class` for multi-class classifiers (the label
#'   vocabulary, else `"0"`, `"1"`, ...), `output` (1, 2, ...) for regressors
#'   with `label_dimension > 1`; rows then go class by class.
#' * boosted trees: the features' importances from
#'   [boosted_trees_feature_importance()], as columns `term` and
#'   `importance`, most important first.
#' * DNN and wide & deep estimators: one row per variable of the model, as
#'   [variable_names()] lists them: `variable`, `shape` (TensorFlow's
#'   notation, `(2, 10)` for a kernel, `(10,)` for a bias) and `size` (number
#'   of values). `optimizer_state = TRUE` adds the global step and the
#'   optimizer's variables (such as `dnn/logits/kernel/Adagrad`).
#'
#' `glance()` gives one row: `model` (the constructor, such as
#' `"dnn_classifier"`), `mode` (`"regression"` or `"classification"`),
#' `global_step`, `loss` (the training loss of the last step, summed over its
#' batch as in TensorFlow 1.x), `examples_seen` (rows read by training since
#' global step 0) and `model_dir`. `loss` and `examples_seen` are those that
#' [train()] noted in this estimator object (kept by `saveRDS()`); they are
#' `NA` when this object did not train to its current global step (a
#' checkpoint written by another process, an estimator from
#' [load_estimator()][export_savedmodel()]). `loss` is the last value of the training history.
#'
#' `augment()` returns `new_data` with the prediction columns of
#' [predict()][predict.tf_estimator()] appended: `.pred` (`.pred_1`,
#' `.pred_2`, ... for `label_dimension > 1`) for regressors; `.pred_class`
#' and one `.pred_<level>` probability column per class for classifiers.
#'
#' @param x An estimator.
#' @param new_data A data frame holding the features the estimator's columns
#'   read.
#' @param normalize For boosted trees: divide the importances by their total.
#' @param optimizer_state For DNN and wide & deep estimators: also list the
#'   global step and the optimizer's variables.
#' @param original_scale For linear estimators: report the weights of
#'   numeric columns standardized by [normalizer_standardize()] (as
#'   [feature_columns_from_data()] makes them) or [normalizer_min_max()] on
#'   the scale of the data, as `lm()` and glmnet report theirs: each slope
#'   divided by the column's scale, the intercept adjusted for the shifts.
#'   `FALSE` gives the model's own weights, as [coef()] does.
#' @param ... Unused.
#' @return A data frame.
#' @seealso [tidy.tf_estimator_metrics()] for the results of [evaluate()],
#'   [training_history] for training histories.
#' @family estimator methods
#' @name tidy.tf_estimator
#' @examples
#' fcs <- feature_columns(column_numeric("drat", "wt"))
#' input <- input_fn(mtcars, response = "mpg", features = c("drat", "wt"), batch_size = 8L)
#' est <- linear_regressor(feature_columns = fcs)
#' train(est, input_fn = input, steps = 4)
#' tidy(est)
#' glance(est)
#'
#' dnn <- dnn_regressor(hidden_units = c(4, 2), feature_columns = fcs)
#' train(dnn, input_fn = input, steps = 2)
#' tidy(dnn)
NULL

#' @importFrom generics tidy glance augment
#' @export
generics::tidy
#' @export
generics::glance
#' @export
generics::augment

#' @rdname tidy.tf_estimator
#' @export
tidy.tf_estimator <- function(x, normalize = FALSE, optimizer_state = FALSE, original_scale = TRUE, ...) {
  check_flag(original_scale, "original_scale")
  out <- tidy_model(estimator_model(x$spec), x, normalize = normalize, optimizer_state = optimizer_state)
  if (original_scale && model_trait(estimator_model(x$spec), "coefficients")) {
    out <- original_scale_weights(out, x$spec$feature_columns)
  }
  out
}

# A linear model's weights on the scale of the data, for the numeric columns
# the engine normalizes (normalizer_standardize(), normalizer_min_max()):
# with z = (x - shift) / scale, w * z = (w / scale) * x - w * shift / scale,
# so each slope is divided by its scale and the intercept takes the shifts.
original_scale_weights <- function(out, cols) {
  groups <- if (!is.null(out$class)) out$class else if (!is.null(out$output)) out$output else rep(1L, nrow(out))
  for (col in cols) {
    norm <- if (is_numeric_column(col)) attr(col$normalizer_fn, "engine", exact = TRUE)
    if (is.null(norm)) next
    rows <- which(out$column == col$name)
    width <- length(rows) / length(unique(groups))
    shift <- rep_len(norm$shift, width)
    scale <- rep_len(norm$scale, width)
    for (g in unique(groups)) {
      r <- rows[groups[rows] == g]
      icpt <- which(out$term == "(Intercept)" & groups == g)
      w <- out$estimate[r]
      out$estimate[icpt] <- out$estimate[icpt] - sum(w * shift / scale)
      out$estimate[r] <- w / scale
    }
  }
  out
}

# tidy() of the estimator `x` by its model spec `model`: a linear model's
# weights, boosted trees' feature importances, the variables of the others.
tidy_model <- function(model, x, normalize, optimizer_state) UseMethod("tidy_model")

#' @export
tidy_model.cppestimators_model_linear <- function(model, x, normalize, optimizer_state) tidy_linear(x)

#' @export
tidy_model.cppestimators_model_boosted_trees <- function(model, x, normalize, optimizer_state) {
  imp <- boosted_trees_feature_importance(x, normalize = normalize)
  data.frame(term = names(imp) %||% character(), importance = unname(as.numeric(imp)),
             stringsAsFactors = FALSE)
}

#' @export
tidy_model.default <- function(model, x, normalize, optimizer_state) {
  check_flag(optimizer_state, "optimizer_state")
  tidy_variables(x, optimizer_state)
}

# One row per weight of a linear estimator, in coef()'s order.
tidy_linear <- function(x) {
  ptr <- estimator_ptr(x)
  sync_from_model_dir(x, ptr)
  cols <- x$spec$feature_columns
  cols <- cols[order(vapply(cols, function(c) c$name, ""), method = "radix")]
  bias <- cpp_estimator_variable(ptr, "linear/linear_model/bias_weights")
  weights <- list(matrix(bias, nrow = 1L))
  term <- "(Intercept)"
  column <- "(Intercept)"
  category <- NA_character_
  for (col in cols) {
    w <- cpp_estimator_variable(ptr, sprintf("linear/linear_model/%s/weights", col$name))
    w <- matrix(w, ncol = length(bias))
    weights <- c(weights, list(w))
    term <- c(term, weight_labels(col, nrow(w)))
    column <- c(column, rep(col$name, nrow(w)))
    category <- c(category, column_weight_categories(col, nrow(w)))
  }
  m <- do.call(rbind, weights)
  k <- ncol(m)
  out <- data.frame(term = rep(term, k), column = rep(column, k), category = rep(category, k),
                    stringsAsFactors = FALSE)
  if (k > 1L) {
    if (is_regression_head(x$spec)) {
      out$output <- rep(output_names(x, k), each = nrow(m))
    } else {
      out$class <- rep(x$spec$label_vocabulary %||% as.character(seq_len(k) - 1L), each = nrow(m))
    }
  }
  out$estimate <- as.numeric(m)
  out
}

# One row per variable of the model, with its shape.
tidy_variables <- function(x, optimizer_state) {
  values <- variable_value(x)
  vars <- names(values)
  if (!optimizer_state) vars <- vars[!is_optimizer_state(vars)]
  dims <- lapply(values[vars], function(v) if (is.null(dim(v))) length(v) else dim(v))
  shape <- vapply(dims, function(d) {
    if (length(d) == 1L) sprintf("(%d,)", as.integer(d)) else sprintf("(%s)", paste(as.integer(d), collapse = ", "))
  }, "")
  data.frame(variable = vars, shape = unname(shape), size = vapply(dims, function(d) prod(as.numeric(d)), 0),
             stringsAsFactors = FALSE, row.names = NULL)
}

# The global step and the optimizer's variables: slots (a variable's name
# with a suffix, such as `.../kernel/Adagrad`) and Adam's beta powers.
is_optimizer_state <- function(vars) {
  parent <- sub("/[^/]*$", "", vars)
  vars == "global_step" | (parent != vars & parent %in% vars) | grepl("(^|/)beta[12]_power$", vars)
}

#' @rdname tidy.tf_estimator
#' @export
glance.tf_estimator <- function(x, ...) {
  ptr <- estimator_ptr(x)
  sync_from_model_dir(x, ptr)
  step <- cpp_estimator_global_step(ptr)
  rec <- training_record(x, step)
  data.frame(
    model = x$spec$name,
    mode = estimator_mode(x$spec),
    global_step = as.numeric(step),
    loss = if (is.null(rec)) NA_real_ else rec$loss,
    examples_seen = if (!is.null(rec)) rec$examples_seen else if (step == 0) 0 else NA_real_,
    model_dir = x$spec$model_dir %||% NA_character_,
    stringsAsFactors = FALSE
  )
}

#' @rdname tidy.tf_estimator
#' @export
augment.tf_estimator <- function(x, new_data, ...) {
  if (missing(new_data) || !is.data.frame(new_data)) {
    given <- if (missing(new_data)) "nothing" else describe(new_data)
    abort(paste0("augment(): `new_data` must be a data frame, not ", given, "."))
  }
  types <- if (is_regression_head(x$spec)) "numeric" else c("class", "prob")
  out <- new_data
  for (type in types) {
    pred <- predict(x, new_data, type = type)
    for (nm in names(pred)) out[[nm]] <- pred[[nm]]
  }
  out
}
