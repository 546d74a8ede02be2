#' @rdname categorical_columns
#' @export
column_categorical_with_hash_bucket <- function(..., hash_bucket_size, dtype = "string") {
  check_named_after_dots(missing(hash_bucket_size), "hash_bucket_size", "column_categorical_with_hash_bucket", ...)
  names <- capture_names(...)
  check_number(hash_bucket_size, "hash_bucket_size", min = 1, exclusive_min = TRUE, finite = FALSE,
               message = "hash_bucket_size must be larger than 1")
  hash_bucket_size <- check_whole(hash_bucket_size, "hash_bucket_size", min = 2,
                                  max = .Machine$integer.max)
  categorical_columns(names, "hash_bucket", list(hash_bucket_size = hash_bucket_size,
                                                 dtype = check_dtype(dtype)))
}

#' @export
column_repr.cppestimators_column_hash_bucket <- function(x, ...) {
  repr_call("_HashedCategoricalColumn",
            sprintf("key=%s, hash_bucket_size=%s, dtype=tf.%s", repr_value(x$key), format(x$hash_bucket_size),
                    x$dtype %||% "string"))
}

#' @export
cross_leaves.cppestimators_column_hash_bucket <- function(col) {
  abort(sprintf(paste0("column_categorical_with_hash_bucket() is not supported in `keys` of column_crossed(). ",
                       "Instead, use the feature name as a string: \"%s\"."), col$key))
}
