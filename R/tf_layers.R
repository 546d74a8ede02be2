# tf$layers, tf$contrib$layers, tf$feature_column$input_layer and the
# initializers: TensorFlow 1.x's layers, their variables named as TF names
# them ("dense/kernel", "Stack/fully_connected_1/weights").

# Initializers ----------------------------------------------------------------------

new_tf_initializer <- function(init, ...) structure(list(init = init, ...), class = "cppestimators_tf_initializer")

#' @export
print.cppestimators_tf_initializer <- function(x, ...) {
  fields <- unclass(x)[-1]
  cat(sprintf("<tf initializer %s%s>\n", x$init,
              if (length(fields)) paste0(": ", paste(names(fields), fields, sep = " = ", collapse = ", ")) else ""))
  invisible(x)
}

tf_zeros_initializer <- function(dtype = NULL) new_tf_initializer("zeros")
tf_ones_initializer <- function(dtype = NULL) new_tf_initializer("ones")
tf_constant_initializer <- function(value = 0, dtype = NULL, verify_shape = FALSE) {
  check_number(value, "value", message = "tf$constant_initializer(): only a single number `value` is supported.")
  new_tf_initializer("constant", value = as.numeric(value))
}
tf_glorot_uniform_initializer <- function(seed = NULL, dtype = NULL) new_tf_initializer("glorot_uniform")
tf_glorot_normal_initializer <- function(seed = NULL, dtype = NULL) new_tf_initializer("glorot_normal")
tf_truncated_normal_initializer <- function(mean = 0, stddev = 1, seed = NULL, dtype = NULL) {
  check_number(mean, "mean")
  check_number(stddev, "stddev", min = 0)
  new_tf_initializer("truncated_normal", mean = mean, stddev = stddev)
}
tf_random_normal_initializer <- function(mean = 0, stddev = 1, seed = NULL, dtype = NULL) {
  check_number(mean, "mean")
  check_number(stddev, "stddev", min = 0)
  new_tf_initializer("random_normal", mean = mean, stddev = stddev)
}
tf_random_uniform_initializer <- function(minval = 0, maxval = NULL, seed = NULL, dtype = NULL) {
  maxval <- maxval %||% 1
  check_number(minval, "minval")
  check_number(maxval, "maxval", min = minval)
  new_tf_initializer("random_uniform", minval = minval, maxval = maxval)
}
# contrib's xavier_initializer: glorot uniform, or (uniform = FALSE) a
# truncated normal of variance 1.3 / fan_avg (variance_scaling_initializer's).
tf_xavier_initializer <- function(uniform = TRUE, seed = NULL, dtype = NULL) {
  check_flag(uniform, "uniform")
  if (uniform) new_tf_initializer("glorot_uniform") else new_tf_initializer("xavier_normal")
}

# TF's _compute_fans of a variable's shape.
tf_fans <- function(shape) {
  if (length(shape) == 0L) return(c(1, 1))
  if (length(shape) == 1L) return(c(shape, shape))
  if (length(shape) == 2L) return(shape)
  receptive <- prod(shape[seq_len(length(shape) - 2L)])
  receptive * shape[length(shape) - 1:0]
}

# The variable's init fields from an initializer (an initializer object, a
# constructor of one, or NULL: `default`).
tf_init_fields <- function(initializer, shape, default, arg) {
  if (is.null(initializer)) initializer <- default
  if (is.function(initializer)) initializer <- initializer()
  if (!inherits(initializer, "cppestimators_tf_initializer")) {
    abort(sprintf("`%s` must be an initializer such as tf$zeros_initializer(), not %s.", arg, describe(initializer)),
          class = "cppestimators_unsupported_tf")
  }
  fans <- tf_fans(shape)
  switch(initializer$init,
    glorot_uniform = list(init = "glorot_uniform", limit = sqrt(6 / sum(fans))),
    glorot_normal = list(init = "glorot_normal", stddev = sqrt(2 / sum(fans)) / 0.87962566103423978),
    xavier_normal = list(init = "truncated_normal", mean = 0, stddev = sqrt(1.3 * 2 / sum(fans))),
    unclass(initializer))
}

# A variable of the graph (its node; a variable is created once, and used
# again with `reuse`).
tf_variable <- function(g, name, shape, dtype, initializer, default, trainable = TRUE, reuse = NULL,
                        arg = "initializer") {
  if (!is.null(g$variables[[name]])) {
    old <- g$variables[[name]]
    if (!isTRUE(reuse)) {
      abort(sprintf("Variable %s already exists, disallowed. Did you mean to set reuse=TRUE?", name),
            class = "cppestimators_tf_variable_error")
    }
    if (!identical(as.numeric(old$shape), as.numeric(shape))) {
      abort(sprintf("Trying to share variable %s, but specified shape %s and found shape %s.", name,
                    format_tf_shape(shape), format_tf_shape(old$shape)), class = "cppestimators_tf_variable_error")
    }
    return(new_tf_tensor(g, g$var_nodes[[name]]))
  }
  if (isTRUE(reuse)) {
    abort(sprintf(paste0("Variable %s does not exist, or was not created with tf.get_variable(). Did you mean to ",
                         "set reuse=NULL?"), name), class = "cppestimators_tf_variable_error")
  }
  init <- tf_init_fields(initializer, shape, default, arg)
  g$variables[[name]] <- c(list(name = name, shape = as.numeric(shape), dtype = dtype, init = init$init,
                                trainable = as.numeric(isTRUE(trainable))), init[setdiff(names(init), "init")])
  t <- tf_graph_node(g, "variable", shape = shape, dtype = dtype, name = paste0(name, "/read:0"), var = name)
  g$var_nodes[[name]] <- t$id
  t
}

# An activation: NULL (linear), an R function of a tensor, or the name of
# one of tf$nn's.
tf_activation <- function(activation, arg = "activation") {
  if (is.null(activation) || identical(activation, "linear")) return(identity)
  if (is.character(activation) && length(activation) == 1L) return(tf$nn[[activation]])
  check_function(activation, arg)
}

check_no_regularizer <- function(...) {
  given <- list(...)
  given <- given[!vapply(given, is.null, TRUE)]
  if (length(given)) {
    abort(sprintf("`%s` is not supported by cppestimators' custom estimators (no regularization losses); use NULL.",
                  names(given)[1]), class = "cppestimators_unsupported_tf")
  }
}

# A dense layer in `scope`: matmul by "<scope>/<kernel>", plus the bias
# "<scope>/<bias>" (unless `bias_init` is NULL), `normalizer`, then the
# activation.
tf_dense_layer <- function(x, units, scope, kernel, bias, kernel_init, bias_init, activation, trainable, reuse,
                           fn, normalizer = NULL) {
  g <- tf_graph_of(x)
  x <- as_tf_tensor(x, g, arg = "inputs")
  units <- check_count(units, if (fn == "tf$layers$dense()") "units" else "num_outputs")
  if (length(x$shape) != 2L) {
    abort(sprintf("%s: `inputs` must be 2-D ([batch, features]), not %s; flatten it with tf$reshape().", fn, format(x)),
          class = "cppestimators_tf_shape_error")
  }
  if (!is_float_dtype(x$dtype)) {
    abort(sprintf("%s: `inputs` must be floats, not %s: use tf$cast().", fn, x$dtype),
          class = "cppestimators_tf_dtype_error")
  }
  with_tf_scope(g, scope, {
    w <- tf_variable(g, paste0(scope, "/", kernel), c(x$shape[2], units), x$dtype, kernel_init,
                     tf_glorot_uniform_initializer(), trainable, reuse, "kernel_initializer")
    out <- tf_matmul(x, w)
    if (!is.null(bias_init)) {
      b <- tf_variable(g, paste0(scope, "/", bias), units, x$dtype, bias_init, tf_zeros_initializer(), trainable,
                       reuse, "bias_initializer")
      out <- tf_graph_node(g, "add", tf_ids(out, b), out$shape, out$dtype, tf_op_name(g, "BiasAdd"))
    }
    if (!is.null(normalizer)) out <- normalizer(out)
    activation(out)
  })
}

# Layers --------------------------------------------------------------------------------

tf_layers_dense <- structure(function(inputs, units, activation = NULL, use_bias = TRUE, kernel_initializer = NULL,
                                      bias_initializer = tf_zeros_initializer(), kernel_regularizer = NULL,
                                      bias_regularizer = NULL, activity_regularizer = NULL,
                                      kernel_constraint = NULL, bias_constraint = NULL, trainable = TRUE,
                                      name = NULL, reuse = NULL) {
  g <- tf_graph_of(inputs)
  check_no_regularizer(kernel_regularizer = kernel_regularizer, bias_regularizer = bias_regularizer,
                       activity_regularizer = activity_regularizer, kernel_constraint = kernel_constraint,
                       bias_constraint = bias_constraint)
  check_flag(use_bias, "use_bias")
  act <- tf_activation(activation)
  scope <- tf_layer_scope(g, "dense", name)
  tf_dense_layer(inputs, units, scope, "kernel", "bias", kernel_initializer,
                 if (use_bias) bias_initializer %||% tf_zeros_initializer(), act, trainable, reuse,
                 "tf$layers$dense()")
}, tf_name = "dense")

tf_layers_dropout <- structure(function(inputs, rate = 0.5, noise_shape = NULL, seed = NULL, training = FALSE,
                                        name = NULL) {
  g <- tf_graph_of(inputs)
  x <- as_tf_tensor(inputs, g, arg = "inputs")
  check_number(rate, "rate", min = 0, max = 1, exclusive_max = TRUE)
  check_training_flag(training, "training")
  if (!is.null(noise_shape)) abort("`noise_shape` is not supported.", class = "cppestimators_unsupported_tf")
  scope <- tf_layer_scope(g, "dropout", name)
  with_tf_scope(g, scope, {
    if (isTRUE(training) && rate > 0) tf_dropout_node(x, rate) else tf_elementwise$tf$identity(x)
  })
}, tf_name = "dropout")

check_training_flag <- function(x, arg) {
  if (is_tf_tensor(x)) {
    abort(sprintf("`%s` must be TRUE or FALSE (e.g. `mode == \"train\"`), not a tensor.", arg),
          class = "cppestimators_unsupported_tf")
  }
  check_flag(x, arg)
}

tf_contrib_fully_connected <- structure(function(inputs, num_outputs, activation_fn = tf_elementwise$nn$relu,
                                                 normalizer_fn = NULL, normalizer_params = NULL,
                                                 weights_initializer = tf_xavier_initializer(),
                                                 weights_regularizer = NULL,
                                                 biases_initializer = tf_zeros_initializer(),
                                                 biases_regularizer = NULL, reuse = NULL,
                                                 variables_collections = NULL, outputs_collections = NULL,
                                                 trainable = TRUE, scope = NULL) {
  g <- tf_graph_of(inputs)
  check_no_regularizer(weights_regularizer = weights_regularizer, biases_regularizer = biases_regularizer)
  act <- tf_activation(activation_fn, "activation_fn")
  normalizer <- NULL
  if (!is.null(normalizer_fn)) {
    check_function(normalizer_fn, "normalizer_fn")
    normalizer <- function(x) do.call(normalizer_fn, c(list(x), normalizer_params))
  }
  sc <- tf_layer_scope(g, "fully_connected", scope)
  tf_dense_layer(inputs, num_outputs, sc, "weights", "biases", weights_initializer,
                 if (is.null(normalizer_fn)) biases_initializer, act, trainable, reuse,
                 "tf$contrib$layers$fully_connected()", normalizer)
}, tf_name = "fully_connected")

tf_contrib_dropout <- structure(function(inputs, keep_prob = 0.5, noise_shape = NULL, is_training = TRUE,
                                         outputs_collections = NULL, scope = NULL, seed = NULL) {
  g <- tf_graph_of(inputs)
  x <- as_tf_tensor(inputs, g, arg = "inputs")
  check_number(keep_prob, "keep_prob", min = 0, max = 1, exclusive_min = TRUE)
  check_training_flag(is_training, "is_training")
  if (!is.null(noise_shape)) abort("`noise_shape` is not supported.", class = "cppestimators_unsupported_tf")
  sc <- tf_layer_scope(g, "Dropout", scope)
  with_tf_scope(g, sc, {
    if (is_training && keep_prob < 1) tf_dropout_node(x, 1 - keep_prob) else tf_elementwise$tf$identity(x)
  })
}, tf_name = "dropout")

# contrib's stack(): in the variable scope "Stack" (unique), layer i (from
# 1) called with scope "<layer's name>_<i>" and stack_args[[i]], the other
# arguments given to every layer.
tf_contrib_stack <- function(inputs, layer, stack_args, ..., scope = NULL) {
  g <- tf_graph_of(inputs)
  check_function(layer, "layer", null_ok = FALSE)
  if (!is.list(stack_args) && !is.atomic(stack_args) || length(stack_args) == 0L) {
    abort("stack_args need to be a list or tuple", class = "cppestimators_tf_type_error")
  }
  sc <- tf_layer_scope(g, "Stack", scope)
  base <- scope %||% attr(layer, "tf_name") %||% "stack"
  extra <- list(...)
  with_tf_scope(g, sc, {
    out <- inputs
    for (i in seq_along(stack_args)) {
      a <- stack_args[[i]]
      a <- if (is.list(a)) a else list(a)
      out <- do.call(layer, c(list(out), a, extra, list(scope = paste0(base, "_", i))))
    }
    out
  })
}

# TF 1.x's input_layer: the columns sorted by name, concatenated.
tf_feature_column_input_layer <- function(features, feature_columns, weight_collections = NULL, trainable = TRUE,
                                          cols_to_vars = NULL) {
  if (!inherits(features, "cppestimators_tf_features")) {
    abort(paste0("`features` must be the features the model_fn received, not ", describe(features), "."),
          class = "cppestimators_tf_type_error")
  }
  g <- attr(features, "graph")
  tf_same_graph_env(g)
  if (inherits(feature_columns, "cppestimators_feature_column")) feature_columns <- list(feature_columns)
  cols <- flatten_columns(list(feature_columns))
  if (length(cols) == 0L) abort("feature_columns must not be empty.", class = "cppestimators_tf_column_error")
  names_ <- vapply(cols, function(c) c$name, "")
  cols <- cols[order(names_, method = "radix")]
  keys <- feature_keys(cols)
  missing_keys <- setdiff(keys, names(features))
  if (length(missing_keys)) {
    abort(sprintf(paste0("tf$feature_column$input_layer(): feature '%s' is used by a feature column but is not ",
                         "among the features (%s)."),
                  missing_keys[1], paste(names(features), collapse = ", ")), class = "cppestimators_tf_column_error")
  }
  scope <- tf_layer_scope(g, "input_layer")
  tf_graph_input(g, cols, dtype = "float32", name = paste0(scope, "/concat:0"))
}

tf_same_graph_env <- function(g) {
  if (!identical(current_tf_graph(), g)) {
    abort("these features are from another model_fn call's graph.", class = "cppestimators_tf_graph_error")
  }
}
