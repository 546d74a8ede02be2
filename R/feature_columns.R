#' Numeric feature columns
#'
#' A column that reads a numeric feature by name: a plain numeric vector, or a
#' matrix with `prod(shape)` columns for a multi-valued feature.
#'
#' @param ... Names of the features: bare names or strings. Several names give
#'   one column each.
#' @param shape An integer vector: the shape of one example's value. The
#'   column contributes `prod(shape)` inputs.
#' @param default_value Accepted for compatibility; it only mattered when
#'   TensorFlow parsed `tf.Example` records.
#' @param dtype The value type: `"float32"` (the default; values are used in
#'   single precision, as TensorFlow did), `"float64"`, `"int32"` or `"int64"`.
#' @param normalizer_fn `NULL`, or an R function applied once to the feature's
#'   values before training, evaluation or prediction (for example to scale them).
#' @return A feature column, or a list of them when several names are given.
#' @family feature columns
#' @export
#' @examples
#' column_numeric("drat")
#' column_numeric(drat, cyl)
#' column_numeric("disp", normalizer_fn = function(x) (x - 230) / 124)
column_numeric <- function(..., shape = 1L, default_value = NULL, dtype = "float32",
                           normalizer_fn = NULL) {
  names <- capture_names(...)
  if (!is.numeric(shape) || length(shape) < 1L || anyNA(shape) || any(shape < 1) ||
      any(shape != floor(shape))) {
    stop("`shape` must be a vector of positive whole numbers, not ", describe(shape), ".",
         call. = FALSE)
  }
  dtype <- normalize_dtype(dtype)
  check_function(normalizer_fn, "normalizer_fn")
  cols <- lapply(names, function(nm) {
    structure(
      list(kind = "numeric", name = nm, key = nm, shape = as.integer(shape),
           width = as.integer(prod(shape)),
           default_value = default_value, dtype = dtype, normalizer_fn = normalizer_fn),
      class = c("cppestimators_column_numeric", "cppestimators_feature_column")
    )
  })
  if (length(cols) == 1L) cols[[1]] else cols
}

normalize_dtype <- function(dtype) {
  if (!is.character(dtype) || length(dtype) != 1L) {
    stop("`dtype` must be a string such as \"float32\", not ", describe(dtype), ".",
         call. = FALSE)
  }
  dtype <- sub("^tf\\$", "", dtype)
  ok <- c("float32", "float64", "int32", "int64", "float16")
  if (!dtype %in% ok) {
    stop(sprintf("dtype must be convertible to float: `dtype` is \"%s\"; use one of %s.",
                 dtype, paste0('"', ok, '"', collapse = ", ")), call. = FALSE)
  }
  dtype
}

# Names from `...`: bare symbols, strings or character vectors.
capture_names <- function(...) {
  exprs <- as.list(substitute(list(...)))[-1L]
  if (length(exprs) == 0L) stop("no feature names given in `...`.", call. = FALSE)
  env <- parent.frame(2L)
  out <- unlist(lapply(exprs, function(e) {
    if (is.symbol(e)) return(as.character(e))
    if (is.character(e)) return(e)
    val <- eval(e, env)
    if (!is.character(val)) {
      stop("feature names must be bare names or strings, not ", describe(val), ".",
           call. = FALSE)
    }
    val
  }))
  if (anyNA(out) || any(!nzchar(out))) stop("feature names must be non-empty.", call. = FALSE)
  out
}

#' Collect feature columns
#'
#' Gathers feature columns (single columns or lists of them) into the list an
#' estimator takes. Columns are used in sorted-name order, as in TensorFlow;
#' a repeated name keeps the later column.
#'
#' @param ... Feature columns, or lists of them.
#' @return A list of feature columns of class `cppestimators_feature_columns`.
#' @family feature columns
#' @export
#' @examples
#' fcs <- feature_columns(column_numeric("drat"), column_numeric("wt", "hp"))
#' length(fcs)
feature_columns <- function(...) {
  cols <- flatten_columns(list(...))
  if (length(cols) == 0L) stop("feature_columns must not be empty.", call. = FALSE)
  nm <- vapply(cols, function(c) c$name, "")
  keep <- !duplicated(nm, fromLast = TRUE)
  structure(cols[keep], class = "cppestimators_feature_columns")
}

flatten_columns <- function(x) {
  out <- list()
  for (el in x) {
    if (inherits(el, "cppestimators_feature_column")) {
      out[[length(out) + 1L]] <- el
    } else if (is.list(el)) {
      out <- c(out, flatten_columns(el))
    } else {
      stop("`feature_columns()` takes feature columns made by column_*(), not ",
           describe(el), ".", call. = FALSE)
    }
  }
  out
}

#' @export
print.cppestimators_feature_column <- function(x, ...) {
  cat(format(x), "\n", sep = "")
  invisible(x)
}

#' @export
format.cppestimators_feature_column <- function(x, ...) {
  detail <- switch(x$kind %||% "numeric",
    numeric = sprintf("shape=(%s) dtype=%s", paste(x$shape, collapse = ","), x$dtype),
    bucketized = sprintf("boundaries=(%s)", paste(format(x$boundaries), collapse = ", ")),
    vocabulary_list = , vocabulary_file = sprintf("%d words, %d oov buckets", length(x$vocabulary),
                                                  as.integer(x$num_oov_buckets)),
    identity = sprintf("num_buckets=%d", as.integer(x$num_buckets)),
    hash_bucket = , crossed = sprintf("hash_bucket_size=%s", format(x$hash_bucket_size)),
    embedding = sprintf("dimension=%d combiner=%s", as.integer(x$dimension), x$combiner),
    weighted = sprintf("weights from '%s'", x$weight_feature_key),
    ""
  )
  sprintf("<%s column '%s'%s>", x$kind %||% "numeric", x$name,
          if (nzchar(detail)) paste0(" ", detail) else "")
}

#' @export
print.cppestimators_feature_columns <- function(x, ...) {
  cat(sprintf("%d feature column%s\n", length(x), if (length(x) == 1L) "" else "s"))
  for (col in x) print(col)
  invisible(x)
}
