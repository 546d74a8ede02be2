#' Numeric feature columns
#'
#' A column that reads a numeric feature by name: a plain numeric vector, or a
#' matrix with `prod(shape)` columns for a multi-valued feature.
#'
#' @param ... Names of the features: bare names or strings, or a tidyselect
#'   selection such as `starts_with("Sepal")` among the active names (see
#'   [feature_columns()] and [with_columns()]). Several names give one column
#'   each.
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
    abort(paste0("`shape` must be a vector of positive whole numbers, not ", describe(shape), "."))
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
  check_string(dtype, "dtype", empty_ok = TRUE, must = "a string such as \"float32\"")
  dtype <- sub("^tf\\$", "", dtype)
  ok <- c("float32", "float64", "int32", "int64", "float16")
  if (!dtype %in% ok) {
    abort(sprintf("dtype must be convertible to float: `dtype` is \"%s\"; use one of %s.",
                  dtype, paste0('"', ok, '"', collapse = ", ")))
  }
  dtype
}

#' Collect feature columns
#'
#' Gathers feature columns (single columns or lists of them) into the list an
#' estimator takes. Columns are used in sorted-name order, as in TensorFlow;
#' a repeated name keeps the later column.
#'
#' The column constructors select feature names with tidyselect. Bare names
#' and strings always work; selection helpers such as [starts_with()],
#' [one_of()] or [everything()], `-name` and positions choose among the names
#' given in `names` (or set by [with_columns()]), which are active while the
#' arguments are evaluated.
#'
#' An argument may also be a formula `selection ~ column_xxx(args)`: the
#' selection on the left is passed as the first argument of the constructor
#' call on the right, so `starts_with("Sepal") ~ column_numeric(shape = 1)`
#' is `column_numeric(starts_with("Sepal"), shape = 1)`.
#'
#' @param ... Feature columns, lists of them, or formulas
#'   `selection ~ column_xxx(args)`. `NULL`s are skipped.
#' @param names The feature names the selections choose from: a character
#'   vector, or an object with names such as a data frame, a named list or a
#'   matrix with column names. `NULL` (the default) keeps the names already
#'   active, if any.
#' @return A list of feature columns of class `cppestimators_feature_columns`.
#' @family feature columns
#' @export
#' @examples
#' fcs <- feature_columns(column_numeric("drat"), column_numeric("wt", "hp"))
#' length(fcs)
#'
#' # selection helpers choose among `names`
#' fcs <- feature_columns(column_numeric(starts_with("Sepal")), names = iris)
#' vapply(fcs, function(col) col$name, "")
#'
#' # the same with a formula
#' fcs <- feature_columns(starts_with("Sepal") ~ column_numeric(), names = iris)
#' vapply(fcs, function(col) col$name, "")
feature_columns <- function(..., names = NULL) {
  quos <- rlang::enquos(...)
  if (!is.null(names)) {
    old <- set_columns(as_column_names(names, "names"))
    on.exit(restore_columns(old), add = TRUE)
  }
  cols <- flatten_columns(lapply(quos, eval_column_arg))
  if (length(cols) == 0L) abort("feature_columns must not be empty.")
  nm <- vapply(cols, function(c) as.character(c$name)[1L], "")
  keep <- !duplicated(nm, fromLast = TRUE)
  structure(cols[keep], class = "cppestimators_feature_columns")
}

# Evaluates one argument of feature_columns(); a two-sided formula
# `lhs ~ column_xxx(args)` becomes `column_xxx(lhs, args)`.
eval_column_arg <- function(quo) {
  expr <- rlang::quo_get_expr(quo)
  if (is.call(expr) && identical(expr[[1L]], as.name("~")) && length(expr) == 3L) {
    return(inject_selection(expr[[2L]], expr[[3L]], rlang::quo_get_env(quo)))
  }
  val <- rlang::eval_tidy(quo)
  if (inherits(val, "formula")) {
    if (length(val) != 3L) {
      abort(paste0("a formula in feature_columns() needs a selection on its left-hand side, ",
                   "e.g. starts_with(\"x\") ~ column_numeric()."))
    }
    env <- environment(val) %||% rlang::quo_get_env(quo)
    return(inject_selection(val[[2L]], val[[3L]], env))
  }
  val
}

inject_selection <- function(lhs, rhs, env) {
  if (is.symbol(rhs)) rhs <- as.call(list(rhs))
  if (!is.call(rhs)) {
    abort(sprintf("the right-hand side of `%s ~ ...` must be a column_*() call such as column_numeric(), not %s.",
                  paste(deparse(lhs, width.cutoff = 60L), collapse = " "),
                  paste(deparse(rhs, width.cutoff = 60L), collapse = " ")))
  }
  call <- as.call(c(list(rhs[[1L]], lhs), as.list(rhs)[-1L]))
  rlang::eval_tidy(call, env = env)
}

flatten_columns <- function(x) {
  out <- list()
  for (el in x) {
    if (inherits(el, "cppestimators_feature_column")) {
      out[[length(out) + 1L]] <- el
    } else if (is.null(el)) {
      next
    } else if (is.list(el) && !is.object(el) || inherits(el, "cppestimators_feature_columns")) {
      out <- c(out, flatten_columns(el))
    } else {
      abort(paste0("`feature_columns()` takes feature columns made by column_*(), not ", describe(el), "."))
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
  column_repr(x)
}

# TensorFlow's repr of a column (as tfestimators printed it): its class and
# fields, e.g. _NumericColumn(key='drat', shape=(1,), default_value=None,
# dtype=tf.float32, normalizer_fn=None).
column_repr <- function(x) {
  q <- function(v) if (is.null(v)) "None" else if (is.character(v)) paste0("'", v, "'") else format(v)
  tuple <- function(v, quote = FALSE, max = 10L) {
    shown <- if (quote) paste0("'", utils::head(v, max), "'") else format(utils::head(v, max))
    if (length(v) > max) shown <- c(shown, sprintf("... (%d in all)", length(v)))
    paste0("(", paste(shown, collapse = ", "), if (length(v) == 1L) "," else "", ")")
  }
  dflt <- function(v) if (is.null(v)) "None" else if (is.character(v)) q(v) else format(v)
  fields <- switch(x$kind %||% "numeric",
    numeric = c("_NumericColumn", sprintf("key=%s, shape=%s, default_value=%s, dtype=tf.%s, normalizer_fn=%s",
                                         q(x$key), tuple(x$shape), dflt(x$default_value), x$dtype,
                                         if (is.null(x$normalizer_fn)) "None" else "<function>")),
    bucketized = c("_BucketizedColumn", sprintf("source_column=%s, boundaries=%s", column_repr(x$source_column),
                                                tuple(as.numeric(x$boundaries)))),
    vocabulary_list = c("_VocabularyListCategoricalColumn",
                        sprintf("key=%s, vocabulary_list=%s, dtype=tf.%s, default_value=%s, num_oov_buckets=%d",
                                q(x$key), tuple(x$vocabulary, quote = is.character(x$vocabulary)),
                                x$dtype %||% "string", dflt(x$default_value), as.integer(x$num_oov_buckets))),
    vocabulary_file = c("_VocabularyFileCategoricalColumn",
                        sprintf("key=%s, vocabulary_file=%s, vocabulary_size=%d, num_oov_buckets=%d, dtype=tf.%s, default_value=%s",
                                q(x$key), q(x$vocabulary_file), as.integer(x$vocabulary_size %||% length(x$vocabulary)),
                                as.integer(x$num_oov_buckets), x$dtype %||% "string", dflt(x$default_value))),
    identity = c("_IdentityCategoricalColumn", sprintf("key=%s, num_buckets=%d, default_value=%s", q(x$key),
                                                       as.integer(x$num_buckets), dflt(x$default_value))),
    hash_bucket = c("_HashedCategoricalColumn", sprintf("key=%s, hash_bucket_size=%s, dtype=tf.%s", q(x$key),
                                                        format(x$hash_bucket_size), x$dtype %||% "string")),
    crossed = c("_CrossedColumn", sprintf("keys=%s, hash_bucket_size=%s, hash_key=%s",
                                          tuple_of_keys(x$keys), format(x$hash_bucket_size), dflt(x$hash_key))),
    indicator = c("_IndicatorColumn", sprintf("categorical_column=%s", column_repr(x$categorical_column))),
    embedding = c("_EmbeddingColumn",
                  sprintf("categorical_column=%s, dimension=%d, combiner=%s, initializer=truncated_normal(stddev=%s), max_norm=%s, trainable=%s",
                          column_repr(x$categorical_column), as.integer(x$dimension), q(x$combiner),
                          format(x$initializer_stddev %||% (1 / sqrt(x$dimension))), dflt(x$max_norm),
                          if (isFALSE(x$trainable)) "False" else "True")),
    weighted = c("_WeightedCategoricalColumn", sprintf("categorical_column=%s, weight_feature_key=%s, dtype=tf.%s",
                                                       column_repr(x$categorical_column), q(x$weight_feature_key),
                                                       x$dtype %||% "float32")),
    c(paste0("_", x$kind, "Column"), sprintf("name=%s", q(x$name)))
  )
  sprintf("%s(%s)", fields[1], fields[2])
}

# The keys of a crossed column: names, or the reprs of the columns crossed.
tuple_of_keys <- function(keys) {
  parts <- vapply(keys, function(k) {
    if (is.character(k)) return(paste0("'", k, "'"))
    if (identical(k$kind, "raw")) return(paste0("'", k$name, "'"))
    column_repr(k)
  }, "")
  paste0("(", paste(parts, collapse = ", "), ")")
}

#' @export
print.cppestimators_feature_columns <- function(x, ...) {
  cat(sprintf("%d feature column%s\n", length(x), if (length(x) == 1L) "" else "s"))
  for (i in seq_along(x)) cat(sprintf("[[%d]] %s\n", i, format(x[[i]])))
  invisible(x)
}
