#' Indicator, embedding and weighted columns
#'
#' Wrappers around a categorical column:
#' * `column_indicator()` reads its ids as a multi-hot vector of
#'   `num_buckets` values (the count of each id in the row, or its weight for
#'   a weighted column).
#' * `column_embedding()` looks its ids up in a trainable table of
#'   `num_buckets x dimension` values (initialised from a truncated normal
#'   with standard deviation `1/sqrt(dimension)`, seeded by
#'   `run_config(tf_random_seed =)`), and combines the rows of one example
#'   by `combiner`: `"sum"`, `"mean"` (weighted mean) or `"sqrtn"` (sum over
#'   the square root of the sum of squared weights).
#' * `column_categorical_weighted()` gives each id the value of another
#'   numeric feature as its weight; ids with weight 0 or less are dropped.
#'
#' @param categorical_column A categorical column, such as one made by
#'   [column_categorical_with_vocabulary_list()]. `column_indicator()` also
#'   takes feature names (`column_indicator("am")`, as tfestimators' articles
#'   write it): the categories of each are then read from the training data
#'   at the estimator's first `train()`, as [feature_columns_from_data()]
#'   reads them (a factor's levels, a character vector's sorted unique
#'   values, `FALSE`/`TRUE`, or the sorted distinct whole numbers of a
#'   numeric feature); later calls on data holding a category training did
#'   not see are an error naming the feature and the value.
#' @param dimension Length of an embedding vector.
#' @param combiner `"mean"`, `"sqrtn"` or `"sum"`.
#' @param initializer `NULL` for the default, or a number: the standard
#'   deviation of the truncated normal initial values.
#' @param ckpt_to_load_from,tensor_name_in_ckpt Not supported: must be `NULL`.
#' @param max_norm `NULL`, or a positive number: rows of the table longer
#'   than this are scaled down to it before combining.
#' @param trainable Whether training updates the table.
#' @param weight_feature_key The name of the feature holding the weights.
#' @param dtype The weights' type, `"float32"` (or `tf$float32`, or another
#'   float or integer type); accepted for compatibility.
#' @return A feature column.
#' @family feature columns
#' @examples
#' species <- column_categorical_with_vocabulary_list("Species",
#'   vocabulary_list = c("setosa", "versicolor", "virginica"))
#' column_indicator(species)
#' column_embedding(species, dimension = 2)
#' column_categorical_weighted(species, "Petal.Width")
#' @export
column_indicator <- function(categorical_column) {
  if (is.character(categorical_column) && !is.object(categorical_column)) {
    if (length(categorical_column) == 0L || anyNA(categorical_column) || !all(nzchar(categorical_column))) {
      abort(sprintf("`categorical_column` must be a categorical column or feature names, not %s.",
                    describe(categorical_column)), class = "cppestimators_feature_columns")
    }
    cols <- lapply(unique(categorical_column), function(nm) column_indicator(data_vocabulary_column(nm)))
    return(if (length(cols) == 1L) cols[[1L]] else cols)
  }
  check_categorical(categorical_column, "categorical_column")
  new_column("indicator", paste0(categorical_column$name, "_indicator"),
             list(categorical_column = categorical_column))
}

#' @export
column_repr.cppestimators_column_indicator <- function(x, ...) {
  repr_call("_IndicatorColumn", sprintf("categorical_column=%s", column_repr(x$categorical_column)))
}

# Whether `x` is an indicator column (a categorical column read as a
# multi-hot vector, named "<name>:<id>" by the trees' importances).
is_indicator_column <- function(x) inherits(x, "cppestimators_column_indicator")

#' @export
column_vocabulary_words.cppestimators_column_indicator <- function(col) {
  column_vocabulary_words(col$categorical_column)
}

#' @export
column_weight_categories.cppestimators_column_indicator <- function(col, n) {
  column_weight_categories(col$categorical_column, n)
}

#' @export
column_in_tf_trees.cppestimators_column_indicator <- function(col) TRUE
