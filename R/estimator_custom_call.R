# A custom estimator's call of its model_fn (R/estimator_custom.R): the
# graph of one mode built over the input's tensors, and installed in the
# engine (built again, its values carried over, when the graph needs
# variables, columns or an optimizer the engine lacks).

# Calls the model_fn for `mode` over the input's tensors and installs its
# graph in the estimator's engine (built again, its values carried over,
# when the graph needs variables, columns or an optimizer the engine lacks).
# Returns the estimator with its spec up to date and the spec model_fn
# returned.
custom_call <- function(object, input_fn, mode) {
  spec <- object$spec
  inp <- as_input_fn(input_fn, object)
  g <- new_tf_graph(mode)
  labels <- NULL
  if (inherits(inp, "cppestimators_dataset_input_fn")) {
    # a streaming dataset: the types its spec declares
    types <- dataset_column_types(inp$dataset)
    features <- tf_features(g, inp$feature_names, unname(custom_type_of(types[inp$feature_names])))
    if (mode != "infer" && !is.null(inp$response)) {
      dtype <- switch(types[[inp$response]] %||% "double", integer = "int32", logical = "bool", "float64")
      labels <- tf_graph_labels(g, shape = -1, dtype = dtype)
    }
  } else {
    features <- tf_features(g, names(inp$features), vapply(inp$features, custom_feature_type, ""))
    if (mode != "infer" && !is.null(inp$labels)) labels <- custom_labels_tensor(g, inp)
  }
  fn <- spec$model_fn
  declared <- names(formals(fn))
  args <- list(features = features)
  if ("labels" %in% declared) {
    args$labels <- labels
  } else if (!is.null(labels)) {
    abort("model_fn does not take labels, but input_fn returns labels.", class = "cppestimators_model_fn_error")
  }
  if ("mode" %in% declared) args$mode <- mode
  if ("params" %in% declared) args["params"] <- list(spec$params)
  if ("config" %in% declared) args$config <- spec$config
  label <- spec$model_fn_label %||% "function"
  res <- with_tf_graph(g, tryCatch(do.call(fn, args), error = function(e) {
    classes <- setdiff(grep("^cppestimators_", class(e), value = TRUE), "cppestimators_error")
    abort(sprintf("model_fn (%s) failed in mode \"%s\": %s", label, mode, conditionMessage(e)),
          class = unique(c(classes, "cppestimators_model_fn_error")), parent = e)
  }))
  if (!inherits(res, "cppestimators_estimator_spec")) {
    abort(sprintf("model_fn (%s) must return an estimator_spec() in mode \"%s\", not %s.", label, mode,
                  describe(res)), class = "cppestimators_model_fn_error")
  }
  if (!identical(res$mode, mode)) {
    abort(sprintf("model_fn (%s) was called in mode \"%s\" but returned an estimator_spec() of mode \"%s\".",
                  label, mode, res$mode), class = "cppestimators_model_fn_error")
  }
  if (mode == "train" && !identical(res$train_op$loss$id, res$loss$id)) {
    abort(sprintf(paste("model_fn (%s): `train_op` minimizes '%s' but the spec's `loss` is '%s'; cppestimators",
                        "trains the spec's loss: minimize it."), label, res$train_op$loss$name, res$loss$name),
          class = "cppestimators_model_fn_error")
  }
  graph <- with_error_class(tf_graph_spec(
    g, loss = if (mode != "infer") res$loss, predictions = if (mode == "infer") spec_predictions(res$predictions),
    eval_metric_ops = if (mode == "eval") res$eval_metric_ops))
  object <- custom_install(object, g, graph, mode, if (mode == "train") res$train_op$optimizer)
  list(object = object, spec = res, graph = g)
}

# How a model_fn may read a feature: "numeric" ones as tensors (the
# features matrix), the others through input_layer()'s columns.
custom_feature_type <- function(x) {
  if (is.factor(x)) return("a factor")
  if (is.character(x)) return("character")
  if (is.numeric(x) || is.logical(x)) return("numeric")
  describe(x)
}

custom_type_of <- function(types) {
  ifelse(is.na(types) | types %in% c("integer", "double", "logical"), "numeric", types)
}

# The labels tensor: int32 for a factor or integers (tfestimators' codes),
# bool for logicals, float64 for numbers; [batch] or [batch, k].
custom_labels_tensor <- function(g, inp) {
  y <- inp$labels
  original <- if (!is.null(inp$response) && !is.null(inp$columns)) inp$columns[[inp$response[1]]]
  dtype <- if (!is.null(attr(y, "levels")) || is.integer(original)) "int32" else
    if (is.logical(original)) "bool" else "float64"
  shape <- if (is.matrix(y) && ncol(y) > 1L) c(-1, ncol(y)) else -1
  tf_graph_labels(g, shape = shape, dtype = dtype)
}

# Installs a graph into the engine, first building an engine that holds
# the graph's variables, columns and optimizer when the current one does
# not.
custom_install <- function(object, g, graph, mode, optimizer) {
  st <- object$state
  current <- st$custom_spec %||% object$spec
  cols <- current$feature_columns
  col_names <- vapply(cols, function(c) c$name, "")
  new_cols <- Filter(function(c) !c$name %in% col_names, g$columns)
  for (c in g$columns) {
    at <- match(c$name, col_names)
    if (!is.na(at) && !identical(engine_column(cols[[at]]), engine_column(c))) {
      abort(sprintf("the %s graph reads the feature column '%s' defined otherwise than before.", mode, c$name),
            class = "cppestimators_model_fn_error")
    }
  }
  vars <- current$model$variables
  have <- vapply(vars, function(v) v$name, "")
  gvars <- unname(tf_graph_variables(g))
  for (v in gvars) {
    at <- match(v$name, have)
    if (!is.na(at) && !identical(as.numeric(vars[[at]]$shape), as.numeric(v$shape))) {
      abort(sprintf("the %s graph's variable '%s' has shape (%s) but the model's is (%s).", mode, v$name,
                    paste(v$shape, collapse = ", "), paste(vars[[at]]$shape, collapse = ", ")),
            class = "cppestimators_model_fn_error")
    }
  }
  new_vars <- lapply(Filter(function(v) !v$name %in% have, gvars), function(v) {
    c(list(kind = v$init), v[setdiff(names(v), "init")])  # the engine's variable spec
  })
  optimizer_changes <- !is.null(optimizer) && !identical(optimizer, current$optimizer)
  # the graph's column indices, in the engine's column order
  all_cols <- c(cols, new_cols)
  all_names <- vapply(all_cols, function(c) c$name, "")
  g_names <- vapply(g$columns, function(c) c$name, "")
  graph$nodes <- lapply(graph$nodes, function(n) {
    if (identical(n$kind, "input")) n$columns <- match(g_names[n$columns + 1L], all_names) - 1L
    n
  })
  graphs <- current$model$graphs %||% list()
  graphs[[mode]] <- graph
  new_spec <- current
  new_spec$feature_columns <- all_cols
  new_spec$model <- new_model_spec("graph", variables = c(vars, new_vars), graphs = graphs)
  if (optimizer_changes) new_spec$optimizer <- optimizer
  old <- live_ptr(object)
  st$custom_spec <- new_spec
  if (is.null(old) || length(new_cols) || length(new_vars) || optimizer_changes) {
    ptr <- with_error_class(new_engine(object))
    if (!is.null(old)) {
      cpp_estimator_copy_state(ptr, old)
    } else if (!is.null(st$weights)) {
      cpp_estimator_decode_partial(ptr, st$weights, "the estimator's saved weights")
    }
    st$ptr <- ptr
    remember_weights(object)  # what saveRDS() keeps: this engine's state
  } else {
    with_error_class(cpp_graph_install(old, graph))
  }
  object
}

# The engine of a custom estimator whose model_fn has not run in this
# session: the variables of model_dir's newest checkpoint (read back by
# variable_names() and variable_value(), carried into the engine its first
# call builds), or none before any training.
custom_checkpoint_engine <- function(object) {
  dir <- object$spec$model_dir
  path <- if (!is.null(dir)) cpp_latest_checkpoint(dir) else ""
  vars <- list()
  if (nzchar(path)) {
    ck <- with_error_class(cpp_checkpoint_shapes(path))
    keep <- ck$names != "learning_rate_scale"
    vars <- Map(function(n, s) list(kind = "zeros", name = n, shape = s, trainable = 0),
                ck$names[keep], ck$shapes[keep])
  }
  spec <- object$spec
  # a placeholder column: the engine's models read at least one
  spec$feature_columns <- list(column_numeric("__custom_estimator_placeholder__"))
  spec$model <- new_model_spec("graph", variables = unname(vars), graphs = list())
  ptr <- with_error_class(new_engine(list(spec = spec)))
  if (nzchar(path)) with_error_class(cpp_estimator_restore(ptr, normalizePath(path)))
  ptr
}

check_custom_input <- function(input_fn, fn) {
  if (is.data.frame(input_fn)) {
    abort(sprintf(paste("%s(): a custom estimator reads an input_fn() (it has no feature columns to read a",
                        "data frame by): e.g. input_fn(data, features = ..., response = ...)."), fn),
          class = "cppestimators_unsupported_tf")
  }
}
