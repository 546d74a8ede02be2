# The graph of a custom estimator, built in R by the package's `tf` object.
#
# A model_fn written for tfestimators calls `tf$layers$dense()`,
# `tf$nn$relu()`, `tf$losses$...()`: here each call appends nodes to a graph
# (an environment made by new_tf_graph()) and returns a tensor, a small list
# naming its node. The engine receives the graph as plain lists
# (tf_graph_spec()) and runs it; the contract is the header comment of
# inst/include/cppestimators/model/graph/graph.h.
#
# The graph holds:
#   mode       "train", "eval" or "infer";
#   nodes      a list of nodes, each a plain list: kind (the op), inputs
#              (0-based node indices), shape (-1 first for the batch's
#              rows), dtype, name (TensorFlow's tensor name, "dense/Relu:0")
#              and the op's attributes as graph.h names them (logical ones
#              as 0/1);
#   variables  the variables by name: list(name, shape, dtype, init,
#              trainable, and the initializer's numbers);
#   var_nodes  the node of each variable (its first use);
#   columns    the feature columns the input nodes read, in order added;
#   labels     the labels node (-1 until tf_graph_labels());
#   op_names, layer_names  counters of the names given, for TF's unique
#              names ("dense", "dense_1"; "Relu", "Relu_1");
#   scope      the current name scope ("" at the top).
#
# The integration (R/estimator_custom.R) uses:
#   new_tf_graph(mode)                       a graph for one model_fn call;
#   with_tf_graph(g, expr)                   evaluates the model_fn with g as
#                                            the current graph;
#   tf_features(g, names, types)             the `features` given to model_fn;
#   tf_graph_input(g, columns, dtype, name)  an input layer over columns;
#   tf_graph_labels(g, shape, dtype)         the `labels` given to model_fn;
#   tf_graph_spec(g, loss, predictions, eval_metric_ops)  the engine's list;
#   tf_graph_variables(g)                    the variables.
# A train op (tf$train$...$minimize()) is a list of class
# cppestimators_tf_train_op: list(optimizer = <optimizer spec>, loss =
# <tensor>, global_step = TRUE/FALSE); a metric (tf$metrics$...()) a list of
# class cppestimators_tf_metric: list(kind, labels, predictions, weights,
# num_thresholds), tensors or NULL.

tf_state <- new.env(parent = emptyenv())
tf_state$graph <- NULL

tf_dtypes <- c("float32", "float64", "int32", "int64", "bool")

# A new, empty graph for one call of a model_fn.
new_tf_graph <- function(mode = "train") {
  check_choice(mode, "mode", c("train", "eval", "infer"))
  g <- new.env(parent = emptyenv())
  g$mode <- mode
  g$nodes <- list()
  g$variables <- list()
  g$var_nodes <- list()
  g$columns <- list()
  g$labels <- -1L
  g$op_names <- new.env(parent = emptyenv())
  g$layer_names <- new.env(parent = emptyenv())
  g$scope <- ""
  class(g) <- "cppestimators_tf_graph"
  g
}

#' @export
print.cppestimators_tf_graph <- function(x, ...) {
  cat(sprintf("<tf graph (%s): %d nodes, %d variables>\n", x$mode, length(x$nodes), length(x$variables)))
  invisible(x)
}

# Evaluates `expr` with `g` as the current graph (the one tf functions that
# create tensors from nothing add to), restoring the previous one after.
with_tf_graph <- function(g, expr) {
  old <- tf_state$graph
  tf_state$graph <- g
  on.exit(tf_state$graph <- old, add = TRUE)
  expr
}

# The current graph; an error outside a model_fn.
current_tf_graph <- function() {
  g <- tf_state$graph
  if (is.null(g)) {
    abort(paste0("tf functions build the model of a custom estimator and work inside its `model_fn` ",
                 "(see ?estimator): there is no graph being built here."), class = "cppestimators_tf_no_graph")
  }
  g
}

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

# Names ------------------------------------------------------------------------

# TF's unique name of `base` in the current scope: "scope/base", then
# "scope/base_1", ... (the counter is per full name).
tf_unique_name <- function(g, base, counters = g$op_names) {
  full <- if (nzchar(g$scope)) paste0(g$scope, "/", base) else base
  n <- counters[[full]]
  if (is.null(n)) {
    counters[[full]] <- 1L
    return(full)
  }
  repeat {
    name <- paste0(full, "_", n)
    n <- n + 1L
    if (is.null(counters[[name]])) break
  }
  counters[[full]] <- n
  counters[[name]] <- 1L
  name
}

# The tensor name of an op: `name` (the user's) or `base`, made unique.
tf_op_name <- function(g, base, name = NULL) {
  if (!is.null(name)) check_string(name, "name")
  paste0(tf_unique_name(g, name %||% base), ":0")
}

# Evaluates `expr` in the name scope `scope` (a full name).
with_tf_scope <- function(g, scope, expr) {
  old <- g$scope
  g$scope <- scope
  on.exit(g$scope <- old, add = TRUE)
  expr
}

# A layer's scope: `name` as given (inside the current scope) or the unique
# "base", "base_1", ...
tf_layer_scope <- function(g, base, name = NULL) {
  if (!is.null(name)) {
    check_string(name, "name")
    full <- if (nzchar(g$scope)) paste0(g$scope, "/", name) else name
    g$layer_names[[full]] <- g$layer_names[[full]] %||% 1L
    return(full)
  }
  tf_unique_name(g, base, g$layer_names)
}

# Nodes ------------------------------------------------------------------------

# Appends a node and returns its tensor. `name` is the tensor name; `...`
# the op's attributes (logical ones are given to the engine as 0/1).
tf_graph_node <- function(g, kind, inputs = integer(), shape = numeric(), dtype = "float32", name, ...) {
  attrs <- list(...)
  flags <- vapply(attrs, is.logical, TRUE)
  attrs[flags] <- lapply(attrs[flags], as.numeric)
  node <- c(list(kind = kind, inputs = as.integer(inputs), shape = as.numeric(shape), dtype = dtype, name = name),
            attrs)
  id <- length(g$nodes)
  g$nodes[[id + 1L]] <- node
  new_tf_tensor(g, id)
}

# The node ids of tensors.
tf_ids <- function(...) vapply(list(...), function(t) as.integer(t$id), 0L)

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

# A dtype argument: a tf$<dtype> object or its name ("float32",
# "tf$float32", "tf.float32"; "float" and "double" as R and TF use them).
tf_dtype_name <- function(dtype, arg = "dtype") {
  as_dtype_string(dtype, arg, tf_dtypes, class = "cppestimators_tf_dtype_error")
}

new_tf_dtype <- function(name) structure(list(name = name), class = "cppestimators_tf_dtype")

#' @export
print.cppestimators_tf_dtype <- function(x, ...) {
  cat(format(x), "\n", sep = "")
  invisible(x)
}

#' @export
format.cppestimators_tf_dtype <- function(x, ...) paste0("tf.", x$name)

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

# Graph primitives of the integration ------------------------------------------

# The buckets of a categorical column (its one-hot width).
tf_column_buckets <- function(col) {
  switch(col$kind,
    identity = col$num_buckets,
    vocabulary_list = , vocabulary_file = length(col$vocabulary) + col$num_oov_buckets,
    hash_bucket = , crossed = col$hash_bucket_size,
    bucketized = (length(col$boundaries) + 1) * prod(col$source_column$shape),
    weighted = tf_column_buckets(col$categorical_column),
    abort(sprintf("column '%s' of kind %s has no buckets.", col$name, col$kind),
          class = "cppestimators_unsupported_tf"))
}

# The dense width of a column in an input layer: numeric prod(shape),
# indicator and bucketized their buckets, embedding its dimension. Other
# (categorical) columns are TF's error: input layers take dense columns.
tf_column_width <- function(col) {
  switch(col$kind,
    numeric = prod(col$shape),
    indicator = tf_column_buckets(col$categorical_column),
    bucketized = tf_column_buckets(col),
    embedding = col$dimension,
    abort(sprintf(paste0("Items of feature_columns must be a _DenseColumn. You can wrap a categorical column ",
                         "with an embedding_column or indicator_column. Given: %s"), column_repr(col)),
          class = "cppestimators_tf_column_error"))
}

# An "input" node over `columns` (package feature columns) in that order:
# the columns are added to g$columns (one already there, by name, is
# reused), and the node reads their indices; its shape is c(-1, total
# width).
tf_graph_input <- function(g, columns, dtype = "float32", name = "input_layer/concat:0") {
  widths <- vapply(columns, tf_column_width, 0)
  have <- vapply(g$columns, function(c) c$name, "")
  names_ <- vapply(columns, function(c) c$name, "")
  new <- !names_ %in% have & !duplicated(names_)
  g$columns <- c(g$columns, columns[new])
  all_names <- vapply(g$columns, function(c) c$name, "")
  idx <- match(names_, all_names) - 1L
  tf_graph_node(g, "input", shape = c(-1, sum(widths)), dtype = dtype, name = name, columns = idx)
}

# The labels node (one per graph): shape -1 ([rows]) or c(-1, k).
tf_graph_labels <- function(g, shape = -1, dtype = "int32") {
  if (g$labels >= 0L) return(new_tf_tensor(g, g$labels))
  t <- tf_graph_node(g, "labels", shape = shape, dtype = tf_dtype_name(dtype), name = "labels:0")
  g$labels <- t$id
  t
}

# The variables of the graph, by name.
tf_graph_variables <- function(g) g$variables

# The features given to a model_fn: one entry per feature (name and type).
# `features$x` (a numeric feature) is the feature's values as a float64
# tensor of shape (?); input layers read them through feature columns.
tf_features <- function(g, names, types = rep("numeric", length(names))) {
  info <- Map(function(n, t) list(name = n, type = t), names, types)
  structure(info, names = names, graph = g, class = "cppestimators_tf_features")
}

#' @export
`$.cppestimators_tf_features` <- function(x, name) tf_feature_tensor(x, name)

#' @export
`[[.cppestimators_tf_features` <- function(x, i, ...) tf_feature_tensor(x, i)

#' @export
print.cppestimators_tf_features <- function(x, ...) {
  info <- unclass(x)
  cat(sprintf("<features of a custom estimator: %s>\n",
              paste(sprintf("%s (%s)", names(info), vapply(info, function(f) f$type, "")), collapse = ", ")))
  invisible(x)
}

# The features as one tensor (tfestimators gave a model_fn the matrix of a
# data frame's columns): the numeric features side by side, float64,
# shape (?, n).
tf_features_matrix <- function(x) {
  info <- unclass(x)
  types <- vapply(info, function(f) f$type, "")
  if (any(types != "numeric")) {
    abort(sprintf(paste0("the features are used as a tensor, but '%s' is %s: read the features through feature ",
                         "columns with tf$feature_column$input_layer(features, ...)."),
                  names(info)[types != "numeric"][1], types[types != "numeric"][1]),
          class = "cppestimators_unsupported_tf")
  }
  g <- attr(x, "graph")
  tf_graph_input(g, lapply(names(info), column_numeric), dtype = "float64", name = tf_op_name(g, "features"))
}

tf_feature_tensor <- function(x, name) {
  info <- .subset2(unclass(x), name)
  if (is.null(info)) {
    abort(sprintf("feature '%s' is not among the model's features (%s).", name, paste(names(x), collapse = ", ")),
          class = "cppestimators_tf_column_error")
  }
  if (!identical(info$type, "numeric")) {
    abort(sprintf(paste0("feature '%s' is %s: read it through a feature column with ",
                         "tf$feature_column$input_layer(features, ...)."), name, info$type),
          class = "cppestimators_unsupported_tf")
  }
  g <- attr(x, "graph")
  t <- tf_graph_input(g, list(column_numeric(name)), dtype = "float64", name = tf_op_name(g, name))
  tf_graph_node(g, "reshape", tf_ids(t), -1, "float64", tf_op_name(g, "Reshape"))
}

# The list the engine gets (graph.h): nodes, the loss's node, the
# predictions' keys and nodes, the metrics.
tf_graph_spec <- function(g, loss = NULL, predictions = NULL, eval_metric_ops = NULL) {
  loss_id <- -1
  if (!is.null(loss)) {
    check_tf_loss(loss, g, "loss")
    loss_id <- loss$id
  }
  if (is_tf_tensor(predictions)) predictions <- list(predictions = predictions)
  if (!is.null(predictions) && (!is.list(predictions) || is.null(names(predictions)) ||
                                  !all(vapply(predictions, is_tf_tensor, TRUE)) || any(!nzchar(names(predictions))))) {
    abort("`predictions` must be a tensor or a named list of tensors.", class = "cppestimators_tf_spec_error")
  }
  for (key in names(predictions)) {
    p <- predictions[[key]]
    tf_same_graph(p, g, sprintf("prediction '%s'", key))
    if (!is_batched(p$shape)) {
      abort(sprintf("prediction '%s' (%s) must have one row per example (shape (?, ...)), not shape %s.",
                    key, p$name, format_tf_shape(p$shape)), class = "cppestimators_tf_spec_error")
    }
  }
  metrics <- tf_metric_specs(g, eval_metric_ops)
  list(kind = "graph", mode = g$mode, nodes = unname(g$nodes), loss = as.numeric(loss_id),
       prediction_names = as.character(names(predictions)),
       prediction_nodes = as.numeric(vapply(predictions, function(p) p$id, 0L)),
       metrics = metrics)
}

tf_same_graph <- function(t, g, what) {
  if (!identical(t$graph, g)) {
    abort(sprintf("%s (%s) is from another graph than the model_fn's.", what, t$name),
          class = "cppestimators_tf_graph_error")
  }
}

check_tf_loss <- function(loss, g, what = "loss") {
  if (!is_tf_tensor(loss)) {
    abort(sprintf("`%s` must be a scalar float tensor, not %s.", what, describe(loss)),
          class = "cppestimators_tf_spec_error")
  }
  if (!is.null(g)) tf_same_graph(loss, g, what)
  if (length(loss$shape) != 0L || !is_float_dtype(loss$dtype)) {
    abort(sprintf(paste0("`%s` must be a scalar float tensor, not %s; reduce it with tf$reduce_mean() ",
                         "or a tf$losses function."), what, format(loss)), class = "cppestimators_tf_spec_error")
  }
  invisible(loss)
}

# The tf module -----------------------------------------------------------------

# A module: its path ("tf$nn") and members, each a function (named by its
# R function, looked up when used), a submodule or a value (a dtype, a
# string).
new_tf_module <- function(path, members) {
  structure(list(path = path, members = members), class = "cppestimators_tf_module")
}

tf_fn <- function(name) structure(name, class = "cppestimators_tf_fn_ref")

tf_module_env <- environment()

tf_module_get <- function(x, name) {
  path <- .subset2(x, "path")
  members <- .subset2(x, "members")
  m <- members[[name]]
  if (is.null(m) || !is.character(name) || !nzchar(name)) {
    abort(sprintf(paste0("%s$%s is not supported by cppestimators: custom estimators support the calls listed ",
                         "in ?tf (%s has %s)."), path, name, path, paste(names(members), collapse = ", ")),
          class = "cppestimators_unsupported_tf", path = paste0(path, "$", name))
  }
  if (inherits(m, "cppestimators_tf_fn_ref")) return(get(unclass(m), envir = tf_module_env))
  m
}

#' @export
`$.cppestimators_tf_module` <- function(x, name) tf_module_get(x, name)

#' @export
`[[.cppestimators_tf_module` <- function(x, i, ...) tf_module_get(x, i)

#' @export
names.cppestimators_tf_module <- function(x) names(.subset2(x, "members"))

#' @export
print.cppestimators_tf_module <- function(x, ...) {
  members <- .subset2(x, "members")
  kinds <- vapply(members, function(m) {
    if (inherits(m, "cppestimators_tf_module")) "module" else
      if (inherits(m, "cppestimators_tf_fn_ref") || is.function(m)) "fn" else
      "value"
  }, "")
  cat(sprintf("<tf module %s>\n", .subset2(x, "path")))
  show <- function(label, nm) {
    if (length(nm)) cat(strwrap(paste(nm, collapse = ", "), 78, prefix = "    ", initial = paste0("  ", label, ": ")),
                        sep = "\n")
  }
  show("modules", names(members)[kinds == "module"])
  show("functions", names(members)[kinds == "fn"])
  show("values", names(members)[kinds == "value"])
  invisible(x)
}

# TF's tf.losses.Reduction.
tf_reductions <- list(NONE = "none", SUM = "weighted_sum", MEAN = "weighted_mean",
                      SUM_OVER_BATCH_SIZE = "weighted_sum_over_batch_size",
                      SUM_BY_NONZERO_WEIGHTS = "weighted_sum_by_nonzero_weights",
                      SUM_OVER_NONZERO_WEIGHTS = "weighted_sum_by_nonzero_weights")

# The members of a module: functions by their R names (the value: the
# function's name in the package).
tf_fns <- function(...) lapply(c(...), tf_fn)

# A module's functions for its help page: "`tf$nn$relu`, `relu6`, ..."
# (`functions_only`: not its modules, initializers or dtypes).
tf_doc_members <- function(module, functions_only = FALSE) {
  members <- .subset2(module, "members")
  keep <- vapply(members, function(m) inherits(m, "cppestimators_tf_fn_ref") || is.function(m), TRUE)
  if (functions_only) keep <- keep & !grepl("initializer$", names(members))
  nms <- names(members)[keep]
  paste0("`", c(paste0(.subset2(module, "path"), "$", nms[1L]), nms[-1L]), "`", collapse = ", ")
}

#' TensorFlow's `tf` for custom estimators
#'
#' The `tf` object that the `model_fn` of a custom [estimator()] uses, as
#' scripts written for tfestimators do: `tf$layers$dense(...)`,
#' `tf$nn$relu`, `tf$losses$...`, `tf$metrics$...`,
#' `tf$train$AdagradOptimizer(...)$minimize(...)`. Each call adds nodes to
#' the graph of the model (TensorFlow 1.x's names, shapes, dtypes and
#' arguments) and returns a tensor, which prints as TensorFlow's
#' (`Tensor("dense/Relu:0", shape=(?, 10), dtype=float32)`); the package's
#' engine runs and differentiates the graph. Axes are 0-based, as in
#' TensorFlow (`tf$argmax(logits, 1L)` is the class axis of a
#' `[batch, classes]` matrix). Tensors combine with `+ - * / ^`, unary `-`
#' and the comparisons, with numpy broadcasting; both sides must have the
#' same dtype (R numbers take the tensor's), as in TensorFlow.
#'
#' The supported calls:
#' * **layers**: `tf$layers$dense`, `tf$layers$dropout`,
#'   `tf$contrib$layers$fully_connected`, `tf$contrib$layers$stack`,
#'   `tf$contrib$layers$dropout`, `tf$feature_column$input_layer`;
#'   initializers `tf$zeros_initializer`, `tf$ones_initializer`,
#'   `tf$constant_initializer`, `tf$glorot_uniform_initializer`,
#'   `tf$glorot_normal_initializer`, `tf$truncated_normal_initializer`,
#'   `tf$random_normal_initializer`, `tf$random_uniform_initializer`,
#'   `tf$contrib$layers$xavier_initializer`.
#' * **activations and losses**: `r tf_doc_members(tf$nn)`.
#' * **ops**: `r tf_doc_members(tf, functions_only = TRUE)`.
#' * **losses**: `tf$losses$mean_squared_error`, `absolute_difference`,
#'   `huber_loss`, `log_loss`, `sigmoid_cross_entropy`,
#'   `softmax_cross_entropy`, `sparse_softmax_cross_entropy`,
#'   `compute_weighted_loss`, and the reductions `tf$losses$Reduction`
#'   (`NONE`, `SUM`, `MEAN`, `SUM_OVER_BATCH_SIZE`,
#'   `SUM_BY_NONZERO_WEIGHTS`, `SUM_OVER_NONZERO_WEIGHTS`).
#' * **metrics** (for `eval_metric_ops`): `tf$metrics$accuracy`, `auc`
#'   (ROC), `mean`, `mean_squared_error`, `root_mean_squared_error`,
#'   `mean_absolute_error`, `precision`, `recall`.
#' * **training**: `tf$train$GradientDescentOptimizer`,
#'   `MomentumOptimizer`, `AdagradOptimizer`, `AdamOptimizer`,
#'   `FtrlOptimizer`, `RMSPropOptimizer` (each with `$minimize(loss,
#'   global_step)`); `tf$train$get_global_step`,
#'   `tf$train$get_or_create_global_step`,
#'   `tf$contrib$framework$get_global_step`; the decays
#'   `tf$train$exponential_decay`, `inverse_time_decay`,
#'   `natural_exp_decay`, `polynomial_decay`, `piecewise_constant`,
#'   `cosine_decay` (the schedules of [learning_rate_schedules]);
#'   `tf$contrib$layers$optimize_loss`.
#' * **dtypes**: `tf$float32`, `tf$float64`, `tf$int32`, `tf$int64`,
#'   `tf$bool` (functions also take their names, `"float32"`). Every other
#'   argument of the package that takes a dtype takes them too, such as
#'   `column_numeric(dtype = tf$float32)` or
#'   `column_categorical_with_hash_bucket(dtype = tf$int64)`; strings are
#'   named `"string"` (there is no `tf$string`).
#'
#' Anything else (`tf$layers$conv2d`, `tf$contrib$rnn`, ...) is an error of
#' class `cppestimators_unsupported_tf` naming it, raised where it is looked
#' up. tf functions work inside a `model_fn` only: elsewhere there is no
#' graph to build, and they are an error of class `cppestimators_tf_no_graph`.
#'
#' @format An object of class `cppestimators_tf_module`; `names()` lists a
#'   module's members.
#' @seealso [estimator()], [optimizers], [learning_rate_schedules].
#' @examples
#' tf
#' tf$nn
#' tryCatch(tf$layers$conv2d, cppestimators_unsupported_tf = function(e) conditionMessage(e))
#' @export
tf <- new_tf_module("tf", c(
  list(
    nn = new_tf_module("tf$nn", c(tf_elementwise$nn, tf_fns(
      softmax = "tf_nn_softmax", log_softmax = "tf_nn_log_softmax", leaky_relu = "tf_nn_leaky_relu",
      dropout = "tf_nn_dropout",
      sigmoid_cross_entropy_with_logits = "tf_nn_sigmoid_cross_entropy_with_logits",
      softmax_cross_entropy_with_logits = "tf_nn_softmax_cross_entropy_with_logits",
      softmax_cross_entropy_with_logits_v2 = "tf_nn_softmax_cross_entropy_with_logits_v2",
      sparse_softmax_cross_entropy_with_logits = "tf_nn_sparse_softmax_cross_entropy_with_logits"))),
    layers = new_tf_module("tf$layers", tf_fns(dense = "tf_layers_dense", dropout = "tf_layers_dropout")),
    losses = new_tf_module("tf$losses", c(
      tf_fns(mean_squared_error = "tf_losses_mean_squared_error",
             absolute_difference = "tf_losses_absolute_difference", huber_loss = "tf_losses_huber_loss",
             log_loss = "tf_losses_log_loss", sigmoid_cross_entropy = "tf_losses_sigmoid_cross_entropy",
             softmax_cross_entropy = "tf_losses_softmax_cross_entropy",
             sparse_softmax_cross_entropy = "tf_losses_sparse_softmax_cross_entropy",
             compute_weighted_loss = "tf_losses_compute_weighted_loss"),
      list(Reduction = new_tf_module("tf$losses$Reduction", tf_reductions)))),
    metrics = new_tf_module("tf$metrics", tf_fns(
      accuracy = "tf_metrics_accuracy", auc = "tf_metrics_auc", mean = "tf_metrics_mean",
      mean_squared_error = "tf_metrics_mean_squared_error",
      root_mean_squared_error = "tf_metrics_root_mean_squared_error",
      mean_absolute_error = "tf_metrics_mean_absolute_error", precision = "tf_metrics_precision",
      recall = "tf_metrics_recall")),
    train = new_tf_module("tf$train", tf_fns(
      GradientDescentOptimizer = "tf_train_gradient_descent", MomentumOptimizer = "tf_train_momentum",
      AdagradOptimizer = "tf_train_adagrad", AdamOptimizer = "tf_train_adam", FtrlOptimizer = "tf_train_ftrl",
      RMSPropOptimizer = "tf_train_rmsprop", get_global_step = "tf_train_get_global_step",
      get_or_create_global_step = "tf_train_get_global_step", exponential_decay = "tf_train_exponential_decay",
      inverse_time_decay = "tf_train_inverse_time_decay", natural_exp_decay = "tf_train_natural_exp_decay",
      polynomial_decay = "tf_train_polynomial_decay", piecewise_constant = "tf_train_piecewise_constant",
      cosine_decay = "tf_train_cosine_decay")),
    contrib = new_tf_module("tf$contrib", list(
      layers = new_tf_module("tf$contrib$layers", tf_fns(
        fully_connected = "tf_contrib_fully_connected", stack = "tf_contrib_stack",
        dropout = "tf_contrib_dropout", xavier_initializer = "tf_xavier_initializer",
        optimize_loss = "tf_contrib_optimize_loss")),
      framework = new_tf_module("tf$contrib$framework", tf_fns(get_global_step = "tf_train_get_global_step")))),
    feature_column = new_tf_module("tf$feature_column", tf_fns(input_layer = "tf_feature_column_input_layer"))
  ),
  tf_elementwise$tf,
  tf_fns(
    matmul = "tf_matmul",
    add = "tf_add", subtract = "tf_subtract", multiply = "tf_multiply", divide = "tf_divide", div = "tf_div",
    maximum = "tf_maximum", minimum = "tf_minimum", pow = "tf_pow", equal = "tf_equal",
    not_equal = "tf_not_equal", greater = "tf_greater", greater_equal = "tf_greater_equal", less = "tf_less",
    less_equal = "tf_less_equal", reduce_mean = "tf_reduce_mean", reduce_sum = "tf_reduce_sum",
    reduce_max = "tf_reduce_max", reduce_min = "tf_reduce_min", reshape = "tf_reshape", squeeze = "tf_squeeze",
    expand_dims = "tf_expand_dims", cast = "tf_cast", to_float = "tf_to_float", to_double = "tf_to_double",
    to_int32 = "tf_to_int32", to_int64 = "tf_to_int64", concat = "tf_concat", argmax = "tf_argmax",
    argmin = "tf_argmin", one_hot = "tf_one_hot", constant = "tf_constant", ones_like = "tf_ones_like", zeros_like = "tf_zeros_like",
    zeros_initializer = "tf_zeros_initializer", ones_initializer = "tf_ones_initializer",
    constant_initializer = "tf_constant_initializer", glorot_uniform_initializer = "tf_glorot_uniform_initializer",
    glorot_normal_initializer = "tf_glorot_normal_initializer",
    truncated_normal_initializer = "tf_truncated_normal_initializer",
    random_normal_initializer = "tf_random_normal_initializer",
    random_uniform_initializer = "tf_random_uniform_initializer"),
  lapply(stats::setNames(nm = tf_dtypes), new_tf_dtype)
))
