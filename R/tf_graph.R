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
# The integration (R/estimator_custom_call.R) uses:
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

# Graph primitives of the integration ------------------------------------------

# The width of each column in an input layer, as the engine reads it:
# numeric prod(shape), indicator and bucketized their buckets, embedding its
# dimension. Other (categorical) columns are TF's error: input layers take
# dense columns.
tf_column_widths <- function(columns) {
  unique_cols <- columns[!duplicated(vapply(columns, function(c) c$name, ""))]
  widths <- cpp_input_widths(lapply(unname(unique_cols), engine_column))
  names(widths) <- vapply(unique_cols, function(c) c$name, "")
  bad <- is.na(widths)
  if (any(bad)) {
    abort(sprintf(paste0("Items of feature_columns must be a _DenseColumn. You can wrap a categorical column ",
                         "with an embedding_column or indicator_column. Given: %s"),
                  column_repr(unique_cols[[which(bad)[1]]])),
          class = "cppestimators_tf_column_error")
  }
  unname(widths[vapply(columns, function(c) c$name, "")])
}

# An "input" node over `columns` (package feature columns) in that order:
# the columns are added to g$columns (one already there, by name, is
# reused), and the node reads their indices; its shape is c(-1, total
# width).
tf_graph_input <- function(g, columns, dtype = "float32", name = "input_layer/concat:0") {
  widths <- tf_column_widths(columns)
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
