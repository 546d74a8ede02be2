# Parse specs for tf.train.Example records: what tfrecord_dataset() reads of
# each record, as TensorFlow's FixedLenFeature / VarLenFeature, and the specs
# TF builds from feature columns (tf.feature_column.make_parse_example_spec,
# tf.estimator.classifier_parse_example_spec, regressor_parse_example_spec).

#' Features of a parse spec
#'
#' `fixed_len_feature()` reads a feature with the same number of values in
#' every record (TensorFlow's `FixedLenFeature`): `prod(shape)` values, or
#' `default_value` when a record lacks the feature (reading such a record
#' without a default is an error naming the feature, the file and the
#' record). `var_len_feature()` reads any number of values per record
#' (TensorFlow's `VarLenFeature`); [dataset_collect()] returns it as a list
#' column.
#'
#' `dtype` `"float32"` (or `"float64"`) reads a `float_list`, `"int64"` (or
#' `"int32"`) an `int64_list` and `"string"` a `bytes_list`; a record holding
#' another kind of list for the feature is an error.
#'
#' @param shape The shape of the values of one record (a vector of positive
#'   whole numbers).
#' @param dtype The type of the values: `"float32"`, `"float64"`, `"int64"`,
#'   `"int32"` (or the [tf] object's `tf$float32`, `tf$float64`, `tf$int64`,
#'   `tf$int32`) or `"string"`.
#' @param default_value `NULL` (the feature is required), one value (repeated
#'   to the shape) or `prod(shape)` values.
#' @return An object of class `cppestimators_fixed_len_feature` or
#'   `cppestimators_var_len_feature`.
#' @seealso [make_parse_example_spec()], [tfrecord_dataset()]
#' @examples
#' fixed_len_feature(1L, "float32", default_value = 0)
#' var_len_feature("string")
#' @export
fixed_len_feature <- function(shape, dtype, default_value = NULL) {
  if (!is.numeric(shape) || anyNA(shape) || any(shape < 1) || any(shape != floor(shape))) {
    abort(paste0("`shape` must be a vector of positive whole numbers, not ", describe(shape), "."))
  }
  shape <- as.integer(shape)
  if (length(shape) == 0L) shape <- 1L
  dtype <- parse_dtype(dtype)
  width <- prod(shape)
  if (!is.null(default_value)) {
    ok <- if (dtype == "string") is.character(default_value) else is.numeric(default_value) || is.logical(default_value)
    if (!ok || anyNA(default_value) || !length(default_value) %in% c(1L, width)) {
      abort(sprintf("`default_value` must be NULL, one value or %d values of dtype \"%s\", not %s.",
                    as.integer(width), dtype, describe(default_value)))
    }
    default_value <- rep_len(if (dtype == "string") default_value else as.numeric(default_value), width)
  }
  structure(list(shape = shape, dtype = dtype, default_value = default_value),
            class = c("cppestimators_fixed_len_feature", "cppestimators_parse_feature"))
}

#' @rdname fixed_len_feature
#' @export
var_len_feature <- function(dtype) {
  structure(list(dtype = parse_dtype(dtype)),
            class = c("cppestimators_var_len_feature", "cppestimators_parse_feature"))
}

# The dtype of a parse spec's feature (a name or the `tf` object's dtype).
parse_dtype <- function(dtype, arg = "dtype") {
  as_dtype_string(dtype, arg, c("float32", "float64", "float16", "int64", "int32", "string"))
}

#' @export
format.cppestimators_fixed_len_feature <- function(x, ...) {
  shape <- if (length(x$shape) == 1L) sprintf("(%d,)", x$shape) else paste0("(", paste(x$shape, collapse = ", "), ")")
  def <- if (is.null(x$default_value)) {
    "None"
  } else if (x$dtype == "string") {
    paste0("(", paste0("'", x$default_value, "'", collapse = ", "), if (length(x$default_value) == 1L) ",", ")")
  } else {
    paste0("(", paste(format(x$default_value), collapse = ", "), if (length(x$default_value) == 1L) ",", ")")
  }
  sprintf("FixedLenFeature(shape=%s, dtype=tf.%s, default_value=%s)", shape, x$dtype, def)
}

#' @export
format.cppestimators_var_len_feature <- function(x, ...) sprintf("VarLenFeature(dtype=tf.%s)", x$dtype)

#' @export
print.cppestimators_parse_feature <- function(x, ...) {
  cat(format(x), "\n", sep = "")
  invisible(x)
}

#' @export
print.cppestimators_parse_spec <- function(x, ...) {
  cat("A parse spec of ", length(x), " feature", if (length(x) != 1L) "s", "\n", sep = "")
  for (k in names(x)) cat("  ", k, ": ", format(x[[k]]), "\n", sep = "")
  invisible(x)
}

new_parse_spec <- function(x) structure(x, class = "cppestimators_parse_spec")

#' Parse specs from feature columns
#'
#' The features a model's input needs, read from tf.train.Example records, as
#' TensorFlow builds them: `make_parse_example_spec()` (TF's
#' `tf.feature_column.make_parse_example_spec`) maps each feature the columns
#' read to how to read it:
#' * [column_numeric()]: `fixed_len_feature(shape, dtype, default_value)`;
#' * categorical columns with a vocabulary, [column_categorical_with_hash_bucket()]:
#'   `var_len_feature(dtype)` of the column's dtype;
#'   [column_categorical_with_identity()]: `var_len_feature("int64")`;
#' * [column_bucketized()]: its source numeric column's;
#' * [column_crossed()]: its keys' (a feature name: `var_len_feature("string")`);
#' * [column_embedding()], [column_indicator()]: their categorical column's;
#'   [column_categorical_weighted()]: its categorical column's and
#'   `var_len_feature(dtype)` for the weights.
#'
#' `classifier_parse_example_spec()` and `regressor_parse_example_spec()` add
#' the label, `fixed_len_feature(1, label_dtype, label_default)` (for a
#' regressor `fixed_len_feature(label_dimension, ...)`), and the weight
#' column, as TF's functions of those names.
#'
#' @param feature_columns Feature columns ([feature_columns()] or a list of
#'   columns).
#' @param label_key The name of the label feature.
#' @param label_dtype The label's dtype, as `dtype` of [fixed_len_feature()].
#' @param label_default The label's default (`NULL`: records must hold it).
#' @param label_dimension The number of values of a regressor's label.
#' @param weight_column `NULL`, a feature name or a [column_numeric()]: the
#'   weights of the examples.
#' @return A named list of class `cppestimators_parse_spec` of
#'   [fixed_len_feature()] and [var_len_feature()] objects.
#' @examples
#' cols <- feature_columns(column_numeric("x"),
#'                         column_categorical_with_vocabulary_list("g", vocabulary_list = c("a", "b")))
#' classifier_parse_example_spec(cols, label_key = "y")
#' @export
make_parse_example_spec <- function(feature_columns) {
  spec <- list()
  for (col in flatten_feature_columns(feature_columns)) {
    for (key in names(s <- column_parse_spec(col))) {
      if (!is.null(spec[[key]]) && !identical(spec[[key]], s[[key]])) {
        abort(sprintf("feature_columns contain different parse_spec for key %s. Given %s and %s",
                      key, format(spec[[key]]), format(s[[key]])))
      }
      spec[[key]] <- s[[key]]
    }
  }
  new_parse_spec(spec)
}

#' @rdname make_parse_example_spec
#' @export
classifier_parse_example_spec <- function(feature_columns, label_key, label_dtype = "int64",
                                          label_default = NULL, weight_column = NULL) {
  add_label_and_weight(make_parse_example_spec(feature_columns), label_key,
                       fixed_len_feature(1L, parse_dtype(label_dtype, "label_dtype"), label_default), weight_column)
}

#' @rdname make_parse_example_spec
#' @export
regressor_parse_example_spec <- function(feature_columns, label_key, label_dtype = "float32",
                                         label_default = NULL, label_dimension = 1L,
                                         weight_column = NULL) {
  label_dimension <- check_whole(label_dimension, "label_dimension", min = 1, null_ok = FALSE)
  add_label_and_weight(make_parse_example_spec(feature_columns), label_key,
                       fixed_len_feature(label_dimension, parse_dtype(label_dtype, "label_dtype"), label_default),
                       weight_column)
}

add_label_and_weight <- function(spec, label_key, label_spec, weight_column) {
  check_string(label_key, "label_key", must = "the name of the label feature")
  if (label_key %in% names(spec)) {
    abort(sprintf("label should not be already in the feature columns. Given: %s", label_key))
  }
  spec[[label_key]] <- label_spec
  weight <- weight_column_spec(weight_column)
  if (!is.null(weight)) spec[[weight$key]] <- column_parse_spec(weight)[[1]]
  new_parse_spec(unclass(spec))
}

flatten_feature_columns <- function(x) {
  if (inherits(x, "cppestimators_feature_column")) return(list(x))
  if (is.list(x) && !is.object(x) || inherits(x, "cppestimators_feature_columns")) {
    return(do.call(c, c(list(list()), lapply(unclass(x), flatten_feature_columns))))
  }
  abort(sprintf("All feature_columns must be _FeatureColumn instances. Given: %s", describe(x)))
}

# The parse spec of one column (a named list), as TF's _parse_example_spec:
# a method per column class.
column_parse_spec <- function(col) UseMethod("column_parse_spec")

# The parse spec of one feature.
parse_spec_of <- function(key, feature) stats::setNames(list(feature), key)

#' @export
column_parse_spec.default <- function(col) {
  # a raw feature key of a crossed column
  if (!inherits(col, "cppestimators_feature_column")) return(parse_spec_of(col$key, var_len_feature("string")))
  abort(sprintf("The %s column '%s' has no parse spec.", col$kind, col$name))
}

#' @export
column_parse_spec.cppestimators_column_numeric <- function(col) {
  parse_spec_of(col$key, fixed_len_feature(col$shape, col$dtype, col$default_value))
}

#' @export
column_parse_spec.cppestimators_column_vocabulary_list <- function(col) {
  parse_spec_of(col$key, var_len_feature(col$dtype))
}

#' @export
column_parse_spec.cppestimators_column_vocabulary_file <- column_parse_spec.cppestimators_column_vocabulary_list

#' @export
column_parse_spec.cppestimators_column_hash_bucket <- column_parse_spec.cppestimators_column_vocabulary_list

#' @export
column_parse_spec.cppestimators_column_identity <- function(col) parse_spec_of(col$key, var_len_feature("int64"))

#' @export
column_parse_spec.cppestimators_column_bucketized <- function(col) column_parse_spec(col$source_column)

#' @export
column_parse_spec.cppestimators_column_crossed <- function(col) do.call(c, lapply(col$keys, column_parse_spec))

#' @export
column_parse_spec.cppestimators_column_indicator <- function(col) column_parse_spec(col$categorical_column)

#' @export
column_parse_spec.cppestimators_column_embedding <- column_parse_spec.cppestimators_column_indicator

#' @export
column_parse_spec.cppestimators_column_weighted <- function(col) {
  c(column_parse_spec(col$categorical_column), parse_spec_of(col$weight_feature_key, var_len_feature(col$dtype)))
}
