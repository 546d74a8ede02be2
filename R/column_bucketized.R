#' Bucketized and crossed columns
#'
#' `column_bucketized()` cuts a numeric column at `boundaries`: the bucket of
#' a value is the number of boundaries at or below it, so `boundaries =
#' c(0, 10)` gives the buckets `(-Inf, 0)`, `[0, 10)` and `[10, Inf)`.
#' Values are compared in single precision, as in TensorFlow. It is
#' categorical for linear models and crosses, and one-hot for DNNs.
#'
#' `column_crossed()` combines the values of two or more features or
#' categorical columns: every combination in a row is hashed (TensorFlow's
#' `FingerprintCat64` chain, starting from `hash_key`) into one of
#' `hash_bucket_size` ids. Its name is the sorted names of its inputs joined
#' by `"_X_"`.
#'
#' @param source_column A column made by [column_numeric()].
#' @param boundaries Strictly increasing numbers.
#' @param keys The inputs of the cross: feature names (strings) and
#'   categorical columns (not hash-bucket columns: give the feature name
#'   instead), as a character vector or a list.
#' @param hash_bucket_size Number of ids (at least 2).
#' @param hash_key `NULL` for TensorFlow's default key, or a number.
#' @return A feature column.
#' @family feature columns
#' @examples
#' column_bucketized(column_numeric("age"), boundaries = c(18, 25, 35, 50, 65))
#' column_crossed(c("education", "occupation"), hash_bucket_size = 1000)
#' @export
column_bucketized <- function(source_column, boundaries) {
  if (!inherits(source_column, "cppestimators_column_numeric")) {
    abort(paste0("`source_column` must be a column made by column_numeric(), not ", describe(source_column), "."))
  }
  if (!is.numeric(boundaries) || anyNA(boundaries) || any(!is.finite(boundaries)) ||
      is.unsorted(boundaries, strictly = TRUE)) {
    abort("boundaries must be a sorted list.")
  }
  new_column("bucketized", paste0(source_column$name, "_bucketized"),
             list(source_column = source_column, boundaries = as.numeric(boundaries)),
             categorical = TRUE)
}

#' @export
column_repr.cppestimators_column_bucketized <- function(x, ...) {
  repr_call("_BucketizedColumn",
            sprintf("source_column=%s, boundaries=%s", column_repr(x$source_column),
                    repr_tuple(as.numeric(x$boundaries))))
}
