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
#' @param boundaries Strictly increasing finite numbers: a numeric vector
#'   (`c(18, 25, 30)`) or a list of single numbers (`list(18, 25, 30)`, as
#'   scripts written for tfestimators give them).
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
  if (!is_numeric_column(source_column)) {
    abort(paste0("`source_column` must be a column made by column_numeric(), not ", describe(source_column), "."))
  }
  boundaries <- check_boundaries(boundaries)
  new_column("bucketized", paste0(source_column$name, "_bucketized"),
             list(source_column = source_column, boundaries = boundaries),
             categorical = TRUE)
}

#' @export
column_repr.cppestimators_column_bucketized <- function(x, ...) {
  repr_call("_BucketizedColumn",
            sprintf("source_column=%s, boundaries=%s", column_repr(x$source_column),
                    repr_tuple(as.numeric(x$boundaries))))
}

# The boundaries of a bucketized column as a numeric vector: a numeric
# vector, or a list of single numbers (TensorFlow's Python list); finite and
# strictly increasing.
check_boundaries <- function(boundaries) {
  values <- boundaries
  if (is.list(boundaries) && !is.object(boundaries) &&
      all(vapply(boundaries, function(b) is.numeric(b) && length(b) == 1L && !is.object(b), TRUE))) {
    values <- as.numeric(unlist(boundaries, use.names = FALSE))
  }
  if (!is.numeric(values) || is.object(values) || !all(is.finite(values))) {
    abort(sprintf(paste0("`boundaries` must be finite numbers, as a numeric vector (c(18, 25)) or a list of single ",
                         "numbers (list(18, 25)), not %s."), describe_boundaries(boundaries)),
          class = "cppestimators_bad_boundaries")
  }
  if (is.unsorted(values, strictly = TRUE)) {
    at <- which(diff(values) <= 0)[1L]
    abort(sprintf(paste0("boundaries must be a sorted list: `boundaries` must be strictly increasing, but %s ",
                         "(at position %d) is followed by %s; sort them and drop duplicates (sort(unique(x)))."),
                  format(values[at]), as.integer(at), format(values[at + 1L])),
          class = "cppestimators_bad_boundaries")
  }
  as.numeric(values)
}

describe_boundaries <- function(x) {
  if (is.list(x) && !is.object(x)) {
    bad <- Filter(function(b) !(is.numeric(b) && length(b) == 1L && is.finite(b)), x)
    if (length(bad)) return(sprintf("a list holding %s", describe(bad[[1L]])))
  }
  if (is.numeric(x) && !is.object(x)) return(sprintf("numbers including %s", format(x[!is.finite(x)][1L])))
  describe(x)
}

#' @export
column_weight_categories.cppestimators_column_bucketized <- function(col, n) {
  if (n != length(col$boundaries) + 1L) return(NextMethod())
  b <- as.character(col$boundaries)
  paste0(c("(-Inf", paste0("[", b)), ",", c(b, "Inf"), ")")
}

#' @export
column_in_tf_trees.cppestimators_column_bucketized <- function(col) TRUE

#' @export
column_is_ordered.cppestimators_column_bucketized <- function(col) TRUE
