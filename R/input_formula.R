# Formulas in input_fn(): the response and features of `y ~ x1 + x2`,
# as tfestimators read them.

# The response, features and intercept of a formula, as tfestimators parsed
# it: `y ~ x1 + x2 - x3`, `0`/`1` terms setting the intercept, `(x)` and
# `data$x` read as `x`. A term that calls a function (`log(x)`,
# `tf$Tensor(x)`) is kept as its text when `calls = "keep"`; input_fn()
# refuses it (`calls = "error"`), since the data has no such column.
parse_formula <- function(f, calls = c("keep", "error")) {
  calls <- match.arg(calls)
  if (length(f) == 3L && is.call(f[[2]]) && !is_formula_operator(f[[2]])) {
    abort(sprintf("the response %s of the formula is a transformed term: %s.", deparse1(f[[2]]),
                  transformed_term_hint(f[[2]])))
  }
  if (length(f) != 3L || !is.symbol(f[[2]])) {
    abort("the formula must have one response on its left-hand side, e.g. y ~ x1 + x2.")
  }
  intercept <- TRUE
  walk <- function(e, sign = 1) {
    if (is.symbol(e)) return(as.character(e))
    if (is.numeric(e) && length(e) == 1L && e %in% c(0, 1)) {
      intercept <<- (e == 1) == (sign > 0)
      return(character())
    }
    if (is.call(e)) {
      if (!is_formula_operator(e)) {
        if (calls == "keep") return(deparse1(e))
        op <- if (is.symbol(e[[1]])) as.character(e[[1]]) else deparse1(e[[1]])
        abort(sprintf("unhandled formula operator: expected '+' or '-'; got '%s': %s.", op,
                      transformed_term_hint(e)))
      }
      op <- as.character(e[[1]])
      if (op == "(") return(walk(e[[2]], sign))
      if (op == "+") return(unlist(lapply(as.list(e)[-1], walk, sign = sign)))
      if (op == "-" && length(e) == 3L) return(setdiff(walk(e[[2]], sign), walk(e[[3]], -sign)))
      if (op == "-" && length(e) == 2L) {
        walk(e[[2]], -sign)
        return(character())
      }
      if (op == "$") return(as.character(e[[3]]))
      abort(sprintf("unhandled formula operator: expected '+' or '-'; got '%s'", op))
    }
    abort(paste0("unhandled formula term: ", deparse(e)))
  }
  features <- walk(f[[3]])
  list(response = as.character(f[[2]]), features = unique(features), intercept = intercept)
}

# Operators of formula syntax (interactions, nesting), as opposed to calls
# of functions that transform a column.
is_formula_operator <- function(e) {
  is.symbol(e[[1]]) && as.character(e[[1]]) %in% c("+", "-", "*", ":", "^", "/", "%in%", "|", "(", "$", "~")
}

# How to use a transformed column: compute it into the data, then name it.
transformed_term_hint <- function(e) {
  vars <- all.vars(e)
  fn <- if (is.symbol(e[[1]])) as.character(e[[1]]) else "f"
  column <- gsub("[^A-Za-z0-9_.]", "_", paste(c(fn, vars), collapse = "_"))
  in_data <- do.call(substitute, list(e, stats::setNames(
    lapply(vars, function(v) call("$", quote(data), as.name(v))), vars)))
  sprintf(paste0("transformed terms such as %s are not supported by input_fn(); compute the column first, ",
                 "e.g. data$%s <- %s, and use %s in the formula"),
          deparse1(e), column, deparse1(in_data), column)
}
