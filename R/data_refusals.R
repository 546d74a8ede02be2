# Data the package refuses with a message saying why: matrices of the
# sparse matrix packages where an input function is needed (and the other
# packages' sparse matrices, not read), data without rows, and a
# classifier's first training data holding a single class.

# The classes of the Matrix package (sparse or not: `inherits()` follows S4
# inheritance), SparseM's and slam's sparse matrices.
unread_matrix_classes <- c("Matrix", "sparseVector", "matrix.csr", "matrix.csc", "matrix.coo",
                           "simple_triplet_matrix")

# An error for a sparse (or Matrix package) matrix given where a data frame,
# a list or a base matrix is read. `arg`: the argument as the caller names it.
check_not_sparse <- function(x, arg, fn) {
  if (!inherits(x, unread_matrix_classes)) return(invisible(x))
  cls <- class(x)[1L]
  if (inherits(x, "sparseMatrix")) {
    abort(sprintf(paste("%s(): `%s` is a sparse matrix (class '%s'): give it to input_fn() as one feature",
                        "with its response, input_fn(x, response = y), or in a named list,",
                        "input_fn(list(x = x, y = y), response = \"y\")."), fn, arg, cls),
          class = "cppestimators_sparse_matrix")
  }
  abort(sprintf(paste("%s(): `%s` is a %s matrix (class '%s'), which cppestimators does not read yet.",
                      "For data that fit in memory densely, convert it first:",
                      "as.data.frame(as.matrix(%s)) (or as.matrix(), with column names)."),
                fn, arg, if (inherits(x, c("sparseMatrix", "sparseVector", "matrix.csr", "matrix.csc",
                                           "matrix.coo", "simple_triplet_matrix"))) "sparse" else "Matrix package",
                cls, arg),
        class = "cppestimators_sparse_matrix")
}

# An error for training or evaluation data without rows. `n`: the rows.
check_has_rows <- function(n, fn, what = "data") {
  if (n > 0) return(invisible())
  abort(sprintf("%s(): the %s has no rows (0 rows): there is nothing to %s.", fn, what,
                if (fn == "evaluate") "evaluate on" else "train on"),
        class = "cppestimators_empty_data")
}

# On a classifier's first training over data in memory: an error when its
# labels (class ids, doubles, no NA) hold one class only. One pass over the
# labels. `levels`: the names of the class ids
# (0, 1, ...), else the id is shown.
check_two_classes <- function(ids, name, levels = NULL) {
  n <- length(ids)
  if (n == 0L) return(invisible())
  id <- ids[[1L]]
  if (any(ids != id)) return(invisible())
  named <- !is.null(levels) && is.numeric(id) && id == floor(id) && id >= 0 && id < length(levels)
  label <- if (named) levels[[id + 1]] else format(id)
  abort(sprintf(paste("the training data's outcome '%s' has a single class, '%s' (%s rows): a classifier needs",
                      "at least two to learn from. Check how the rows were chosen (a filter, or a split",
                      "that kept one class)."),
                name, label, format(n, big.mark = ",")),
        class = "cppestimators_single_class")
}
