# Argument checks shared by the constructors. Each error names the argument
# and says what was expected.

`%||%` <- function(x, y) if (is.null(x)) y else x

check_whole <- function(x, arg, min = 1, null_ok = TRUE, max = Inf) {
  if (is.null(x)) {
    if (null_ok) return(NULL)
    stop(sprintf("`%s` must not be NULL.", arg), call. = FALSE)
  }
  if (!is.numeric(x) || length(x) != 1L || is.na(x) || !is.finite(x) || x != floor(x)) {
    stop(sprintf("`%s` must be a single whole number, not %s.", arg, describe(x)), call. = FALSE)
  }
  if (x < min) {
    stop(sprintf("`%s` must be >= %s, given: %s.", arg, format(min), format(x)), call. = FALSE)
  }
  if (x > max) {
    stop(sprintf("`%s` must be <= %s, given: %s.", arg, format(max), format(x)), call. = FALSE)
  }
  as.numeric(x)
}

check_seconds <- function(x, arg) {
  if (is.null(x)) return(NULL)
  if (!is.numeric(x) || length(x) != 1L || is.na(x) || x <= 0) {
    stop(sprintf("`%s` must be a positive number of seconds, not %s.", arg, describe(x)),
         call. = FALSE)
  }
  as.numeric(x)
}

check_function <- function(x, arg, null_ok = TRUE) {
  if (is.null(x) && null_ok) return(NULL)
  if (!is.function(x)) {
    stop(sprintf("`%s` must be a function%s, not %s.", arg,
                 if (null_ok) " or NULL" else "", describe(x)), call. = FALSE)
  }
  x
}

describe <- function(x) {
  if (is.null(x)) return("NULL")
  if (is.function(x)) return("a function")
  if (is.atomic(x) && length(x) == 1L) return(paste0(class(x)[1], " ", deparse(x)))
  if (is.atomic(x)) return(sprintf("a %s vector of length %d", class(x)[1], length(x)))
  sprintf("an object of class '%s'", class(x)[1])
}

# Every error the package raises carries the class "cppestimators_error"
# (besides more specific ones, such as "cppestimators_hook_error"), so that
# callers can catch the package's errors with tryCatch(cppestimators_error =).
# This stop() masks base::stop() inside the package; a condition object is
# re-signalled with the class added.
stop <- function(..., call. = TRUE, domain = NULL) {
  args <- list(...)
  if (length(args) == 1L && inherits(args[[1L]], "condition")) {
    cond <- args[[1L]]
    if (!inherits(cond, "cppestimators_error")) class(cond) <- c("cppestimators_error", class(cond))
    return(base::stop(cond))
  }
  cond <- structure(class = c("cppestimators_error", "error", "condition"),
                    list(message = .makeMessage(..., domain = domain),
                         call = if (isTRUE(call.)) sys.call(-1L) else NULL))
  base::stop(cond)
}

# Evaluates `expr`, adding the package's class to errors from the engine
# (C++ exceptions arrive as conditions of their own classes).
with_error_class <- function(expr) {
  tryCatch(expr, error = function(e) {
    if (!inherits(e, "cppestimators_error")) {
      class(e) <- c("cppestimators_error", class(e))
      e$call <- NULL
    }
    base::stop(e)
  })
}
