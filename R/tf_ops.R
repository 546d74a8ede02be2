# tf$... and tf$nn$...: TensorFlow 1.x ops with its signatures, each adding
# nodes to the tensors' graph (R/tf_graph.R). Axes are 0-based as in
# TensorFlow (negative ones count from the end); the first dimension of a
# batched tensor is the batch's rows (-1), which ops keep first.

# Unary ops ----------------------------------------------------------------------

# (the element-wise ones of one argument are R/tf_elementwise.R's table)
tf_nn_leaky_relu <- function(features, alpha = 0.2, name = NULL) {
  check_number(alpha, "alpha")
  tf_unary(features, "leaky_relu", "LeakyRelu", name, alpha = alpha)
}

# Binary ops -----------------------------------------------------------------------

tf_add <- function(x, y, name = NULL) tf_binary(x, y, "add", "Add", name)
tf_subtract <- function(x, y, name = NULL) tf_binary(x, y, "sub", "Sub", name)
tf_multiply <- function(x, y, name = NULL) tf_binary(x, y, "mul", "Mul", name)
tf_divide <- function(x, y, name = NULL) tf_truediv(x, y, name)
# TF 1.x's tf.div: the dtype's own division (integers divide as integers).
tf_div <- function(x, y, name = NULL) tf_binary(x, y, "div", "div", name)
tf_maximum <- function(x, y, name = NULL) tf_binary(x, y, "maximum", "Maximum", name)
tf_minimum <- function(x, y, name = NULL) tf_binary(x, y, "minimum", "Minimum", name)
tf_pow <- function(x, y, name = NULL) tf_binary(x, y, "pow", "Pow", name)
tf_equal <- function(x, y, name = NULL) tf_binary(x, y, "equal", "Equal", name, bool = TRUE)
tf_not_equal <- function(x, y, name = NULL) tf_binary(x, y, "not_equal", "NotEqual", name, bool = TRUE)
tf_greater <- function(x, y, name = NULL) tf_binary(x, y, "greater", "Greater", name, bool = TRUE)
tf_greater_equal <- function(x, y, name = NULL) {
  tf_binary(x, y, "greater_equal", "GreaterEqual", name, bool = TRUE)
}
tf_less <- function(x, y, name = NULL) tf_binary(x, y, "less", "Less", name, bool = TRUE)
tf_less_equal <- function(x, y, name = NULL) tf_binary(x, y, "less_equal", "LessEqual", name, bool = TRUE)

tf_matmul <- function(a, b, transpose_a = FALSE, transpose_b = FALSE, adjoint_a = FALSE, adjoint_b = FALSE,
                      a_is_sparse = FALSE, b_is_sparse = FALSE, name = NULL) {
  g <- tf_graph_of(a, b)
  check_flag(transpose_a, "transpose_a")
  check_flag(transpose_b, "transpose_b")
  transpose_a <- transpose_a || isTRUE(adjoint_a)
  transpose_b <- transpose_b || isTRUE(adjoint_b)
  if (is_tf_tensor(a)) b <- as_tf_tensor(b, g, a$dtype, "b") else a <- as_tf_tensor(a, g, b$dtype, "a")
  if (length(a$shape) != 2L || length(b$shape) != 2L) {
    abort(sprintf("tf$matmul() takes 2-D tensors (matrices), not shapes %s and %s.", format_tf_shape(a$shape),
                  format_tf_shape(b$shape)), class = "cppestimators_tf_shape_error")
  }
  check_same_dtype(a, b)
  sa <- if (transpose_a) rev(a$shape) else a$shape
  sb <- if (transpose_b) rev(b$shape) else b$shape
  if (sa[2] != sb[1] || sb[2] < 0) {
    why <- if (sb[2] < 0) " (the result's columns would be the batch's rows)" else ""
    abort(sprintf("tf$matmul(): dimensions must be equal, but are %s and %s for shapes %s and %s%s.",
                  format_tf_shape(sa[2])[1], format_tf_shape(sb[1]), format_tf_shape(a$shape),
                  format_tf_shape(b$shape), why), class = "cppestimators_tf_shape_error")
  }
  tf_graph_node(g, "matmul", tf_ids(a, b), c(sa[1], sb[2]), a$dtype, tf_op_name(g, "MatMul", name),
                transpose_a = transpose_a, transpose_b = transpose_b)
}

# Softmax ---------------------------------------------------------------------------

tf_last_axis_only <- function(axis, rank, fn) {
  if (is.null(axis)) return(invisible())
  if (!identical(tf_axes(axis, rank, fn), as.integer(rank - 1L))) {
    abort(sprintf("%s: only the last axis (-1) is supported, not %s.", fn, format(axis)),
          class = "cppestimators_unsupported_tf")
  }
}

tf_nn_softmax <- function(logits, axis = NULL, name = NULL, dim = NULL) {
  tf_last_axis_only(axis %||% dim, length(logits$shape), "tf$nn$softmax()")
  tf_unary(logits, "softmax", "Softmax", name)
}

tf_nn_log_softmax <- function(logits, axis = NULL, name = NULL, dim = NULL) {
  tf_last_axis_only(axis %||% dim, length(logits$shape), "tf$nn$log_softmax()")
  tf_unary(logits, "log_softmax", "LogSoftmax", name)
}

# Reductions -------------------------------------------------------------------------

tf_reduce <- function(kind, base, input_tensor, axis, keepdims, name, reduction_indices, keep_dims) {
  g <- tf_graph_of(input_tensor)
  x <- as_tf_tensor(input_tensor, g, arg = "input_tensor")
  keep <- keepdims %||% keep_dims %||% FALSE
  check_flag(keep, "keepdims")
  axis <- axis %||% reduction_indices
  rank <- length(x$shape)
  axes <- if (is.null(axis)) seq_len(rank) - 1L else tf_axes(axis, rank, paste0("tf$", kind, "()"))
  kept <- !(seq_len(rank) - 1L) %in% axes
  shape <- if (keep) ifelse(kept, x$shape, 1) else x$shape[kept]
  tf_graph_node(g, kind, tf_ids(x), shape, x$dtype, tf_op_name(g, base, name),
                axes = if (is.null(axis)) integer() else axes, keep_dims = keep)
}

tf_reduce_mean <- function(input_tensor, axis = NULL, keepdims = NULL, name = NULL, reduction_indices = NULL,
                           keep_dims = NULL) {
  tf_reduce("reduce_mean", "Mean", input_tensor, axis, keepdims, name, reduction_indices, keep_dims)
}
tf_reduce_sum <- function(input_tensor, axis = NULL, keepdims = NULL, name = NULL, reduction_indices = NULL,
                          keep_dims = NULL) {
  tf_reduce("reduce_sum", "Sum", input_tensor, axis, keepdims, name, reduction_indices, keep_dims)
}
tf_reduce_max <- function(input_tensor, axis = NULL, keepdims = NULL, name = NULL, reduction_indices = NULL,
                          keep_dims = NULL) {
  tf_reduce("reduce_max", "Max", input_tensor, axis, keepdims, name, reduction_indices, keep_dims)
}
tf_reduce_min <- function(input_tensor, axis = NULL, keepdims = NULL, name = NULL, reduction_indices = NULL,
                          keep_dims = NULL) {
  tf_reduce("reduce_min", "Min", input_tensor, axis, keepdims, name, reduction_indices, keep_dims)
}

# Shapes -------------------------------------------------------------------------------

# A "reshape" node to `shape`, after checking that the batch's rows stay
# the first dimension with the same values per row.
tf_reshape_node <- function(x, shape, base, name, fn) {
  g <- x$graph
  if (is_batched(x$shape) && !(is_batched(shape) && prod(shape[-1]) == tf_per_row(x$shape))) {
    abort(sprintf(paste0("%s: shape %s to %s moves values across the batch's rows: the first dimension must ",
                         "stay the rows (-1) with the same number of values per row (%s)."), fn,
                  format_tf_shape(x$shape), format_tf_shape(shape), format(tf_per_row(x$shape))),
          class = "cppestimators_tf_shape_error")
  }
  tf_graph_node(g, "reshape", tf_ids(x), shape, x$dtype, tf_op_name(g, base, name))
}

tf_reshape <- function(tensor, shape, name = NULL) {
  g <- tf_graph_of(tensor)
  x <- as_tf_tensor(tensor, g, arg = "tensor")
  shape <- unlist(if (is_tf_tensor(shape)) abort("tf$reshape(): `shape` must be a list or vector of numbers.",
                                                class = "cppestimators_unsupported_tf") else shape)
  if (!is.numeric(shape) || anyNA(shape) || any(shape != trunc(shape)) || any(shape < -1 | shape == 0) ||
      sum(shape == -1) > 1L) {
    abort(sprintf("tf$reshape(): `shape` must be positive whole numbers with at most one -1, not %s.",
                  describe(shape)), class = "cppestimators_tf_shape_error")
  }
  shape <- as.numeric(shape)
  if (!is_batched(x$shape) && any(shape == -1)) {
    rest <- prod(shape[shape != -1])
    if (prod(x$shape) %% rest != 0) {
      abort(sprintf("tf$reshape(): cannot reshape a tensor of %s values to shape %s.", format(prod(x$shape)),
                    format_tf_shape(shape)), class = "cppestimators_tf_shape_error")
    }
    shape[shape == -1] <- prod(x$shape) / rest
  }
  if (!is_batched(x$shape) && prod(shape) != prod(x$shape)) {
    abort(sprintf("tf$reshape(): cannot reshape a tensor of %s values to shape %s.", format(prod(x$shape)),
                  format_tf_shape(shape)), class = "cppestimators_tf_shape_error")
  }
  if (is_batched(x$shape) && any(shape[-1] == -1)) {
    abort(sprintf(paste0("tf$reshape(): shape %s to %s moves values across the batch's rows: the first ",
                         "dimension must stay the rows (-1)."), format_tf_shape(x$shape), format_tf_shape(shape)),
          class = "cppestimators_tf_shape_error")
  }
  tf_reshape_node(x, shape, "Reshape", name, "tf$reshape()")
}

tf_squeeze <- function(input, axis = NULL, name = NULL, squeeze_dims = NULL) {
  g <- tf_graph_of(input)
  x <- as_tf_tensor(input, g, arg = "input")
  axis <- axis %||% squeeze_dims
  rank <- length(x$shape)
  axes <- if (is.null(axis)) which(x$shape == 1) - 1L else tf_axes(axis, rank, "tf$squeeze()")
  if (any(x$shape[axes + 1L] != 1)) {
    abort(sprintf("tf$squeeze(): can not squeeze dim[%d], expected a dimension of 1, got %s (shape %s).",
                  axes[x$shape[axes + 1L] != 1][1], format_tf_shape(x$shape[axes[x$shape[axes + 1L] != 1][1] + 1L]),
                  format_tf_shape(x$shape)), class = "cppestimators_tf_shape_error")
  }
  shape <- x$shape[!(seq_len(rank) - 1L) %in% axes]
  tf_reshape_node(x, shape, "Squeeze", name, "tf$squeeze()")
}

tf_expand_dims <- function(input, axis = NULL, name = NULL, dim = NULL) {
  g <- tf_graph_of(input)
  x <- as_tf_tensor(input, g, arg = "input")
  axis <- axis %||% dim
  if (is.null(axis)) abort("tf$expand_dims(): `axis` is missing.", class = "cppestimators_tf_shape_error")
  rank <- length(x$shape)
  a <- tf_axes(axis, rank + 1L, "tf$expand_dims()")
  shape <- append(x$shape, 1, after = a)
  tf_reshape_node(x, shape, "ExpandDims", name, "tf$expand_dims()")
}

tf_cast <- function(x, dtype, name = NULL) {
  g <- tf_graph_of(x)
  dtype <- tf_dtype_name(dtype)
  x <- as_tf_tensor(x, g, arg = "x")
  tf_cast_to(x, dtype, "Cast", name)
}
tf_to_float <- function(x, name = "ToFloat") tf_cast_to(as_tf_tensor(x, tf_graph_of(x)), "float32", name)
tf_to_double <- function(x, name = "ToDouble") tf_cast_to(as_tf_tensor(x, tf_graph_of(x)), "float64", name)
tf_to_int32 <- function(x, name = "ToInt32") tf_cast_to(as_tf_tensor(x, tf_graph_of(x)), "int32", name)
tf_to_int64 <- function(x, name = "ToInt64") tf_cast_to(as_tf_tensor(x, tf_graph_of(x)), "int64", name)

tf_concat <- function(values, axis, name = "concat") {
  if (is_tf_tensor(values)) values <- list(values)
  g <- do.call(tf_graph_of, values)
  values <- lapply(values, as_tf_tensor, g = g, arg = "values")
  if (length(values) == 1L) return(tf_elementwise$tf$identity(values[[1]], name = name))
  first <- values[[1]]
  rank <- length(first$shape)
  a <- tf_axes(axis, rank, "tf$concat()")
  for (v in values[-1]) {
    check_same_dtype(first, v, "the values of tf$concat()")
    if (length(v$shape) != rank || any(v$shape[-(a + 1L)] != first$shape[-(a + 1L)])) {
      abort(sprintf("tf$concat(): shapes %s and %s differ in a dimension other than axis %d.",
                    format_tf_shape(first$shape), format_tf_shape(v$shape), a), class = "cppestimators_tf_shape_error")
    }
  }
  if (a == 0L && is_batched(first$shape)) {
    abort("tf$concat(): axis 0 of batched tensors joins their rows; concatenate along another axis.",
          class = "cppestimators_tf_shape_error")
  }
  shape <- first$shape
  shape[a + 1L] <- sum(vapply(values, function(v) v$shape[a + 1L], 0))
  tf_graph_node(g, "concat", do.call(tf_ids, values), shape, first$dtype, tf_op_name(g, "concat", name), axis = a)
}

tf_arg_reduce <- function(kind, base, input, axis, name, dimension, output_type) {
  g <- tf_graph_of(input)
  x <- as_tf_tensor(input, g, arg = "input")
  fn <- sprintf("tf$%s()", kind)
  output_type <- tf_dtype_name(output_type, "output_type")
  if (!output_type %in% c("int32", "int64")) {
    abort(sprintf("%s: `output_type` must be tf$int32 or tf$int64, not %s.", fn, output_type),
          class = "cppestimators_tf_dtype_error")
  }
  a <- tf_axes(axis %||% dimension %||% 0L, length(x$shape), fn)
  if (a == 0L && is_batched(x$shape)) {
    abort(sprintf(paste0("%s: axis 0 of %s (shape %s) is the batch's rows, which are not a class axis: give ",
                         "the axis (0-based, as TensorFlow's), e.g. tf$%s(logits, 1L)."), fn, x$name,
                  format_tf_shape(x$shape), kind), class = "cppestimators_tf_shape_error")
  }
  out <- tf_graph_node(g, kind, tf_ids(x), x$shape[-(a + 1L)], "int64", tf_op_name(g, base, name), axis = a)
  tf_cast_to(out, output_type)
}

tf_argmax <- function(input, axis = NULL, name = NULL, dimension = NULL, output_type = "int64") {
  tf_arg_reduce("argmax", "ArgMax", input, axis, name, dimension, output_type)
}
tf_argmin <- function(input, axis = NULL, name = NULL, dimension = NULL, output_type = "int64") {
  tf_arg_reduce("argmin", "ArgMin", input, axis, name, dimension, output_type)
}

tf_one_hot <- function(indices, depth, on_value = NULL, off_value = NULL, axis = NULL, dtype = NULL, name = NULL) {
  g <- tf_graph_of(indices)
  x <- as_tf_tensor(if (is.numeric(indices)) as.integer(indices) else indices, g, arg = "indices")
  if (!x$dtype %in% c("int32", "int64")) {
    abort(sprintf("tf$one_hot(): `indices` must be integers (int32 or int64), not %s: use tf$cast().", x$dtype),
          class = "cppestimators_tf_dtype_error")
  }
  depth <- check_count(depth, "depth")
  if (!is.null(axis) && !identical(as.numeric(axis), -1) && !identical(as.numeric(axis), length(x$shape))) {
    abort("tf$one_hot(): only axis = -1 (a new last axis) is supported.", class = "cppestimators_unsupported_tf")
  }
  for (v in list(on_value, off_value)) {
    if (!is.null(v) && (!is.numeric(v) || length(v) != 1L)) {
      abort("tf$one_hot(): `on_value` and `off_value` must be single numbers.", class = "cppestimators_unsupported_tf")
    }
  }
  dtype <- if (!is.null(dtype)) tf_dtype_name(dtype) else if (!is.null(on_value)) r_value_dtype(on_value) else
    "float32"
  tf_graph_node(g, "one_hot", tf_ids(x), c(x$shape, depth), dtype, tf_op_name(g, "one_hot", name),
                depth = depth, on_value = as.numeric(on_value %||% 1), off_value = as.numeric(off_value %||% 0))
}

tf_constant <- function(value, dtype = NULL, shape = NULL, name = "Const", verify_shape = FALSE) {
  g <- current_tf_graph()
  dtype <- if (is.null(dtype)) r_value_dtype(value) else tf_dtype_name(dtype)
  if (!is.null(shape)) {
    shape <- unlist(shape)
    if (length(value) == 1L) value <- rep(value, prod(shape))
    if (length(value) != prod(shape)) {
      abort(sprintf("tf$constant(): %d values do not fill shape %s.", length(value), format_tf_shape(shape)),
            class = "cppestimators_tf_shape_error")
    }
    # row-major values: an array of the reversed dims, transposed
    value <- if (length(shape) > 1L) aperm(array(value, rev(shape))) else array(value, shape)
    if (length(shape) == 0L) value <- as.vector(value)
  }
  tf_constant_node(g, value, dtype, name)
}

tf_ones_like <- function(tensor, dtype = NULL, name = NULL, optimize = TRUE) {
  x <- as_tf_tensor(tensor, tf_graph_of(tensor), arg = "tensor")
  if (!is.null(dtype)) x <- tf_cast_to(x, tf_dtype_name(dtype))
  x * 0 + 1
}

tf_zeros_like <- function(tensor, dtype = NULL, name = NULL, optimize = TRUE) {
  x <- as_tf_tensor(tensor, tf_graph_of(tensor), arg = "tensor")
  if (!is.null(dtype)) x <- tf_cast_to(x, tf_dtype_name(dtype))
  x * 0
}

# Cross entropies and dropout ------------------------------------------------------------

check_same_shape <- function(labels, logits, fn) {
  if (!identical(as.numeric(labels$shape), as.numeric(logits$shape))) {
    abort(sprintf("%s: logits and labels must have the same shape (%s vs %s).", fn,
                  format_tf_shape(logits$shape), format_tf_shape(labels$shape)), class = "cppestimators_tf_shape_error")
  }
}

# An element-wise loss node of labels (or targets) and logits of the same
# dtype and shape: `op` of the engine (its losses are math/pointwise_loss.h's).
tf_elementwise_loss <- function(op, fn, labels, logits, name, default_name, labels_arg = "labels",
                                logits_arg = "logits", ...) {
  g <- tf_graph_of(labels, logits)
  logits <- as_tf_tensor(logits, g, arg = logits_arg)
  labels <- as_tf_tensor(labels, g, logits$dtype, arg = labels_arg)
  check_same_dtype(labels, logits, sprintf("%s and %s", labels_arg, logits_arg))
  check_same_shape(labels, logits, fn)
  tf_graph_node(g, op, tf_ids(labels, logits), logits$shape, logits$dtype, tf_op_name(g, default_name, name), ...)
}

tf_nn_sigmoid_cross_entropy_with_logits <- function(labels = NULL, logits = NULL, name = NULL) {
  tf_elementwise_loss("sigmoid_xent", "tf$nn$sigmoid_cross_entropy_with_logits()", labels, logits, name,
                      "logistic_loss")
}

# TF's log_poisson_loss(targets, log_input): exp(log_input) - log_input *
# targets, plus Stirling's approximation of log(targets!) for targets > 1
# with compute_full_loss (the engine's Poisson loss, the Poisson head's).
tf_nn_log_poisson_loss <- function(targets = NULL, log_input = NULL, compute_full_loss = FALSE, name = NULL) {
  check_loss_args(targets, log_input, "tf$nn$log_poisson_loss()", "targets", "log_input")
  check_flag(compute_full_loss, "compute_full_loss")
  tf_elementwise_loss("log_poisson_loss", "tf$nn$log_poisson_loss()", targets, log_input, name, "log_poisson_loss",
                      labels_arg = "targets", logits_arg = "log_input", compute_full_loss = compute_full_loss)
}

tf_nn_softmax_cross_entropy_with_logits_v2 <- function(labels = NULL, logits = NULL, axis = NULL, name = NULL,
                                                       dim = NULL) {
  g <- tf_graph_of(labels, logits)
  logits <- as_tf_tensor(logits, g, arg = "logits")
  labels <- as_tf_tensor(labels, g, logits$dtype, arg = "labels")
  tf_last_axis_only(axis %||% dim, length(logits$shape), "tf$nn$softmax_cross_entropy_with_logits_v2()")
  check_same_dtype(labels, logits, "labels and logits")
  check_same_shape(labels, logits, "tf$nn$softmax_cross_entropy_with_logits_v2()")
  if (length(logits$shape) == 0L) {
    abort("tf$nn$softmax_cross_entropy_with_logits_v2(): logits must have a class axis.",
          class = "cppestimators_tf_shape_error")
  }
  tf_graph_node(g, "softmax_xent", tf_ids(labels, logits), logits$shape[-length(logits$shape)], logits$dtype,
                tf_op_name(g, "softmax_cross_entropy_with_logits", name))
}

# TF 1.x's deprecated version: the labels get no gradient.
tf_nn_softmax_cross_entropy_with_logits <- function(labels = NULL, logits = NULL, dim = -1, name = NULL,
                                                    axis = NULL) {
  if (is_tf_tensor(labels)) labels <- tf_elementwise$tf$stop_gradient(labels)
  tf_nn_softmax_cross_entropy_with_logits_v2(labels, logits, axis = axis %||% dim, name = name)
}

tf_nn_sparse_softmax_cross_entropy_with_logits <- function(labels = NULL, logits = NULL, name = NULL) {
  g <- tf_graph_of(labels, logits)
  logits <- as_tf_tensor(logits, g, arg = "logits")
  labels <- as_tf_tensor(if (is.numeric(labels)) as.integer(labels) else labels, g, arg = "labels")
  fn <- "tf$nn$sparse_softmax_cross_entropy_with_logits()"
  if (!labels$dtype %in% c("int32", "int64")) {
    abort(sprintf("%s: labels must be class ids (int32 or int64), not %s: use tf$cast().", fn, labels$dtype),
          class = "cppestimators_tf_dtype_error")
  }
  if (!is_float_dtype(logits$dtype)) {
    abort(sprintf("%s: logits must be floats, not %s.", fn, logits$dtype), class = "cppestimators_tf_dtype_error")
  }
  nl <- length(labels$shape)
  if (length(logits$shape) != nl + 1L || !identical(as.numeric(logits$shape[seq_len(nl)]), as.numeric(labels$shape))) {
    abort(sprintf(paste0("%s: rank mismatch: rank of labels (received %d) should equal rank of logits minus 1 ",
                         "(received %d)%s."),
                  fn, nl, length(logits$shape),
                  sprintf(", shapes %s and %s", format_tf_shape(labels$shape), format_tf_shape(logits$shape))),
          class = "cppestimators_tf_shape_error")
  }
  tf_graph_node(g, "sparse_softmax_xent", tf_ids(labels, logits), labels$shape, logits$dtype,
                tf_op_name(g, "SparseSoftmaxCrossEntropyWithLogits", name))
}

# A dropout node (inverted dropout at `rate`; the engine drops in training
# sessions only).
tf_dropout_node <- function(x, rate, name = NULL) {
  g <- x$graph
  tf_graph_node(g, "dropout", tf_ids(x), x$shape, x$dtype, tf_op_name(g, "dropout/mul", name), rate = rate)
}

tf_nn_dropout <- function(x, keep_prob = NULL, noise_shape = NULL, seed = NULL, name = NULL, rate = NULL) {
  g <- tf_graph_of(x)
  x <- as_tf_tensor(x, g)
  if (!is.null(noise_shape)) {
    abort("tf$nn$dropout(): `noise_shape` is not supported.", class = "cppestimators_unsupported_tf")
  }
  if (is.null(rate)) {
    check_number(keep_prob, "keep_prob", min = 0, max = 1, exclusive_min = TRUE)
    rate <- 1 - keep_prob
  }
  check_number(rate, "rate", min = 0, max = 1, exclusive_max = TRUE)
  if (rate == 0) return(x)
  tf_dropout_node(x, rate, name)
}
