#' Numeric feature columns
#'
#' A column that reads a numeric feature by name: a plain numeric vector, or a
#' matrix with `prod(shape)` columns for a multi-valued feature.
#'
#' @param ... Names of the features: bare names or strings, or a tidyselect
#'   selection such as `starts_with("Sepal")` among the active names (see
#'   [feature_columns()] and [with_columns()]). Several names give one column
#'   each.
#' @param shape An integer vector: the shape of one example's value. The
#'   column contributes `prod(shape)` inputs.
#' @param default_value The value of a `tf.Example` record that lacks the
#'   feature, used only by [make_parse_example_spec()] (data frames and
#'   other inputs are read as they are).
#' @param dtype The value type: `"float32"` (the default; values are used in
#'   single precision, as TensorFlow did), `"float64"`, `"int32"` or
#'   `"int64"`, by name or as the [tf] object's dtype (`tf$float32`, ...).
#' @param normalizer_fn `NULL`, or an R function applied once to the feature's
#'   values before training, evaluation or prediction (for example to scale
#'   them), such as [normalizer_standardize()]. See Normalizers.
#' @param sparse Whether linear models and DNNs read the feature's values as
#'   sparse: a row's non-zero values only, as a linear model sums them and a
#'   DNN's first layer multiplies them, without a dense block of rows x
#'   `prod(shape)` values. The feature may be a sparse matrix (a
#'   `Matrix::dgCMatrix`) either way; when the first data an estimator sees
#'   for a column holds one, the column is read as sparse without being asked.
#'   The models are the same (their variables have the same names and
#'   shapes); a sparse column's normalizer may scale but not center (see
#'   [normalizer_standardize()] with `mean = 0`). Boosted trees read every
#'   numeric column densely.
#' @section Normalizers:
#' A `normalizer_fn` is saved with the model (by `saveRDS()` and
#' [export_savedmodel()]), and must work in the R session that loads it.
#' Variables of the function's own enclosing environment are saved with it;
#' global variables it reads (`mu` and `s` in `function(x) (x - mu) / s`),
#' and global functions it calls, are copied into a small environment of the
#' function when the column is built, so later changes to them do not reach
#' the column (and a large object it reads, a whole data frame say, is saved
#' with the model: compute the statistics first, or use
#' [normalizer_standardize()]). [export_savedmodel()] refuses, naming the column and the
#' variable, a normalizer that reads a variable defined nowhere; functions of
#' packages are looked up in the session that predicts (call them as
#' `pkg::fun()` there, or attach the package). [normalizer_standardize()]
#' holds its `mean` and `sd` as numbers, and the column prints them. A
#' normalizer that fails is an error naming the column.
#' @return A feature column, or a list of them when several names are given.
#' @family feature columns
#' @export
#' @examples
#' column_numeric("drat")
#' column_numeric(drat, cyl)
#' column_numeric("disp", normalizer_fn = function(x) (x - 230) / 124)
#' # statistics stored with the column, shown when it prints
#' column_numeric("disp", normalizer_fn = normalizer_standardize(mean = 230.7, sd = 123.9))
#' # global variables are copied into the function when the column is built
#' mu <- mean(mtcars$disp)
#' s <- sd(mtcars$disp)
#' col <- column_numeric("disp", normalizer_fn = function(x) (x - mu) / s)
#' ls(environment(col$normalizer_fn))
#' # a bag of words as one sparse feature of 3 values per row
#' if (requireNamespace("Matrix", quietly = TRUE)) {
#'   words <- Matrix::sparseMatrix(i = c(1, 2, 2, 4), j = c(1, 1, 3, 2), x = 1, dims = c(4, 3))
#'   est <- linear_regressor(feature_columns(column_numeric("words", shape = 3, sparse = TRUE)))
#'   train(est, input_fn(list(words = words, y = c(1, 3, 2, 0)), response = "y"), steps = 2)
#' }
column_numeric <- function(..., shape = 1L, default_value = NULL, dtype = "float32",
                           normalizer_fn = NULL, sparse = FALSE) {
  names <- capture_names(...)
  if (!is.numeric(shape) || length(shape) < 1L || anyNA(shape) || any(shape < 1) ||
      any(shape != floor(shape))) {
    abort(paste0("`shape` must be a vector of positive whole numbers, not ", describe(shape), "."))
  }
  dtype <- normalize_dtype(dtype)
  check_flag(sparse, "sparse")
  check_function(normalizer_fn, "normalizer_fn")
  normalizer_fn <- capture_normalizer(normalizer_fn)
  cols <- lapply(names, function(nm) {
    col <- list(kind = "numeric", name = nm, key = nm, shape = as.integer(shape),
                width = as.integer(prod(shape)),
                default_value = default_value, dtype = dtype, normalizer_fn = normalizer_fn)
    if (sparse) col$sparse <- TRUE
    structure(col, class = column_classes("numeric"))
  })
  if (length(cols) == 1L) cols[[1]] else cols
}

#' @export
column_repr.cppestimators_column_numeric <- function(x, ...) {
  repr_call("_NumericColumn",
            sprintf("key=%s, shape=%s, default_value=%s, dtype=tf.%s, normalizer_fn=%s",
                    repr_value(x$key), repr_tuple(x$shape), repr_value(x$default_value), x$dtype,
                    normalizer_repr(x$normalizer_fn)))
}

# Whether `x` is a numeric column (the one kind that reads values, with
# a shape, a default and a normalizer).
is_numeric_column <- function(x) inherits(x, "cppestimators_column_numeric")

#' @export
column_weight_categories.cppestimators_column_numeric <- function(col, n) rep(NA_character_, n)

#' @export
column_in_tf_trees.cppestimators_column_numeric <- function(col) TRUE

#' @export
column_is_ordered.cppestimators_column_numeric <- function(col) TRUE
