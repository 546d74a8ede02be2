# What the column constructors share: the column object, the checks of
# their arguments, and the repr every column kind formats itself with.

new_column <- function(kind, name, fields, categorical = FALSE) {
  structure(c(list(kind = kind, name = name), fields),
            class = column_classes(kind, categorical))
}

# A column's classes: first the class TensorFlow 1.x gave the same column
# (scripts written for tfestimators test it, e.g.
# `grepl("NumericColumn", class(col)[1])`), then ours.
column_classes <- function(kind, categorical = FALSE) {
  c(paste0("tensorflow.python.feature_column.feature_column.", tf_column_classes[[kind]]),
    paste0("cppestimators_column_", kind),
    if (categorical) "cppestimators_categorical_column",
    "cppestimators_feature_column")
}

tf_column_classes <- list(
  numeric = "_NumericColumn", bucketized = "_BucketizedColumn",
  vocabulary_list = "_VocabularyListCategoricalColumn",
  vocabulary_file = "_VocabularyFileCategoricalColumn",
  identity = "_IdentityCategoricalColumn", hash_bucket = "_HashedCategoricalColumn",
  crossed = "_CrossedColumn", embedding = "_EmbeddingColumn", indicator = "_IndicatorColumn",
  weighted = "_WeightedCategoricalColumn"
)

# One categorical column per feature name.
categorical_columns <- function(names, kind, fields) {
  cols <- lapply(names, function(nm) new_column(kind, nm, c(list(key = nm), fields), categorical = TRUE))
  if (length(cols) == 1L) cols[[1]] else cols
}

# What differs between column kinds outside their constructors is asked of
# the column through these generics, each method in its kind's file:
# - the words of its ids (vocabulary columns, and the indicator and weighted
#   columns over one), or NULL;
# - the category of each of its `n` weight rows in tidy(): NA for numeric
#   values, vocabulary words (then oov1, oov2, ...), bucket intervals, else
#   the ids;
# - whether TensorFlow's boosted trees read it (numeric, bucketized and
#   indicator columns);
# - the leaves it adds as a key of column_crossed() (or its refusal).
column_vocabulary_words <- function(col) UseMethod("column_vocabulary_words")

#' @export
column_vocabulary_words.default <- function(col) NULL

column_weight_categories <- function(col, n) UseMethod("column_weight_categories")

#' @export
column_weight_categories.default <- function(col, n) as.character(seq_len(n) - 1L)

column_in_tf_trees <- function(col) UseMethod("column_in_tf_trees")

#' @export
column_in_tf_trees.default <- function(col) FALSE

cross_leaves <- function(col) UseMethod("cross_leaves")

#' @export
cross_leaves.default <- function(col) {
  if (!inherits(col, "cppestimators_categorical_column")) {
    abort(paste0("Unsupported key type in `keys` of column_crossed(): each key must be a feature name or a ",
                 "categorical column, not ", describe(col), "."))
  }
  list(col)
}

check_categorical <- function(x, arg) {
  if (!inherits(x, "cppestimators_categorical_column")) {
    given <- if (inherits(x, "cppestimators_feature_column")) {
      sprintf("the %s column '%s'", x$kind, x$name)
    } else {
      describe(x)
    }
    abort(sprintf(paste0("`%s` must be a categorical column (column_categorical_*(), column_bucketized() or ",
                         "column_crossed()), not %s."), arg, given))
  }
  invisible(x)
}

# The dtype of a categorical column's values: "string" or an integer type
# (a name or the `tf` object's dtype, see as_dtype_string()).
check_dtype <- function(dtype, arg = "dtype") as_dtype_string(dtype, arg, c("string", "int64", "int32"))

# The dtype of a numeric column's values (or of a weighted column's
# weights): a type convertible to float.
normalize_dtype <- function(dtype, arg = "dtype") {
  as_dtype_string(dtype, arg, c("float32", "float64", "int32", "int64", "float16"))
}

# TensorFlow's repr of a column (as tfestimators printed it): its class and
# fields, e.g. _NumericColumn(key='drat', shape=(1,), default_value=None,
# dtype=tf.float32, normalizer_fn=None). Each column kind has its method, in
# the file of its constructor.
column_repr <- function(x, ...) UseMethod("column_repr")

#' @export
column_repr.default <- function(x, ...) {
  repr_call(paste0("_", x$kind, "Column"), sprintf("name=%s", repr_value(x$name)))
}

repr_call <- function(class, fields) sprintf("%s(%s)", class, fields)

# A value as Python shows it: None, 'text' or the number.
repr_value <- function(v) if (is.null(v)) "None" else if (is.character(v)) paste0("'", v, "'") else format(v)

# A vector as a Python tuple, (1,) or (1, 2), the first `max` values shown.
repr_tuple <- function(v, quote = FALSE, max = 10L) {
  shown <- if (quote) paste0("'", utils::head(v, max), "'") else format(utils::head(v, max))
  if (length(v) > max) shown <- c(shown, sprintf("... (%d in all)", length(v)))
  paste0("(", paste(shown, collapse = ", "), if (length(v) == 1L) "," else "", ")")
}

# The value argument of a constructor whose feature names come first in
# `...` (vocabulary_list, vocabulary_file, hash_bucket_size, num_buckets):
# given by position, it lands in `...` with the names. `is_missing` is
# missing(<arg>) in the constructor; the error shows what `...` received.
check_named_after_dots <- function(is_missing, arg, fn, ...) {
  if (!is_missing) return(invisible())
  given <- vapply(rlang::enquos(...), rlang::quo_text, "")
  if (length(given) == 0L) return(invisible())  # capture_names() says no names were given
  hint <- if (length(given) > 1L) sprintf("`%s = %s`", arg, given[length(given)]) else sprintf("`%s = `", arg)
  abort(sprintf(paste0("`%s` is missing: %s() takes every unnamed argument as a column name, so %s ",
                       "%s; give `%s` by name: %s."),
                arg, fn, paste(given, collapse = ", "),
                if (length(given) > 1L) "were taken as column names" else "was taken as a column name",
                arg, hint), class = "cppestimators_missing_argument")
}

# Whether a column's values are ordered, so that a model may be monotone in
# it (numeric and bucketized columns).
column_is_ordered <- function(col) UseMethod("column_is_ordered")

#' @export
column_is_ordered.default <- function(col) FALSE
