#' @rdname categorical_columns
#' @export
column_categorical_with_identity <- function(..., num_buckets, default_value = NULL) {
  check_named_after_dots(missing(num_buckets), "num_buckets", "column_categorical_with_identity", ...)
  names <- capture_names(...)
  num_buckets <- check_whole(num_buckets, "num_buckets", null_ok = FALSE, max = .Machine$integer.max)
  default_value <- check_whole(default_value, "default_value", min = 0)
  if (!is.null(default_value) && default_value >= num_buckets) {
    abort(sprintf("`default_value` %d not in range [0, %d).", as.integer(default_value),
                  as.integer(num_buckets)))
  }
  categorical_columns(names, "identity", list(num_buckets = num_buckets,
                                              default_value = default_value))
}

#' @export
column_repr.cppestimators_column_identity <- function(x, ...) {
  repr_call("_IdentityCategoricalColumn",
            sprintf("key=%s, num_buckets=%d, default_value=%s", repr_value(x$key), as.integer(x$num_buckets),
                    repr_value(x$default_value)))
}
