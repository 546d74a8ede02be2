# The `tf` object's modules (tf$nn, tf$layers, ...): each a list of its
# members, printed and documented from the same lists (R/tf_ops.R and
# R/tf_elementwise.R fill them).

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
      dropout = "tf_nn_dropout", log_poisson_loss = "tf_nn_log_poisson_loss",
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
    argmin = "tf_argmin", one_hot = "tf_one_hot", constant = "tf_constant", ones_like = "tf_ones_like",
    zeros_like = "tf_zeros_like",
    zeros_initializer = "tf_zeros_initializer", ones_initializer = "tf_ones_initializer",
    constant_initializer = "tf_constant_initializer", glorot_uniform_initializer = "tf_glorot_uniform_initializer",
    glorot_normal_initializer = "tf_glorot_normal_initializer",
    truncated_normal_initializer = "tf_truncated_normal_initializer",
    random_normal_initializer = "tf_random_normal_initializer",
    random_uniform_initializer = "tf_random_uniform_initializer"),
  lapply(stats::setNames(nm = tf_dtypes), new_tf_dtype)
))
