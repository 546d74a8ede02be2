# Selecting feature names: the active-names scope (with_columns(),
# set_columns(), scoped_columns()), capture_names() for the column_*()
# constructors and select_columns() for input_fn(). Selection helpers are
# tidyselect's own (re-exported below); tidyselect::eval_select() does the
# selecting, against a named list standing for the active names.

# The active feature names: NULL when no scope is set.
active_columns <- new.env(parent = emptyenv())
active_columns$names <- NULL

# Stands for "not bound" in lookups, where NULL is a possible value.
unbound <- structure(list(), class = "cppestimators_unbound")

#' Feature names for selection helpers
#'
#' Column constructors such as [column_numeric()] resolve their names with
#' tidyselect: bare names and strings always work, while selection helpers
#' ([starts_with()], [one_of()], [everything()], ...) and positions choose
#' among a set of *active* names. These functions establish that set; so does
#' the `names` argument of [feature_columns()].
#'
#' `with_columns()` evaluates `expr` with the names active and then restores
#' the previous set, even when `expr` fails. `set_columns()` makes them active
#' until changed. `scoped_columns()` without arguments returns the active
#' names; given `columns`, it makes them active until the calling function
#' returns (at top level it acts like `set_columns()`).
#'
#' Inside a scope, a bare name that is not an active name but a variable
#' holding a character vector stands for those names, and an unknown name is
#' an error listing the active ones.
#'
#' @param columns A character vector of feature names, or an object whose
#'   names are the feature names: a data frame, a named list, or a matrix with
#'   column names. `NULL` clears the active names.
#' @param expr An expression, evaluated with `columns` active.
#' @return `with_columns()`: the value of `expr`. `set_columns()` and
#'   `scoped_columns(columns)`: the previously active names, invisibly.
#'   `scoped_columns()`: the active names, or `NULL` if none are set.
#' @family feature columns
#' @name column_scope
#' @examples
#' fcs <- with_columns(iris, feature_columns(column_numeric(starts_with("Sepal"))))
#' vapply(fcs, function(col) col$name, "")
#'
#' scoped_columns()          # NULL: no names are active
#' old <- set_columns(mtcars)
#' scoped_columns()
#' column_numeric(ends_with("t"))
#' set_columns(old)
#'
#' numeric_iris <- function() {
#'   scoped_columns(iris)
#'   column_numeric(-Species)
#' }
#' length(numeric_iris())
NULL

#' @rdname column_scope
#' @export
with_columns <- function(columns, expr) {
  old <- set_columns(columns)
  on.exit(restore_columns(old), add = TRUE)
  expr
}

#' @rdname column_scope
#' @export
set_columns <- function(columns) {
  new <- as_column_names(columns)
  old <- active_columns$names
  active_columns$names <- new
  invisible(old)
}

#' @rdname column_scope
#' @export
scoped_columns <- function(columns) {
  if (missing(columns)) return(active_columns$names)
  old <- set_columns(columns)
  frame <- parent.frame()
  if (!identical(frame, globalenv())) {
    # Restored when the caller returns; later scopes are undone first.
    do.call(base::on.exit, list(as.call(list(restore_columns, old)), TRUE, FALSE),
            envir = frame)
  }
  invisible(old)
}

restore_columns <- function(old) {
  active_columns$names <- old
  invisible(NULL)
}

# Feature names from a character vector or a named object.
as_column_names <- function(columns, arg = "columns") {
  if (is.null(columns)) return(NULL)
  nms <- if (is.character(columns) && is.null(dim(columns))) {
    columns
  } else if (is.matrix(columns) || is.data.frame(columns)) {
    colnames(columns)
  } else if (is.list(columns) || is.atomic(columns)) {
    names(columns)
  } else {
    NULL
  }
  if (is.null(nms)) {
    abort(sprintf(paste0("`%s` must be a character vector of feature names, or a data frame, named list or matrix ",
                         "with column names, not %s."), arg, describe(columns)))
  }
  nms <- as.character(nms)
  if (anyNA(nms) || any(!nzchar(nms))) {
    abort(sprintf("`%s` must not contain missing or empty feature names.", arg))
  }
  unique(nms)
}

# The feature names selected by a column constructor's `...`.
#
# Contract: call it as `names <- capture_names(...)` from the body of a
# column_*() constructor, passing the constructor's own `...`; it finds the
# caller's environment itself (each argument is captured with its
# environment). It returns a character vector of unique feature names, in
# selection order, or stops with an error naming the problem:
# - without active names, bare names and strings stand for themselves; a
#   bare name bound to a character vector, or any other expression yielding
#   a character vector, gives those names; selection helpers, `-`, `:` and
#   positions are an error saying how to set the active names;
# - with active names (feature_columns(names = ), with_columns(),
#   set_columns(), scoped_columns()), everything is resolved by tidyselect
#   against them, and a name that is not among them is an error listing them.
capture_names <- function(...) {
  quos <- rlang::enquos(...)
  if (length(quos) == 0L) abort("no feature names given in `...`.")
  arg_names <- names(quos)
  if (!is.null(arg_names) && any(nzchar(arg_names))) {
    bad <- arg_names[nzchar(arg_names)]
    abort(sprintf("`...` takes feature names, not named arguments (%s); is an argument name misspelt?",
                  paste0("`", bad, " = `", collapse = ", ")))
  }
  active <- active_columns$names
  if (is.null(active)) {
    out <- unlist(lapply(quos, function(q) {
      names_without_scope(rlang::quo_get_expr(q), rlang::quo_get_env(q))
    }))
    if (length(out) == 0L) abort("no feature names given in `...`.")
    if (anyNA(out) || any(!nzchar(out))) abort("feature names must be non-empty.")
    return(unique(out))
  }
  unknown <- function(bad) {
    if (is.numeric(bad)) {
      abort(sprintf("position%s %s past the %d active names (%s).",
                    if (length(bad) > 1L) "s" else "",
                    paste(paste(bad, collapse = ", "), if (length(bad) > 1L) "are" else "is"),
                    length(active), name_list(active)))
    }
    abort(sprintf("unknown feature name%s %s: the active names are %s.",
                  if (length(bad) > 1L) "s" else "", quote_names(bad), name_list(active)))
  }
  out <- resolve_selection(quos, active, unknown)
  if (length(out) == 0L) {
    abort(sprintf("`%s` selected none of the active names (%s).",
                  paste(vapply(quos, rlang::quo_text, ""), collapse = ", "), name_list(active)))
  }
  out
}

selection_helpers <- c("starts_with", "ends_with", "contains", "matches", "one_of",
                       "num_range", "everything", "last_col", "all_of", "any_of", "where")
selection_operators <- c("-", "!", ":", "&", "|")

# Names from one argument when no names are active.
names_without_scope <- function(e, env) {
  if (rlang::is_quosure(e)) {
    return(names_without_scope(rlang::quo_get_expr(e), rlang::quo_get_env(e)))
  }
  if (is.symbol(e)) {
    nm <- as.character(e)
    val <- lookup_value(nm, env)
    if (is.character(val)) return(val)
    return(nm)
  }
  if (is.character(e)) return(e)
  if (is.call(e)) {
    head <- call_head_name(e)
    if (identical(head, "c")) {
      return(unlist(lapply(as.list(e)[-1L], names_without_scope, env = env)))
    }
    if (!is.null(head) && (head %in% selection_helpers || head %in% selection_operators)) {
      no_scope_error(e)
    }
    val <- tryCatch(rlang::eval_tidy(e, env = env), error = function(err) {
      if (grepl("selecting* function", conditionMessage(err), fixed = TRUE)) no_scope_error(e)
      abort(err)
    })
    if (is.null(val)) return(character())
    if (!is.character(val)) {
      abort(paste0("feature names must be bare names or strings, not ", describe(val), "."))
    }
    return(val)
  }
  if (is.null(e)) return(character())
  if (is.numeric(e)) no_scope_error(e)
  abort(paste0("feature names must be bare names or strings, not ", describe(e), "."))
}

no_scope_error <- function(e) {
  abort(sprintf(paste0("`%s` selects among the active feature names, but none are set: ",
                       "give them with feature_columns(..., names = ) or with_columns(names, ...)."),
                paste(deparse(e, width.cutoff = 60L), collapse = " ")))
}

# The function name at the head of a call (`pkg::fn` gives "fn"), or NULL.
call_head_name <- function(e) {
  head <- e[[1L]]
  if (is.symbol(head)) return(as.character(head))
  if (is.call(head) && length(head) == 3L &&
      (identical(head[[1L]], as.name("::")) || identical(head[[1L]], as.name(":::")))) {
    return(as.character(head[[3L]]))
  }
  NULL
}

# The value a name is bound to in `env` or its enclosing environments, or
# `unbound` when it is not bound there, when looking it up fails, or when the
# binding belongs to base R or an attached package (so that `letters` or `pi`
# stay names).
lookup_value <- function(nm, env) {
  if (!nzchar(nm)) return(unbound)
  while (!identical(env, emptyenv())) {
    if (exists(nm, envir = env, inherits = FALSE)) {
      if (identical(env, baseenv()) || identical(env, .BaseNamespaceEnv) ||
          startsWith(environmentName(env), "package:")) {
        return(unbound)
      }
      return(tryCatch(get(nm, envir = env, inherits = FALSE), error = function(err) unbound))
    }
    env <- parent.env(env)
  }
  unbound
}

# Resolves captured arguments (quosures) against `choices` with tidyselect.
# Names not among `choices` are reported through `unknown(bad)` (it must
# stop), positions past the end through `unknown(bad_positions)`; a bare name
# that is not a choice but a variable holding names or positions is replaced
# by its value.
resolve_selection <- function(quos, choices, unknown) {
  bad <- new.env(parent = emptyenv())
  bad$names <- character()
  quos <- lapply(quos, function(q) prepare_selection(q, choices, bad))
  if (length(bad$names)) unknown(unique(bad$names))
  data <- stats::setNames(vector("list", length(choices)), choices)
  expr <- rlang::expr(c(!!!unname(quos)))
  pos <- tryCatch(
    tidyselect::eval_select(expr, data, allow_rename = FALSE, error_call = NULL),
    error = function(err) {
      oob <- find_condition(err, "vctrs_error_subscript_oob")
      if (is.null(oob)) abort(err)
      i <- oob$i
      unknown(if (is.character(i)) setdiff(i, choices) else i)
    }
  )
  choices[unname(pos)]
}

# Names not among `choices` are collected in `bad$names`.
prepare_selection <- function(q, choices, bad) {
  env <- rlang::quo_get_env(q)
  rlang::new_quosure(prepare_expr(rlang::quo_get_expr(q), env, choices, bad), env)
}

prepare_expr <- function(e, env, choices, bad) {
  if (rlang::is_quosure(e)) return(prepare_selection(e, choices, bad))
  if (is.symbol(e)) {
    nm <- as.character(e)
    if (nm %in% choices) return(e)
    val <- lookup_value(nm, env)
    if (is.null(val)) return(NULL)
    positions <- is.numeric(val) && is.null(dim(val)) && !anyNA(val) &&
      all(val == trunc(val))
    if (is.character(val) || positions) {
      if (is.character(val)) bad$names <- c(bad$names, setdiff(val, choices))
      return(unname(val))
    }
    bad$names <- c(bad$names, nm)
    return(e)
  }
  if (is.character(e)) {
    bad$names <- c(bad$names, setdiff(e, choices))
    return(e)
  }
  if (is.call(e)) {
    head <- call_head_name(e)
    if (!is.null(head) && (head %in% c("c", "(") || head %in% selection_operators) &&
        is.symbol(e[[1L]])) {
      args <- as.list(e)[-1L]
      for (i in seq_along(args)) {
        # quote(expr = ) is the empty argument, as in x[, 1]
        if (!identical(args[[i]], quote(expr = ))) { # nolint: spaces_inside_linter.
          e[i + 1L] <- list(prepare_expr(args[[i]], env, choices, bad))
        }
      }
    }
    return(e)
  }
  e
}

# The first condition of class `class` in a chain of parent conditions.
find_condition <- function(cnd, class) {
  while (!is.null(cnd)) {
    if (inherits(cnd, class)) return(cnd)
    cnd <- cnd$parent
  }
  NULL
}

quote_names <- function(x) paste0("'", x, "'", collapse = ", ")

# A list of names for an error message, shortened when long.
name_list <- function(x, max = 30L) {
  if (length(x) <= max) return(paste(x, collapse = ", "))
  sprintf("%s, ... (%d more)", paste(x[seq_len(max)], collapse = ", "), length(x) - max)
}

# Resolves input_fn()'s `features` or `response` against the data's names.
# `expr` is a quosure (from rlang::enquo()) or an expression to evaluate in
# `env`: bare names, strings, c() of them, tidyselect helpers, a variable
# holding names, or numeric positions.
select_columns <- function(expr, names, env = parent.frame(), arg, null_ok = FALSE) {
  quo <- if (rlang::is_quosure(expr)) expr else rlang::new_quosure(expr, env)
  none <- function() {
    if (null_ok) return(NULL)
    abort(sprintf("`%s` must name at least one column.", arg))
  }
  if (rlang::quo_is_missing(quo) || rlang::quo_is_null(quo)) return(none())
  if (rlang::quo_is_symbol(quo)) {
    nm <- as.character(rlang::quo_get_expr(quo))
    if (!nm %in% names && is.null(lookup_value(nm, rlang::quo_get_env(quo)))) return(none())
  }
  unknown <- function(bad) {
    if (is.numeric(bad)) {
      abort(sprintf("`%s`: column position%s %s not found; the data have %d columns: %s.", arg,
                    if (length(bad) > 1L) "s" else "", paste(bad, collapse = ", "),
                    length(names), name_list(names)))
    }
    abort(sprintf("`%s`: column%s %s not found; the data have %s.", arg,
                  if (length(bad) > 1L) "s" else "", quote_names(bad), name_list(names)))
  }
  out <- resolve_selection(list(quo), names, unknown)
  if (length(out) == 0L) {
    abort(sprintf("`%s`: `%s` selected no columns; the data have %s.", arg,
                  rlang::quo_text(quo), name_list(names)))
  }
  out
}

# Re-exported selection helpers (documented in ?reexports).

#' @importFrom tidyselect starts_with ends_with contains matches one_of num_range
#' @importFrom tidyselect everything last_col all_of any_of
#' @export
tidyselect::starts_with
#' @export
tidyselect::ends_with
#' @export
tidyselect::contains
#' @export
tidyselect::matches
#' @export
tidyselect::one_of
#' @export
tidyselect::num_range
#' @export
tidyselect::everything
#' @export
tidyselect::last_col
#' @export
tidyselect::all_of
#' @export
tidyselect::any_of
