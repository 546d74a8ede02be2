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
#'   `selection ~ column_xxx(args)`. `NULL`s are skipped. A data frame given
#'   first (tfestimators' `feature_columns(mtcars, column_numeric(drat))`)
#'   sets `names`.
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
  # tfestimators' older form, feature_columns(data, column_xxx(...)): a data
  # frame first gives the names the selections choose from
  if (is.null(names) && length(quos) > 1L && is_data_argument(rlang::quo_get_expr(quos[[1L]]))) {
    first <- rlang::eval_tidy(quos[[1L]])
    if (is.data.frame(first)) {
      names <- first
      quos <- quos[-1L]
    }
  }
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

# Whether an argument of feature_columns() may be data rather than a column:
# a name or a call of anything but a column constructor, c() or list().
is_data_argument <- function(expr) {
  if (is.symbol(expr)) return(TRUE)
  if (!is.call(expr) || !is.symbol(expr[[1L]])) return(FALSE)
  fn <- as.character(expr[[1L]])
  !grepl("^column_", fn) && !fn %in% c("c", "list", "~", "feature_columns")
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

#' @export
print.cppestimators_feature_columns <- function(x, ...) {
  cat(sprintf("%d feature column%s\n", length(x), if (length(x) == 1L) "" else "s"))
  for (i in seq_along(x)) cat(sprintf("[[%d]] %s\n", i, format(x[[i]])))
  invisible(x)
}
