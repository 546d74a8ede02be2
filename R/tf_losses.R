# tf$losses: TensorFlow 1.x's tf.losses (losses_impl.py), built from graph
# primitives: the casts to float32, the element-wise losses, then
# compute_weighted_loss()'s reduction.

tf_check_reduction <- function(reduction) {
  if (!is.character(reduction) || length(reduction) != 1L || !reduction %in% unlist(tf_reductions)) {
    abort(sprintf("Invalid Reduction Key %s; use one of tf$losses$Reduction (%s).", describe(reduction),
                  paste(unique(unlist(tf_reductions)), collapse = ", ")), class = "cppestimators_tf_type_error")
  }
  reduction
}

# Values of `losses` counted at run time: reduce_sum(losses * 0 + 1), which
# follows the batch's rows (TF's _num_elements).
tf_num_elements <- function(losses) {
  g <- losses$graph
  with_tf_scope(g, tf_unique_name(g, "num_elements"), tf_reduce_sum(losses * 0 + 1))
}

# TF's _num_present: the number of losses whose weight is not 0.
tf_num_present <- function(losses, weights) {
  if (is.numeric(weights) && length(weights) == 1L && weights != 0) return(tf_num_elements(losses))
  g <- losses$graph
  with_tf_scope(g, tf_unique_name(g, "num_present"), {
    w <- tf_cast_to(as_tf_tensor(weights, g, "float32", "weights"), "float32")
    present <- tf_cast_to(tf_not_equal(w, 0), "float32")
    tf_reduce_sum(present * (losses * 0 + 1))
  })
}

# TF's div_no_nan(x, n): x / n, or 0 where n is 0.
tf_div_no_nan <- function(x, n) {
  zero <- tf_cast_to(tf_equal(n, 0), n$dtype)
  tf_truediv(x * (1 - zero), n + zero, name = "value")
}

tf_losses_compute_weighted_loss <- function(losses, weights = 1.0, scope = NULL, loss_collection = NULL,
                                            reduction = "weighted_sum_by_nonzero_weights") {
  tf_check_reduction(reduction)
  g <- tf_graph_of(losses, weights)
  with_tf_scope(g, tf_unique_name(g, scope %||% "weighted_loss"), tf_weighted_loss(losses, weights, reduction))
}

# compute_weighted_loss() in the current scope.
tf_weighted_loss <- function(losses, weights, reduction) {
  tf_check_reduction(reduction)
  g <- tf_graph_of(losses, weights)
  losses <- as_tf_tensor(losses, g, arg = "losses")
  input_dtype <- losses$dtype
  losses <- tf_cast_to(losses, "float32")
  w <- tf_cast_to(as_tf_tensor(weights, g, "float32", "weights"), "float32")
  tf_broadcast_shape(losses$shape, w$shape)
  weighted <- tf_multiply(losses, w)
  if (reduction == "none") return(tf_cast_to(weighted, input_dtype))
  total <- tf_reduce_sum(weighted)
  loss <- switch(reduction,
    weighted_sum = total,
    weighted_mean = tf_div_no_nan(total, tf_reduce_sum(tf_ones_like(losses) * w)),
    weighted_sum_by_nonzero_weights = tf_div_no_nan(total, tf_num_present(losses, weights)),
    weighted_sum_over_batch_size = tf_div_no_nan(total, tf_num_elements(losses)))
  tf_cast_to(loss, input_dtype)
}

check_loss_args <- function(labels, predictions, fn, labels_arg = "labels", predictions_arg = "predictions") {
  if (is.null(labels)) abort(sprintf("%s: %s must not be None.", fn, labels_arg), class = "cppestimators_tf_type_error")
  if (is.null(predictions)) {
    abort(sprintf("%s: %s must not be None.", fn, predictions_arg), class = "cppestimators_tf_type_error")
  }
}

# TF's TensorShape.assert_is_compatible_with().
check_compatible_shapes <- function(a, b) {
  if (length(a$shape) != length(b$shape) || any(a$shape != b$shape & a$shape >= 0 & b$shape >= 0) ||
      any((a$shape < 0) != (b$shape < 0))) {
    abort(sprintf("Shapes %s and %s are incompatible (%s and %s).", format_tf_shape(a$shape),
                  format_tf_shape(b$shape), a$name, b$name), class = "cppestimators_tf_shape_error")
  }
}

# Labels and predictions cast to float32, with compatible shapes, in the
# loss's scope; `f(labels, predictions)` the element-wise losses.
tf_pointwise_loss <- function(base, labels, predictions, weights, scope, reduction, f) {
  check_loss_args(labels, predictions, sprintf("tf$losses$%s()", base))
  tf_check_reduction(reduction)
  g <- tf_graph_of(labels, predictions, weights)
  sc <- tf_unique_name(g, scope %||% base)
  losses <- with_tf_scope(g, sc, {
    predictions <- tf_cast_to(as_tf_tensor(predictions, g, "float32", "predictions"), "float32")
    labels <- tf_cast_to(as_tf_tensor(labels, g, "float32", "labels"), "float32")
    check_compatible_shapes(predictions, labels)
    f(labels, predictions)
  })
  with_tf_scope(g, sc, tf_weighted_loss(losses, weights, reduction))
}

tf_losses_mean_squared_error <- function(labels, predictions, weights = 1.0, scope = NULL, loss_collection = NULL,
                                         reduction = "weighted_sum_by_nonzero_weights") {
  tf_pointwise_loss("mean_squared_error", labels, predictions, weights, scope, reduction, function(l, p) {
    tf_elementwise$tf$square(tf_subtract(p, l))
  })
}

tf_losses_absolute_difference <- function(labels, predictions, weights = 1.0, scope = NULL, loss_collection = NULL,
                                          reduction = "weighted_sum_by_nonzero_weights") {
  tf_pointwise_loss("absolute_difference", labels, predictions, weights, scope, reduction, function(l, p) {
    tf_elementwise$tf$abs(tf_subtract(p, l))
  })
}

tf_losses_huber_loss <- function(labels, predictions, weights = 1.0, delta = 1.0, scope = NULL,
                                 loss_collection = NULL, reduction = "weighted_sum_by_nonzero_weights") {
  check_number(delta, "delta", min = 0)
  tf_pointwise_loss("huber_loss", labels, predictions, weights, scope, reduction, function(l, p) {
    abs_error <- tf_elementwise$tf$abs(tf_subtract(p, l))
    quadratic <- tf_minimum(abs_error, delta)
    linear <- tf_subtract(abs_error, quadratic)
    tf_add(tf_multiply(0.5, tf_multiply(quadratic, quadratic)), tf_multiply(delta, linear))
  })
}

tf_losses_log_loss <- function(labels, predictions, weights = 1.0, epsilon = 1e-7, scope = NULL,
                               loss_collection = NULL, reduction = "weighted_sum_by_nonzero_weights") {
  check_number(epsilon, "epsilon", min = 0)
  tf_pointwise_loss("log_loss", labels, predictions, weights, scope, reduction, function(l, p) {
    -tf_multiply(l, tf_elementwise$tf$log(p + epsilon)) - tf_multiply(1 - l, tf_elementwise$tf$log(1 - p + epsilon))
  })
}

check_label_smoothing <- function(label_smoothing) check_number(label_smoothing, "label_smoothing", min = 0, max = 1)

tf_losses_sigmoid_cross_entropy <- function(multi_class_labels, logits, weights = 1.0, label_smoothing = 0,
                                            scope = NULL, loss_collection = NULL,
                                            reduction = "weighted_sum_by_nonzero_weights") {
  check_loss_args(multi_class_labels, logits, "tf$losses$sigmoid_cross_entropy()", "multi_class_labels", "logits")
  check_label_smoothing(label_smoothing)
  g <- tf_graph_of(multi_class_labels, logits, weights)
  sc <- tf_unique_name(g, scope %||% "sigmoid_cross_entropy_loss")
  with_tf_scope(g, sc, {
    logits <- as_tf_tensor(logits, g, arg = "logits")
    labels <- tf_cast_to(as_tf_tensor(multi_class_labels, g, logits$dtype, "multi_class_labels"), logits$dtype)
    check_compatible_shapes(logits, labels)
    if (label_smoothing > 0) labels <- labels * (1 - label_smoothing) + 0.5 * label_smoothing
    losses <- tf_nn_sigmoid_cross_entropy_with_logits(labels = labels, logits = logits, name = "xentropy")
    tf_weighted_loss(losses, weights, reduction)
  })
}

tf_losses_softmax_cross_entropy <- function(onehot_labels, logits, weights = 1.0, label_smoothing = 0, scope = NULL,
                                            loss_collection = NULL, reduction = "weighted_sum_by_nonzero_weights") {
  check_loss_args(onehot_labels, logits, "tf$losses$softmax_cross_entropy()", "onehot_labels", "logits")
  check_label_smoothing(label_smoothing)
  g <- tf_graph_of(onehot_labels, logits, weights)
  sc <- tf_unique_name(g, scope %||% "softmax_cross_entropy_loss")
  with_tf_scope(g, sc, {
    logits <- as_tf_tensor(logits, g, arg = "logits")
    labels <- tf_cast_to(as_tf_tensor(onehot_labels, g, logits$dtype, "onehot_labels"), logits$dtype)
    check_compatible_shapes(logits, labels)
    if (label_smoothing > 0) {
      num_classes <- labels$shape[length(labels$shape)]
      labels <- labels * (1 - label_smoothing) + label_smoothing / num_classes
    }
    labels <- tf_elementwise$tf$stop_gradient(labels, name = "labels_stop_gradient")
    losses <- tf_nn_softmax_cross_entropy_with_logits_v2(labels = labels, logits = logits, name = "xentropy")
    tf_weighted_loss(losses, weights, reduction)
  })
}

tf_losses_sparse_softmax_cross_entropy <- function(labels, logits, weights = 1.0, scope = NULL,
                                                   loss_collection = NULL,
                                                   reduction = "weighted_sum_by_nonzero_weights") {
  check_loss_args(labels, logits, "tf$losses$sparse_softmax_cross_entropy()", "labels", "logits")
  g <- tf_graph_of(labels, logits, weights)
  sc <- tf_unique_name(g, scope %||% "sparse_softmax_cross_entropy_loss")
  with_tf_scope(g, sc, {
    logits <- as_tf_tensor(logits, g, arg = "logits")
    labels <- as_tf_tensor(if (is.numeric(labels)) as.integer(labels) else labels, g, arg = "labels")
    # TF's _remove_squeezable_dimensions(expected_rank_diff = 1): labels of
    # shape (?, 1) with logits (?, k) lose their last dimension
    nl <- length(labels$shape)
    if (nl == length(logits$shape) && nl > 0L && labels$shape[nl] == 1) labels <- tf_squeeze(labels, -1L)
    if (is_tf_tensor(weights) && length(weights$shape) == length(labels$shape) + 1L &&
          weights$shape[length(weights$shape)] == 1) {
      weights <- tf_squeeze(weights, -1L)
    }
    losses <- tf_nn_sparse_softmax_cross_entropy_with_logits(labels = labels, logits = logits, name = "xentropy")
    tf_weighted_loss(losses, weights, reduction)
  })
}
