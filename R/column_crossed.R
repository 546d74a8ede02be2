#' @rdname column_bucketized
#' @export
column_crossed <- function(keys, hash_bucket_size, hash_key = NULL) {
  if (inherits(keys, "cppestimators_feature_column")) keys <- list(keys)
  keys <- if (is.character(keys)) as.list(keys) else keys
  if (!is.list(keys) || length(keys) < 2L) {
    abort(paste0("keys must be a list with length > 1. Given: ", describe(keys)))
  }
  leaves <- list()
  for (k in keys) {
    if (is.character(k) && length(k) == 1L && !is.na(k) && nzchar(k)) {
      leaves[[length(leaves) + 1L]] <- list(kind = "raw", name = k, key = k)
    } else {
      leaves <- c(leaves, cross_leaves(k))
    }
  }
  check_number(hash_bucket_size, "hash_bucket_size", min = 1, exclusive_min = TRUE, finite = FALSE,
               message = paste0("hash_bucket_size must be > 1. Given: ", describe(hash_bucket_size)))
  hash_bucket_size <- check_whole(hash_bucket_size, "hash_bucket_size", min = 2,
                                  max = .Machine$integer.max)
  hash_key <- check_whole(hash_key, "hash_key", min = 0)
  nm <- sort(vapply(leaves, function(l) l$name, ""), method = "radix")
  new_column("crossed", paste(nm, collapse = "_X_"),
             list(keys = leaves, hash_bucket_size = hash_bucket_size, hash_key = hash_key),
             categorical = TRUE)
}

#' @export
column_repr.cppestimators_column_crossed <- function(x, ...) {
  repr_call("_CrossedColumn",
            sprintf("keys=%s, hash_bucket_size=%s, hash_key=%s", tuple_of_keys(x$keys), format(x$hash_bucket_size),
                    repr_value(x$hash_key)))
}

# The keys of a crossed column: names, or the reprs of the columns crossed.
tuple_of_keys <- function(keys) {
  parts <- vapply(keys, function(k) {
    if (is.character(k)) return(paste0("'", k, "'"))
    if (!inherits(k, "cppestimators_feature_column")) return(paste0("'", k$name, "'"))  # a raw feature key
    column_repr(k)
  }, "")
  paste0("(", paste(parts, collapse = ", "), ")")
}

#' @export
cross_leaves.cppestimators_column_crossed <- function(col) col$keys
