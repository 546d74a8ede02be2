# Argument checks and the package's errors.
#
# Every check_*() takes the value and `arg`, the argument's name as the
# caller spells it, and returns the validated value (NULL when `null_ok` and
# the value is NULL). Its default message names the argument, says what was
# expected and shows what was given ("`x` must be a positive number, not
# character \"a\"."); `must` replaces the expectation and `message` the
# whole message where a message of TensorFlow's or an older one is kept.
#
# abort() is the one way the package raises an error: a condition of classes
# c(class, "cppestimators_error", "error", "condition"), so that callers can
# catch every error of the package with tryCatch(cppestimators_error = ).

`%||%` <- function(x, y) if (is.null(x)) y else x

abort <- function(message, class = NULL, ..., call = NULL) {
  if (inherits(message, "condition")) base::stop(with_package_class(message, class))
  if (!is.character(message)) message <- paste(format(message), collapse = "\n")
  cond <- structure(class = c(class, "cppestimators_error", "error", "condition"),
                    list(message = paste(message, collapse = ""), call = call, ...))
  base::stop(cond)
}

# A condition raised elsewhere (by the engine, by R, by the user's code) with
# the package's class added after its own, more specific, classes.
with_package_class <- function(cond, class = NULL) {
  own <- setdiff(class(cond), c(class, "cppestimators_error"))
  generic <- own %in% c("simpleError", "error", "condition")
  class(cond) <- c(class, own[!generic], "cppestimators_error", own[generic])
  cond
}

# The message of a failed check: `message` as given, or "`arg` must be
# <must>, not <what was given>.".
check_message <- function(x, arg, must, message = NULL) {
  message %||% sprintf("`%s` must be %s, not %s.", arg, must, describe(x))
}

is_single <- function(x) length(x) == 1L && !is.na(x)

# A single number in [min, max] (`exclusive_min`, `exclusive_max`: the bound
# itself excluded); finite unless `finite = FALSE`.
check_number <- function(x, arg, min = -Inf, max = Inf, exclusive_min = FALSE, exclusive_max = FALSE,
                         finite = TRUE, null_ok = FALSE, must = NULL, message = NULL) {
  if (is.null(x) && null_ok) return(NULL)
  if (!is.numeric(x) || !is_single(x) || (finite && !is.finite(x)) ||
      (if (exclusive_min) x <= min else x < min) || (if (exclusive_max) x >= max else x > max)) {
    must <- must %||% paste0(if (null_ok) "NULL or ", number_range(min, max, exclusive_min, exclusive_max))
    abort(check_message(x, arg, must, message))
  }
  as.numeric(x)
}

number_range <- function(min, max, exclusive_min = FALSE, exclusive_max = FALSE) {
  if (exclusive_min && min == 0 && max == Inf) return("a positive number")
  lower <- if (min == -Inf) NULL else sprintf("%s %s", if (exclusive_min) ">" else ">=", format(min))
  upper <- if (max == Inf) NULL else sprintf("%s %s", if (exclusive_max) "<" else "<=", format(max))
  if (is.null(lower) && is.null(upper)) return("a single number")
  paste("a number", paste(c(lower, upper), collapse = " and "))
}

# A whole number: >= 1 (`positive = TRUE`) or >= 0, and <= max. Without
# `message`, the messages of check_whole().
check_count <- function(x, arg, positive = TRUE, max = Inf, null_ok = FALSE, message = NULL) {
  min <- if (positive) 1 else 0
  if (is.null(message)) return(check_whole(x, arg, min = min, null_ok = null_ok, max = max))
  if (is.null(x) && null_ok) return(NULL)
  if (!is.numeric(x) || !is_single(x) || !is.finite(x) || x != floor(x) || x < min || x > max) abort(message)
  as.numeric(x)
}

# A whole number in [min, max], with a message for each way it can fail.
check_whole <- function(x, arg, min = 1, null_ok = TRUE, max = Inf) {
  if (is.null(x)) {
    if (null_ok) return(NULL)
    abort(sprintf("`%s` must not be NULL.", arg))
  }
  if (!is.numeric(x) || !is_single(x) || !is.finite(x) || x != floor(x)) {
    abort(sprintf("`%s` must be a single whole number, not %s.", arg, describe(x)))
  }
  if (x < min) abort(sprintf("`%s` must be >= %s, given: %s.", arg, format(min), format(x)))
  if (x > max) {
    limit <- if (max == 2^53) "2^53 (9007199254740992)" else format(max)
    abort(sprintf("`%s` must be <= %s, given: %s.", arg, limit, format(x)))
  }
  as.numeric(x)
}

# A single string, not NA, and not "" unless `empty_ok`.
check_string <- function(x, arg, null_ok = FALSE, empty_ok = FALSE, must = NULL, message = NULL) {
  if (is.null(x) && null_ok) return(NULL)
  if (!is.character(x) || !is_single(x) || (!empty_ok && !nzchar(x))) {
    must <- must %||% paste0(if (null_ok) "NULL or ", if (empty_ok) "a string" else "a non-empty string")
    abort(check_message(x, arg, must, message))
  }
  x
}

# TRUE or FALSE.
check_flag <- function(x, arg, message = NULL) {
  if (!isTRUE(x) && !isFALSE(x)) abort(check_message(x, arg, "TRUE or FALSE", message))
  x
}

# One of the strings `choices`; the message lists them.
check_choice <- function(x, arg, choices, null_ok = FALSE, message = NULL) {
  if (is.null(x) && null_ok) return(NULL)
  if (!is.character(x) || !is_single(x) || !x %in% choices) {
    must <- paste0(if (null_ok) "NULL or ", "one of ", or_list(paste0('"', choices, '"')))
    abort(check_message(x, arg, must, message))
  }
  x
}


# A dtype argument, the one check of every argument that takes one: the
# `tf` object's dtype (tf$int64) or its name ("int64", also spelt
# "tf$int64" or "tf.int64"; "float", "double", "integer" and "logical" are
# float32, float64, int32 and bool), one of `accepted`. Returns the name.
# "string" is only ever a name: the `tf` object has no string dtype.
as_dtype_string <- function(x, arg = "dtype", accepted, null_ok = FALSE, class = NULL) {
  if (is.null(x) && null_ok) return(NULL)
  name <- if (inherits(x, "cppestimators_tf_dtype")) .subset2(x, "name") else if (is.character(x) && is_single(x)) {
    d <- sub("^tf[$.]", "", x)
    if (d %in% names(dtype_aliases)) dtype_aliases[[d]] else d
  }
  if (is.null(name) || !name %in% accepted) {
    tf_forms <- paste0("tf$", intersect(accepted, tf_dtypes))
    given <- if (inherits(x, "cppestimators_tf_dtype")) paste0("tf$", .subset2(x, "name")) else describe(x)
    abort(sprintf("`%s` must be %s%s%s, not %s.", arg, if (null_ok) "NULL, " else "",
                  if (length(accepted) > 1L) "one of " else "", or_list(c(paste0('"', accepted, '"'), tf_forms)),
                  given), class = c(class, "cppestimators_dtype_error"))
  }
  name
}

dtype_aliases <- c(float = "float32", double = "float64", integer = "int32", logical = "bool")
# "a, b or c"
or_list <- function(x) {
  if (length(x) < 2L) return(paste(x, collapse = ""))
  paste(paste(x[-length(x)], collapse = ", "), "or", x[length(x)])
}

# A path: a non-empty string; with `exists = "file"` the path of an existing
# file (not a directory), with `exists = "dir"` of an existing directory.
check_path <- function(x, arg, exists = c("no", "file", "dir"), null_ok = FALSE, message = NULL) {
  exists <- match.arg(exists)
  if (is.null(x) && null_ok) return(NULL)
  kind <- if (exists == "dir") "directory" else "file"
  check_string(x, arg, null_ok = null_ok,
               must = paste0(if (null_ok) "NULL or ", "the path of a ", kind), message = message)
  if (exists == "file" && (!file.exists(x) || dir.exists(x))) {
    abort(message %||% sprintf("`%s`: no file at '%s'.", arg, x))
  }
  if (exists == "dir" && !dir.exists(x)) abort(message %||% sprintf("`%s`: no directory at '%s'.", arg, x))
  x
}

# A positive number of seconds (infinity allowed), or NULL.
check_seconds <- function(x, arg) {
  if (is.null(x)) return(NULL)
  check_number(x, arg, min = 0, exclusive_min = TRUE, finite = FALSE, must = "a positive number of seconds")
}

check_function <- function(x, arg, null_ok = TRUE) {
  if (is.null(x) && null_ok) return(NULL)
  if (!is.function(x)) {
    abort(sprintf("`%s` must be a function%s, not %s.", arg, if (null_ok) " or NULL" else "", describe(x)))
  }
  x
}

# What a value is, for messages: `character "a"`, `a numeric vector of length 3`.
describe <- function(x) {
  if (is.null(x)) return("NULL")
  if (is.function(x)) return("a function")
  if (is.atomic(x) && length(x) == 1L) return(paste0(class(x)[1], " ", deparse(x)))
  if (is.atomic(x)) return(sprintf("a %s vector of length %d", class(x)[1], length(x)))
  sprintf("an object of class '%s'", class(x)[1])
}

# Evaluates `expr`, adding the package's class to errors from the engine
# (C++ exceptions arrive as conditions of their own classes).
with_error_class <- function(expr) {
  tryCatch(expr, error = function(e) {
    if (!inherits(e, "cppestimators_error")) e$call <- NULL
    if (is_file_error(e)) class(e) <- unique(c("cppestimators_file_error", class(e)))
    abort(e)
  })
}

# Whether an error is a file of the package that could not be written or
# read for a reason of the OS (the io layer words its errors
# "<path>: <what>: <the OS's reason>").
is_file_error <- function(e) length(file_error_reason(e)) > 0L

# The OS's reasons a file cannot be written (strerror's texts).
file_error_reasons <- c("No space left on device", "Disk quota exceeded", "Read-only file system",
                        "Permission denied", "File too large", "Input/output error")

# The first of them an error's message gives (character() when none).
file_error_reason <- function(e) {
  found <- vapply(file_error_reasons, grepl, TRUE, x = conditionMessage(e), fixed = TRUE)
  utils::head(file_error_reasons[found], 1L)
}

# The names of the arguments in a `...` as the caller received them ("" for
# unnamed ones); call it as dots_names(...).
dots_names <- function(...) {
  n <- ...length()
  if (n == 0L) return(character())
  nms <- ...names()
  if (is.null(nms)) return(rep("", n))
  nms[is.na(nms)] <- ""
  nms
}

# The valid name closest to `name` (a prefix of it, or within a small edit
# distance), or NULL.
nearest_name <- function(name, valid) {
  valid <- unique(valid[nzchar(valid)])
  if (!nzchar(name) || length(valid) == 0L) return(NULL)
  d <- drop(utils::adist(tolower(name), tolower(valid)))
  prefix <- startsWith(valid, name) | startsWith(name, valid) |
    (nchar(name) >= 4L & grepl(name, valid, fixed = TRUE))
  d[prefix] <- pmin(d[prefix], 1)
  best <- which.min(d)
  if (d[best] <= max(2, ceiling(nchar(name) / 3))) valid[best] else NULL
}

# " Did you mean `x`?" when a valid name is near, else "".
did_you_mean <- function(name, valid) {
  near <- nearest_name(name, valid)
  if (is.null(near)) "" else sprintf(" Did you mean `%s`?", near)
}

# The arguments in a `...` that `fn()` would otherwise drop: each named one
# of `ignored` (arguments accepted for compatibility) is a warning, anything
# else an error naming the argument and the nearest of `valid`. `dots`
# holds the names, from dots_names(...).
check_dots <- function(dots, fn, valid, ignored = character()) {
  if (length(dots) == 0L) return(invisible())
  unnamed <- !nzchar(dots)
  if (any(unnamed)) {
    abort(sprintf("%s() got %d unnamed argument%s it does not use: give arguments by name (it takes %s).",
                  fn, sum(unnamed), if (sum(unnamed) > 1L) "s" else "",
                  paste0("`", setdiff(valid, "..."), "`", collapse = ", ")),
          class = "cppestimators_unknown_argument")
  }
  skipped <- dots[dots %in% ignored]
  if (length(skipped)) {
    warning(warning_condition(
      sprintf("%s(): %s %s accepted for compatibility with tfestimators and ignored.", fn,
              paste0("`", skipped, "`", collapse = ", "), if (length(skipped) > 1L) "are" else "is")))
  }
  bad <- dots[!dots %in% ignored]
  if (length(bad) == 0L) return(invisible())
  abort(sprintf("%s(): unknown argument%s %s.%s", fn, if (length(bad) > 1L) "s" else "",
                paste0("`", bad, "`", collapse = ", "), did_you_mean(bad[1], c(valid, ignored))),
        class = "cppestimators_unknown_argument")
}

# A warning of the package's class.
warning_condition <- function(message) {
  structure(class = c("cppestimators_warning", "warning", "condition"),
            list(message = message, call = NULL))
}
