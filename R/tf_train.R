# tf$train: the global step, TensorFlow 1.x's optimizers (objects holding
# the package's optimizer spec, with $minimize()), the learning-rate decays
# (the package's schedules) and contrib's optimize_loss().

tf_global_step <- structure(list(name = "global_step:0"), class = "cppestimators_tf_global_step")

tf_train_get_global_step <- function(graph = NULL) {
  current_tf_graph()
  tf_global_step
}

is_tf_global_step <- function(x) inherits(x, "cppestimators_tf_global_step")

#' @export
print.cppestimators_tf_global_step <- function(x, ...) {
  cat("<tf.Variable 'global_step:0' shape=() dtype=int64_ref>\n")
  invisible(x)
}

global_step_misuse <- function() {
  abort(paste0("the global step may only be given to optimizers ($minimize(global_step = )) and learning-rate ",
               "decays (tf$train$exponential_decay(...)); it is not a tensor of the model."),
        class = "cppestimators_tf_global_step_error")
}

#' @method Ops cppestimators_tf_global_step
#' @export
Ops.cppestimators_tf_global_step <- Ops.cppestimators_tf_tensor

check_global_step <- function(global_step, fn) {
  if (!is_tf_global_step(global_step)) {
    abort(sprintf("%s: `global_step` must be tf$train$get_global_step(), not %s.", fn, describe(global_step)),
          class = "cppestimators_tf_type_error")
  }
}

# Optimizers -----------------------------------------------------------------------------

# The optimizer object: the spec, its TF class name, and $minimize().
new_tf_optimizer <- function(spec, class_name) {
  minimize <- function(loss, global_step = NULL, var_list = NULL, gate_gradients = 1L, aggregation_method = NULL,
                       colocate_gradients_with_ops = FALSE, name = NULL, grad_loss = NULL) {
    tf_train_op(spec, loss, global_step, var_list, sprintf("%s$minimize()", class_name))
  }
  structure(list(spec = spec, class_name = class_name, minimize = minimize), class = "cppestimators_tf_optimizer")
}

#' @export
print.cppestimators_tf_optimizer <- function(x, ...) {
  cat(sprintf("<tf.train.%s>\n", x$class_name))
  print(x$spec)
  invisible(x)
}

tf_train_op <- function(spec, loss, global_step, var_list, fn) {
  if (!is.null(var_list)) {
    abort(sprintf("%s: `var_list` is not supported: every trainable variable trains; use NULL.", fn),
          class = "cppestimators_unsupported_tf")
  }
  if (!is.null(global_step)) check_global_step(global_step, fn)
  check_tf_loss(loss, tf_graph_of(loss))
  structure(list(optimizer = spec, loss = loss, global_step = !is.null(global_step)),
            class = "cppestimators_tf_train_op")
}

#' @export
print.cppestimators_tf_train_op <- function(x, ...) {
  cat(sprintf("<tf train op: %s minimizing %s%s>\n", x$optimizer$name, x$loss$name,
              if (x$global_step) ", incrementing global_step" else ""))
  invisible(x)
}

# A learning rate: a number or a decay (a schedule).
tf_learning_rate <- function(learning_rate) {
  if (is_tf_tensor(learning_rate)) {
    abort("a learning rate must be a number or a tf$train decay, not a tensor.", class = "cppestimators_unsupported_tf")
  }
  learning_rate
}

tf_train_gradient_descent <- function(learning_rate, use_locking = FALSE, name = "GradientDescent") {
  new_tf_optimizer(optimizer_sgd(tf_learning_rate(learning_rate)), "GradientDescentOptimizer")
}

tf_train_momentum <- function(learning_rate, momentum, use_locking = FALSE, name = "Momentum",
                              use_nesterov = FALSE) {
  new_tf_optimizer(optimizer_momentum(tf_learning_rate(learning_rate), momentum, use_nesterov),
                   "MomentumOptimizer")
}

tf_train_adagrad <- function(learning_rate, initial_accumulator_value = 0.1, use_locking = FALSE,
                             name = "Adagrad") {
  new_tf_optimizer(optimizer_adagrad(tf_learning_rate(learning_rate), initial_accumulator_value),
                   "AdagradOptimizer")
}

tf_train_adam <- function(learning_rate = 0.001, beta1 = 0.9, beta2 = 0.999, epsilon = 1e-08, use_locking = FALSE,
                          name = "Adam") {
  new_tf_optimizer(optimizer_adam(tf_learning_rate(learning_rate), beta1, beta2, epsilon), "AdamOptimizer")
}

tf_train_ftrl <- function(learning_rate, learning_rate_power = -0.5, initial_accumulator_value = 0.1,
                          l1_regularization_strength = 0.0, l2_regularization_strength = 0.0, use_locking = FALSE,
                          name = "Ftrl", accum_name = NULL, linear_name = NULL,
                          l2_shrinkage_regularization_strength = 0.0) {
  new_tf_optimizer(optimizer_ftrl(tf_learning_rate(learning_rate), learning_rate_power, initial_accumulator_value,
                                  l1_regularization_strength, l2_regularization_strength,
                                  l2_shrinkage_regularization_strength), "FtrlOptimizer")
}

tf_train_rmsprop <- function(learning_rate, decay = 0.9, momentum = 0.0, epsilon = 1e-10, use_locking = FALSE,
                             centered = FALSE, name = "RMSProp") {
  check_flag(centered, "centered")
  if (centered) {
    abort("tf$train$RMSPropOptimizer(centered = TRUE) is not supported by cppestimators; use centered = FALSE.",
          class = "cppestimators_unsupported_tf")
  }
  new_tf_optimizer(optimizer_rmsprop(tf_learning_rate(learning_rate), decay, momentum, epsilon),
                   "RMSPropOptimizer")
}

# Decays ------------------------------------------------------------------------------------

tf_train_exponential_decay <- function(learning_rate, global_step, decay_steps, decay_rate, staircase = FALSE,
                                       name = NULL) {
  check_global_step(global_step, "tf$train$exponential_decay()")
  learning_rate_exponential_decay(learning_rate, decay_steps, decay_rate, staircase)
}

tf_train_inverse_time_decay <- function(learning_rate, global_step, decay_steps, decay_rate, staircase = FALSE,
                                        name = NULL) {
  check_global_step(global_step, "tf$train$inverse_time_decay()")
  learning_rate_inverse_time_decay(learning_rate, decay_steps, decay_rate, staircase)
}

tf_train_natural_exp_decay <- function(learning_rate, global_step, decay_steps, decay_rate, staircase = FALSE,
                                       name = NULL) {
  check_global_step(global_step, "tf$train$natural_exp_decay()")
  learning_rate_natural_exp_decay(learning_rate, decay_steps, decay_rate, staircase)
}

tf_train_polynomial_decay <- function(learning_rate, global_step, decay_steps, end_learning_rate = 0.0001,
                                      power = 1.0, cycle = FALSE, name = NULL) {
  check_global_step(global_step, "tf$train$polynomial_decay()")
  learning_rate_polynomial_decay(learning_rate, decay_steps, end_learning_rate, power, cycle)
}

tf_train_piecewise_constant <- function(x, boundaries, values, name = NULL) {
  check_global_step(x, "tf$train$piecewise_constant()")
  learning_rate_piecewise_constant(unlist(boundaries), unlist(values))
}

tf_train_cosine_decay <- function(learning_rate, global_step, decay_steps, alpha = 0.0, name = NULL) {
  check_global_step(global_step, "tf$train$cosine_decay()")
  learning_rate_cosine_decay(learning_rate, decay_steps, alpha)
}

# contrib's optimize_loss ------------------------------------------------------------------

# TF's OPTIMIZER_CLS_NAMES: the optimizers by name, made with a learning rate.
tf_optimizer_names <- list(
  Adagrad = function(lr) tf_train_adagrad(lr), Adam = function(lr) tf_train_adam(lr),
  Ftrl = function(lr) tf_train_ftrl(lr), Momentum = function(lr) tf_train_momentum(lr, momentum = 0.9),
  RMSProp = function(lr) tf_train_rmsprop(lr), SGD = function(lr) tf_train_gradient_descent(lr)
)

tf_contrib_optimize_loss <- function(loss, global_step, learning_rate, optimizer, gradient_noise_scale = NULL,
                                     gradient_multipliers = NULL, clip_gradients = NULL,
                                     learning_rate_decay_fn = NULL, update_ops = NULL, variables = NULL,
                                     name = NULL, summaries = NULL, colocate_gradients_with_ops = FALSE,
                                     increment_global_step = TRUE) {
  fn <- "tf$contrib$layers$optimize_loss()"
  unsupported <- list(gradient_noise_scale = gradient_noise_scale, gradient_multipliers = gradient_multipliers,
                      clip_gradients = clip_gradients, update_ops = update_ops, variables = variables)
  given <- names(unsupported)[!vapply(unsupported, is.null, TRUE)]
  if (length(given)) {
    abort(sprintf("%s: `%s` is not supported by cppestimators; use NULL.", fn, given[1]),
          class = "cppestimators_unsupported_tf")
  }
  if (missing(learning_rate)) learning_rate <- NULL
  if (!is.null(global_step)) check_global_step(global_step, fn)
  check_flag(increment_global_step, "increment_global_step")
  if (!is.null(learning_rate_decay_fn)) {
    if (is.null(learning_rate)) abort(sprintf("%s: learning_rate_decay_fn needs a learning_rate.", fn))
    check_function(learning_rate_decay_fn, "learning_rate_decay_fn")
    learning_rate <- learning_rate_decay_fn(learning_rate, global_step %||% tf_global_step)
    if (!is_schedule(learning_rate) && !is.numeric(learning_rate)) {
      abort(sprintf("%s: learning_rate_decay_fn must return a tf$train decay or a number, not %s.", fn,
                    describe(learning_rate)), class = "cppestimators_unsupported_tf")
    }
  }
  opt <- if (is.character(optimizer) && length(optimizer) == 1L) {
    if (is.null(tf_optimizer_names[[optimizer]])) {
      abort(sprintf("Optimizer name should be one of [%s], you provided %s.",
                    paste(names(tf_optimizer_names), collapse = ", "), optimizer),
            class = "cppestimators_unsupported_tf")
    }
    if (is.null(learning_rate)) {
      abort(sprintf("Learning rate is None, but should be specified if optimizer is string (%s).", optimizer),
            class = "cppestimators_tf_type_error")
    }
    tf_optimizer_names[[optimizer]](learning_rate)
  } else if (inherits(optimizer, "cppestimators_tf_optimizer")) {
    optimizer
  } else if (is.function(optimizer)) {
    if (is.null(learning_rate)) optimizer() else optimizer(learning_rate)
  } else {
    abort(sprintf(paste0("%s: `optimizer` must be an optimizer name (%s), a tf$train optimizer or a function ",
                         "making one, not %s."),
                  fn, paste(names(tf_optimizer_names), collapse = ", "), describe(optimizer)),
          class = "cppestimators_tf_type_error")
  }
  if (!inherits(opt, "cppestimators_tf_optimizer")) {
    abort(sprintf("%s: `optimizer` must make a tf$train optimizer, not %s.", fn, describe(opt)),
          class = "cppestimators_tf_type_error")
  }
  tf_train_op(opt$spec, loss, if (increment_global_step) global_step, NULL, fn)
}
