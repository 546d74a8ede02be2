#' @rdname column_indicator
#' @export
column_categorical_weighted <- function(categorical_column, weight_feature_key, dtype = "float32") {
  check_categorical(categorical_column, "categorical_column")
  check_string(weight_feature_key, "weight_feature_key", must = "the name of a feature")
  dtype <- normalize_dtype(dtype)
  new_column("weighted", paste0(categorical_column$name, "_weighted_by_", weight_feature_key),
             list(categorical_column = categorical_column, weight_feature_key = weight_feature_key,
                  dtype = dtype), categorical = TRUE)
}

#' @export
column_repr.cppestimators_column_weighted <- function(x, ...) {
  repr_call("_WeightedCategoricalColumn",
            sprintf("categorical_column=%s, weight_feature_key=%s, dtype=tf.%s", column_repr(x$categorical_column),
                    repr_value(x$weight_feature_key), x$dtype %||% "float32"))
}

#' @export
column_vocabulary_words.cppestimators_column_weighted <- function(col) {
  column_vocabulary_words(col$categorical_column)
}

#' @export
column_weight_categories.cppestimators_column_weighted <- function(col, n) {
  column_weight_categories(col$categorical_column, n)
}

#' @export
cross_leaves.cppestimators_column_weighted <- function(col) {
  abort(sprintf("column_crossed() does not support weighted columns in `keys`: '%s'.", col$name))
}
