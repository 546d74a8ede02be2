# Tensors of the graph a model_fn builds (R/tf_graph.R): the tensor
# objects, their arithmetic (Ops), constants, dtypes, shapes and axes.

# Tensors ---------------------------------------------------------------------

new_tf_tensor <- function(g, id) {
  node <- g$nodes[[id + 1L]]
  structure(list(graph = g, id = id, shape = node$shape, dtype = node$dtype, name = node$name),
            class = "cppestimators_tf_tensor")
}

is_tf_tensor <- function(x) inherits(x, "cppestimators_tf_tensor")

# "(?, 10)" as TensorFlow shows a shape.
format_tf_shape <- function(shape) {
  dims <- ifelse(shape < 0, "?", format(shape, scientific = FALSE, trim = TRUE))
  paste0("(", paste(dims, collapse = ", "), if (length(shape) == 1L) "," else "", ")")
}

#' @export
format.cppestimators_tf_tensor <- function(x, ...) {
  sprintf("Tensor(\"%s\", shape=%s, dtype=%s)", x$name, format_tf_shape(x$shape), x$dtype)
}

#' @export
print.cppestimators_tf_tensor <- function(x, ...) {
  cat(format(x), "\n", sep = "")
  invisible(x)
}

#' @export
dim.cppestimators_tf_tensor <- function(x) {
  shape <- .subset2(x, "shape")
  if (length(shape) == 0L) return(NULL)
  ifelse(shape < 0, NA_integer_, as.integer(shape))
}

# The graph of the tensors among `args`, which must be the current graph.
tf_graph_of <- function(...) {
  g <- current_tf_graph()
  for (x in list(...)) {
    if (inherits(x, "cppestimators_tf_features")) x <- structure(list(graph = attr(x, "graph"), name = "features"),
                                                                class = "cppestimators_tf_tensor")
    if (is_tf_tensor(x) && !identical(x$graph, g)) {
      abort(sprintf(paste0("Tensor %s is from another graph: a tensor belongs to the model_fn call that ",
                           "made it; build every tensor inside the current model_fn."), x$name),
            class = "cppestimators_tf_graph_error")
    }
  }
  g
}

# Values, operands and dtypes ---------------------------------------------------

# A constant node from an R value: a scalar has shape (), a vector (n), a
# matrix or array its dim (values row-major).
tf_constant_node <- function(g, value, dtype, name = NULL) {
  if (is.logical(value)) value <- as.numeric(value)
  if (!is.numeric(value) || length(value) == 0L) {
    abort(sprintf("a tensor or a number was expected, not %s.", describe(value)), class = "cppestimators_tf_type_error")
  }
  d <- dim(value)
  shape <- if (!is.null(d)) d else if (length(value) == 1L) numeric() else length(value)
  values <- if (length(d) > 1L) as.vector(aperm(value)) else as.vector(value)
  values <- as.numeric(values)
  if (dtype %in% c("int32", "int64") && any(values != trunc(values), na.rm = TRUE)) {
    abort(sprintf("Expected %s, got %s of type 'float' instead.", dtype, format(values[values != trunc(values)][1])),
          class = "cppestimators_tf_dtype_error")
  }
  if (dtype == "bool") values <- as.numeric(values != 0)
  tf_graph_node(g, "constant", shape = shape, dtype = dtype, name = tf_op_name(g, "Const", name), value = values)
}

# The default dtype of an R value, as TF converts Python values.
r_value_dtype <- function(x) if (is.logical(x)) "bool" else if (is.integer(x)) "int32" else "float32"

# `x` as a tensor of `g`: a tensor as it is, an R value as a constant of
# `dtype` (or its own default dtype).
as_tf_tensor <- function(x, g, dtype = NULL, arg = "x") {
  if (is_tf_tensor(x)) return(x)
  if (inherits(x, "cppestimators_tf_global_step")) global_step_misuse()
  if (inherits(x, "cppestimators_tf_features")) return(tf_features_matrix(x))
  if (!is.numeric(x) && !is.logical(x)) {
    abort(sprintf("`%s` must be a tensor or a number, not %s.", arg, describe(x)),
          class = "cppestimators_tf_type_error")
  }
  tf_constant_node(g, x, dtype %||% r_value_dtype(x))
}

# Values of a non-batched tensor in one row.
tf_per_row <- function(shape) if (length(shape) && shape[1] < 0) prod(shape[-1]) else prod(shape)

is_batched <- function(shape) length(shape) > 0L && shape[1] < 0

# The numpy broadcast of two static shapes. The batch's rows (-1) must stay
# the first dimension, and meet only -1 or 1.
tf_broadcast_shape <- function(a, b) {
  n <- max(length(a), length(b))
  pa <- c(rep(1, n - length(a)), a)
  pb <- c(rep(1, n - length(b)), b)
  out <- ifelse(pa == pb, pa, ifelse(pa == 1, pb, ifelse(pb == 1, pa, NA)))
  batch_moved <- (is_batched(a) && length(a) < n) || (is_batched(b) && length(b) < n)
  if (anyNA(out) || batch_moved) {
    why <- if (batch_moved) " (the batch's rows would pair with another dimension)" else ""
    abort(sprintf("Incompatible shapes: %s and %s cannot be broadcast together%s.",
                  format_tf_shape(a), format_tf_shape(b), why), class = "cppestimators_tf_shape_error")
  }
  out
}

check_same_dtype <- function(x, y, what = "the operands") {
  if (!identical(x$dtype, y$dtype)) {
    abort(sprintf(paste0("%s have different dtypes: %s is %s and %s is %s; TensorFlow does not convert ",
                         "them: use tf$cast()."), what, x$name, x$dtype, y$name, y$dtype),
          class = "cppestimators_tf_dtype_error")
  }
}

is_float_dtype <- function(dtype) dtype %in% c("float32", "float64")

# A binary op with broadcasting: R values adopt the tensor's dtype.
tf_binary <- function(x, y, kind, base, name = NULL, bool = FALSE) {
  g <- tf_graph_of(x, y)
  if (!is_tf_tensor(x) && !is_tf_tensor(y)) x <- as_tf_tensor(x, g, arg = "x")
  if (is_tf_tensor(x)) y <- as_tf_tensor(y, g, x$dtype, arg = "y") else x <- as_tf_tensor(x, g, y$dtype)
  check_same_dtype(x, y)
  shape <- tf_broadcast_shape(x$shape, y$shape)
  tf_graph_node(g, kind, tf_ids(x, y), shape, if (bool) "bool" else x$dtype, tf_op_name(g, base, name))
}

tf_unary <- function(x, kind, base, name = NULL, float = TRUE, ...) {
  g <- tf_graph_of(x)
  x <- as_tf_tensor(x, g)
  if (float && !is_float_dtype(x$dtype)) {
    abort(sprintf("%s of %s: the tensor's dtype is %s; TensorFlow's %s takes floats (use tf$cast()).",
                  base, x$name, x$dtype, base), class = "cppestimators_tf_dtype_error")
  }
  tf_graph_node(g, kind, tf_ids(x), x$shape, x$dtype, tf_op_name(g, base, name), ...)
}

tf_binary_ops <- c(`+` = "add", `-` = "sub", `*` = "mul", `/` = "div", `^` = "pow", `==` = "equal",
                   `!=` = "not_equal", `>` = "greater", `>=` = "greater_equal", `<` = "less",
                   `<=` = "less_equal")
tf_binary_bases <- c(add = "add", sub = "sub", mul = "mul", div = "truediv", pow = "pow", equal = "Equal",
                     not_equal = "NotEqual", greater = "Greater", greater_equal = "GreaterEqual", less = "Less",
                     less_equal = "LessEqual")

#' @export
Ops.cppestimators_tf_tensor <- function(e1, e2) {
  if (inherits(e1, "cppestimators_tf_global_step") || (!missing(e2) && inherits(e2, "cppestimators_tf_global_step"))) {
    global_step_misuse()
  }
  if (missing(e2)) {
    if (.Generic == "-") return(tf_unary(e1, "neg", "Neg", float = FALSE))
    if (.Generic == "+") return(e1)
  }
  kind <- unname(tf_binary_ops[.Generic])
  if (is.na(kind)) {
    abort(sprintf("`%s` is not supported on tensors; the supported operators are %s.", .Generic,
                  paste(names(tf_binary_ops), collapse = " ")), class = "cppestimators_unsupported_tf")
  }
  if (kind == "div") return(tf_truediv(e1, e2))
  tf_binary(e1, e2, kind, tf_binary_bases[[kind]], bool = kind %in% c("equal", "not_equal", "greater",
                                                                     "greater_equal", "less", "less_equal"))
}

# TF's true division: integers divide as float64 (int32, int64) values.
tf_truediv <- function(x, y, name = NULL) {
  g <- tf_graph_of(x, y)
  if (is_tf_tensor(x) && x$dtype %in% c("int32", "int64") || is_tf_tensor(y) && y$dtype %in% c("int32", "int64")) {
    if (is_tf_tensor(x) && is_tf_tensor(y)) check_same_dtype(x, y)
    x <- tf_cast_to(as_tf_tensor(x, g, if (is_tf_tensor(y)) y$dtype), "float64")
    y <- tf_cast_to(as_tf_tensor(y, g, x$dtype), "float64")
  }
  tf_binary(x, y, "div", "truediv", name)
}

# Casts a tensor to `dtype` (unchanged when it has it).
tf_cast_to <- function(x, dtype, base = "Cast", name = NULL) {
  if (identical(x$dtype, dtype)) return(x)
  g <- x$graph
  tf_graph_node(g, "cast", tf_ids(x), x$shape, dtype, tf_op_name(g, base, name))
}

# Normalizes 0-based axes (negative ones from the end) of a rank-`rank`
# tensor; an error naming `fn` when out of range.
tf_axes <- function(axis, rank, fn, arg = "axis") {
  axis <- unlist(axis)
  if (!is.numeric(axis) || anyNA(axis) || any(axis != trunc(axis))) {
    abort(sprintf("%s: `%s` must be whole numbers (0-based axes, as TensorFlow's), not %s.", fn, arg,
                  describe(axis)), class = "cppestimators_tf_shape_error")
  }
  bad <- axis < -rank | axis >= rank
  if (any(bad)) {
    abort(sprintf("%s: axis %s is out of range for a tensor of rank %d (axes are 0-based, as TensorFlow's: %s).",
                  fn, format(axis[bad][1]), rank, paste0("[", -rank, ", ", rank, ")")),
          class = "cppestimators_tf_shape_error")
  }
  sort(unique(as.integer(ifelse(axis < 0, axis + rank, axis))))
}
