# Normalizers of numeric columns that travel with the model: the global
# variables a normalizer_fn reads are copied into its environment, and
# normalizer_standardize() holds its statistics itself.

#' Normalizers that store their statistics
#'
#' `normalizer_standardize(mean, sd)` is a `normalizer_fn` for
#' [column_numeric()] that computes `(x - mean) / sd`, and
#' `normalizer_min_max(min, max)` one that computes `(x - min) / (max -
#' min)`, with their statistics held in the function itself, as numbers: a
#' model saved with `saveRDS()` or [export_savedmodel()] normalizes the same
#' way in any R session, and the column prints its statistics
#' (`normalizer_fn=normalizer_standardize(mean=230.7, sd=123.9)`).
#'
#' Unlike other functions, these two are not R code run over the values:
#' the engine applies their shift and scale as it reads each value (in
#' double precision, as R would), so they cost nothing per call and work on
#' every input, streaming datasets included. Calling the function from R
#' gives the same values.
#'
#' @param mean,sd Finite numbers (`sd` > 0): one each, or one per value of a
#'   multi-valued feature (a column with `shape`), applied column-wise.
#' @return A function of class `cppestimators_normalizer`.
#' @family feature columns
#' @seealso [column_numeric()], whose Normalizers section says what a plain
#'   function must hold to survive a save; [feature_columns_from_data()],
#'   which standardizes numeric columns with the data's statistics.
#' @export
#' @examples
#' scaled <- normalizer_standardize(mean(mtcars$disp), sd(mtcars$disp))
#' col <- column_numeric("disp", normalizer_fn = scaled)
#' col
#' col$normalizer_fn(c(100, 200))
#' unit <- normalizer_min_max(min(mtcars$hp), max(mtcars$hp))
#' unit(range(mtcars$hp))
normalizer_standardize <- function(mean, sd) {
  if (!is.numeric(mean) || length(mean) < 1L || !all(is.finite(mean))) {
    abort(paste0("`mean` must be finite numbers, not ", describe(mean), "."))
  }
  if (!is.numeric(sd) || length(sd) < 1L || !all(is.finite(sd)) || any(sd <= 0)) {
    abort(paste0("`sd` must be positive finite numbers, not ", describe(sd), "."))
  }
  if (length(mean) != length(sd) && length(mean) != 1L && length(sd) != 1L) {
    abort(sprintf("`mean` and `sd` must have the same length (or length 1), not %d and %d.",
                  length(mean), length(sd)))
  }
  shift_scale_normalizer(mean, sd, sprintf("normalizer_standardize(mean=%s, sd=%s)", repr_numbers(mean),
                                           repr_numbers(sd)), centres = TRUE)
}

#' @rdname normalizer_standardize
#' @param min,max Finite numbers with `max > min`: one each, or one per value
#'   of a multi-valued feature.
#' @export
normalizer_min_max <- function(min, max) {
  if (!is.numeric(min) || length(min) < 1L || !all(is.finite(min))) {
    abort(paste0("`min` must be finite numbers, not ", describe(min), "."))
  }
  if (!is.numeric(max) || length(max) < 1L || !all(is.finite(max))) {
    abort(paste0("`max` must be finite numbers, not ", describe(max), "."))
  }
  if (length(min) != length(max) && length(min) != 1L && length(max) != 1L) {
    abort(sprintf("`min` and `max` must have the same length (or length 1), not %d and %d.",
                  length(min), length(max)))
  }
  if (any(max <= min)) abort("`max` must be greater than `min` (for every value).")
  shift_scale_normalizer(min, max - min, sprintf("normalizer_min_max(min=%s, max=%s)", repr_numbers(min),
                                                 repr_numbers(max)))
}

# The normalizer (x - mean) / sd, as an R function that also tells the
# engine its shift and scale (attribute "engine"; `centres`: the shift is
# the training data's mean, so normalized values have mean 0 there).
shift_scale_normalizer <- function(mean, sd, repr, centres = FALSE) {
  fn <- function(x) {
    if (is.matrix(x) && (length(mean) > 1L || length(sd) > 1L)) {
      if (max(length(mean), length(sd)) != ncol(x)) {
        stop(sprintf("the feature has %d values per row but mean/sd %d.", ncol(x), max(length(mean), length(sd))),
             call. = FALSE)
      }
      return(sweep(sweep(x, 2L, mean), 2L, sd, "/"))
    }
    (x - mean) / sd
  }
  environment(fn) <- list2env(list(mean = as.numeric(mean), sd = as.numeric(sd)), parent = baseenv())
  structure(fn, class = c("cppestimators_normalizer", "function"), repr = repr,
            engine = list(shift = as.numeric(mean), scale = as.numeric(sd), centres = centres))
}

repr_numbers <- function(x) {
  # (a wide feature's, as a sparse matrix's thousands of columns: the first
  # few and the count, so that printing and building stay cheap)
  if (length(x) > 12L) {
    return(sprintf("(%s, ... %d values)", paste(format(signif(x[1:6], 7), trim = TRUE), collapse = ", "), length(x)))
  }
  s <- format(signif(x, 7), trim = TRUE)
  if (length(s) == 1L) s else paste0("(", paste(s, collapse = ", "), ")")
}

#' @export
print.cppestimators_normalizer <- function(x, ...) {
  cat("<normalizer> ", attr(x, "repr"), "\n", sep = "")
  invisible(x)
}

# How a column's repr shows its normalizer_fn.
normalizer_repr <- function(fn) {
  if (is.null(fn)) "None" else attr(fn, "repr", exact = TRUE) %||% "<function>"
}

# The free variables of `fn` that R would look up in the global environment:
# those are not saved with the function. Returns list(values = the ones found
# there, a named list; missing = names found nowhere). Variables of the
# function's enclosing (non-global) environments are saved with it, and those
# of packages come back with their package.
normalizer_globals <- function(fn) {
  out <- list(values = list(), missing = character())
  if (!is.function(fn) || is.primitive(fn)) return(out)
  names <- if (requireNamespace("codetools", quietly = TRUE)) {
    g <- codetools::findGlobals(fn, merge = FALSE)
    c(g$variables, g$functions)
  } else {
    setdiff(all.names(body(fn)), names(formals(fn)))
  }
  for (nm in unique(names)) {
    where <- environment(fn)
    while (!identical(where, emptyenv()) && !exists(nm, envir = where, inherits = FALSE)) {
      where <- parent.env(where)
    }
    if (identical(where, emptyenv())) {
      # only a variable (not a call) that R can not find at all is known to be missing
      if (nm %in% (if (requireNamespace("codetools", quietly = TRUE)) g$variables)) out$missing <- c(out$missing, nm)
    } else if (identical(where, globalenv())) {
      out$values[[nm]] <- get(nm, envir = where, inherits = FALSE)
    }
  }
  out
}

# `fn` with copies of the global variables it reads, in a small environment
# of its own between it and its enclosing one (global functions it calls are
# captured the same way, `depth` levels down). Other variables are left as
# they are.
capture_normalizer <- function(fn, depth = 3L) {
  if (!is.function(fn) || is.primitive(fn) || inherits(fn, "cppestimators_normalizer")) return(fn)
  found <- normalizer_globals(fn)$values
  if (length(found) == 0L) return(fn)
  if (depth > 0L) {
    found <- lapply(found, function(v) {
      if (is.function(v) && !is.primitive(v) && identical(environment(v), globalenv())) {
        capture_normalizer(v, depth - 1L)
      } else {
        v
      }
    })
  }
  keep <- attributes(fn)
  env <- list2env(found, parent = environment(fn))
  environment(fn) <- env
  attributes(fn) <- keep
  fn
}

# Before a model leaves the session (export_savedmodel()): the columns with
# their normalizers' global variables captured, or an error naming the
# column and a variable that can not be found.
capture_normalizers <- function(cols) lapply(cols, capture_column_normalizer)

capture_column_normalizer <- function(col) {
  if (!is.list(col)) return(col)  # a key given by name in a crossed column
  if (is_numeric_column(col) && !is.null(col$normalizer_fn)) {
    missing <- normalizer_globals(col$normalizer_fn)$missing
    if (length(missing)) {
      abort(sprintf(paste0("column '%s': its normalizer_fn uses `%s`, which is not defined, so the saved ",
                           "model could not normalize the feature in another R session. Define it, or give ",
                           "the values in the function (for example normalizer_standardize(mean, sd))."),
                    col$name, missing[1]), class = "cppestimators_normalizer_error")
    }
    col$normalizer_fn <- capture_normalizer(col$normalizer_fn)
  }
  for (field in c("source_column", "categorical_column")) {
    if (!is.null(col[[field]])) col[[field]] <- capture_column_normalizer(col[[field]])
  }
  if (!is.null(col[["keys"]])) col[["keys"]] <- lapply(col[["keys"]], capture_column_normalizer)
  col
}
