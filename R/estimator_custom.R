#' Custom estimators
#'
#' `estimator()` builds an estimator from a model function, as
#' tfestimators' did: `model_fn(features, labels, mode, params, config)`
#' builds the model with the package's [tf] object (`tf$layers$dense()`,
#' `tf$nn$relu`, `tf$losses$...`, `tf$metrics$...`, `tf$train$...`) and
#' returns an `estimator_spec()`. The engine runs the graph the model
#' function built and differentiates it (reverse-mode automatic
#' differentiation), inside the same training loop as the canned
#' estimators: every hook, checkpoints and resuming, summaries and
#' [tensorboard()], [evaluate()], [predict()], [variable_names()] and
#' [export_savedmodel()] work as for them.
#'
#' `model_fn` is called once per [train()], [evaluate()] and [predict()]
#' call (and once more in `"eval"` mode when training runs an in-memory
#' evaluator), with the mode (`"train"`, `"eval"` or `"infer"`, see
#' [mode_keys()]) and only the arguments it declares. `features` is, for an
#' [input_fn()] of a data frame, the `[batch, features]` float64 matrix of
#' its features (as tfestimators gave it), which
#' `tf$feature_column$input_layer(features, feature_columns)` also reads by
#' name; `labels` is the response: int32 for a factor (its level codes from
#' 0) or integers, float64 for numbers. A streaming dataset's input
#' ([text_line_dataset()], [tfrecord_dataset()], ...) gives the types its
#' spec declares. Variables are named as TensorFlow
#' names them (`dense/kernel`, `dense_1/bias`, ...) in checkpoints and in
#' [variable_names()].
#'
#' @param model_fn The model function: `function(features, labels, mode,
#'   params, config)`; it must take `features`, and may leave out the others.
#' @param model_dir Directory for checkpoints and summaries (`NULL`: the
#'   run configuration's, else a new temporary directory).
#' @param config `NULL` or a [run_config()].
#' @param params A list of hyperparameters handed to `model_fn`.
#' @param class Further classes for the estimator object.
#' @return `estimator()`: an estimator (class `tf_custom_estimator`).
#' @family estimators
#' @seealso `vignette("custom-estimators")`, [tf] for the supported calls.
#' @export
#' @examples
#' model_fn <- function(features, labels, mode, params, config) {
#'   hidden <- tf$layers$dense(features, 10L, activation = tf$nn$relu)
#'   logits <- tf$layers$dense(hidden, 3L)
#'   if (mode == "infer") {
#'     return(estimator_spec(mode, predictions = list(
#'       class = tf$argmax(logits, 1L), prob = tf$nn$softmax(logits))))
#'   }
#'   loss <- tf$losses$sparse_softmax_cross_entropy(labels, logits)
#'   train_op <- tf$train$AdagradOptimizer(params$learning_rate)$minimize(
#'     loss, global_step = tf$train$get_global_step())
#'   estimator_spec(mode, loss = loss, train_op = train_op, eval_metric_ops = list(
#'     accuracy = tf$metrics$accuracy(labels, tf$argmax(logits, 1L))))
#' }
#' est <- estimator(model_fn, params = list(learning_rate = 0.1))
#' input <- input_fn(iris, response = "Species", features = -Species, batch_size = 10)
#' train(est, input, steps = 50)
#' evaluate(est, input)
#' head(predict(est, input))
estimator <- function(model_fn, model_dir = NULL, config = NULL, params = NULL, class = NULL) {
  if (missing(model_fn) || !is.function(model_fn)) {
    abort(paste0("`model_fn` must be a function(features, labels, mode, params, config), not ",
                 if (missing(model_fn)) "missing" else describe(model_fn), "."),
          class = "cppestimators_model_fn_error")
  }
  label <- model_fn_label(substitute(model_fn))
  args <- names(formals(model_fn))
  if (!"features" %in% args) {
    abort(sprintf("model_fn (%s) must include features argument.", label), class = "cppestimators_model_fn_error")
  }
  extra <- setdiff(args, c(model_fn_args, "..."))
  if (length(extra)) {
    abort(sprintf("model_fn (%s) has following not expected args: %s", label, paste(extra, collapse = ", ")),
          class = "cppestimators_model_fn_error")
  }
  if (!is.null(params) && !"params" %in% args) {
    abort(sprintf("model_fn (%s) does not include params argument, but params (%s) is passed to Estimator.",
                  label, describe(params)), class = "cppestimators_model_fn_error")
  }
  if (!is.null(params) && !is.list(params)) {
    abort(paste0("`params` must be NULL or a list of hyperparameters, not ", describe(params), "."))
  }
  check_string(model_dir, "model_dir", null_ok = TRUE, must = "NULL or a non-empty string (not NA)")
  if (is.null(config)) config <- run_config()
  if (!inherits(config, "cppestimators_run_config")) {
    abort(paste0("`config` must be NULL or made by run_config(), not ", describe(config), "."))
  }
  if (!is.null(class) && (!is.character(class) || anyNA(class))) {
    abort(paste0("`class` must be NULL or a character vector, not ", describe(class), "."))
  }
  model_dir <- resolve_model_dir(model_dir, config$model_dir)
  config <- config$replace(model_dir = model_dir)
  spec <- list(
    kind = "custom", name = "estimator", head = "graph", head_n = 1L, feature_columns = list(),
    label_vocabulary = NULL, weight_column = NULL, optimizer = placeholder_optimizer(),
    model = new_model_spec("graph", variables = list(), graphs = list()), model_dir = model_dir,
    config = config, response = NULL, model_fn = model_fn, model_fn_label = label, params = params
  )
  structure(list(spec = spec, args = list(params = params), state = new.env(parent = emptyenv())),
            class = c(class, "tf_custom_estimator", "tf_estimator"))
}

model_fn_args <- c("features", "labels", "mode", "params", "config")

model_fn_label <- function(expr) {
  if (is.symbol(expr)) return(as.character(expr))
  "function"
}

# The optimizer of an engine that never trains (built for evaluate() or
# predict() before any train()): one without slots.
placeholder_optimizer <- function() unclass(optimizer_sgd(learning_rate = 0.01))

# The spec of a custom estimator as its last model_fn call left it (feature
# columns, variables, graphs, optimizer): every function reading
# `object$spec` sees it, so that hooks, sessions and exports treat the
# estimator as they treat a canned one.
#' @export
`$.tf_custom_estimator` <- function(x, name) {
  if (identical(name, "spec")) {
    live <- .subset2(x, "state")$custom_spec
    if (!is.null(live)) return(live)
  }
  .subset2(x, name)
}

#' Define an estimator specification
#'
#' What a custom estimator's `model_fn` returns (see [estimator()]): by mode,
#' the tensors to predict (`"infer"`), the loss and its metrics (`"eval"`),
#' or the loss and the training operation (`"train"`).
#'
#' @param mode The mode the model function was called with.
#' @param predictions A tensor, or a named list of tensors, each with a value
#'   per example (required in `"infer"` mode); their names are
#'   [predict()]'s columns.
#' @param loss A scalar tensor (required in `"train"` and `"eval"` modes).
#' @param train_op The training operation: `optimizer$minimize(loss, ...)` or
#'   `tf$contrib$layers$optimize_loss()` (required in `"train"` mode).
#' @param eval_metric_ops A named list of `tf$metrics$...()` results,
#'   reported by [evaluate()] beside `loss`.
#' @param training_hooks,evaluation_hooks,prediction_hooks Lists of hooks run
#'   by [train()], [evaluate()] and [predict()] after the call's own.
#' @param training_chief_hooks Hooks of the chief: the same as
#'   `training_hooks` in one process.
#' @param ... Other arguments of TensorFlow's `EstimatorSpec`
#'   (`scaffold`, `export_outputs`): an error.
#' @return An object of class `cppestimators_estimator_spec`.
#' @family custom estimator methods
#' @export
#' @examples
#' # inside a model_fn; see ?estimator
#' mode_keys()$PREDICT
estimator_spec <- function(mode, predictions = NULL, loss = NULL, train_op = NULL, eval_metric_ops = NULL,
                           training_hooks = NULL, evaluation_hooks = NULL, prediction_hooks = NULL,
                           training_chief_hooks = NULL, ...) {
  extra <- dots_names(...)
  if (length(extra)) {
    abort(sprintf("estimator_spec(): `%s` is not supported by cppestimators' custom estimators.", extra[1]),
          class = "cppestimators_unsupported_tf")
  }
  mode <- check_choice(mode, "mode", unlist(mode_keys(), use.names = FALSE))
  if (!is.null(train_op) && !inherits(train_op, "cppestimators_tf_train_op")) {
    abort(paste0("`train_op` must be made by an optimizer's $minimize() or tf$contrib$layers$optimize_loss(), not ",
                 describe(train_op), "."), class = "cppestimators_model_fn_error")
  }
  if (!is.null(loss) && !inherits(loss, "cppestimators_tf_tensor")) {
    abort(paste0("`loss` must be a tensor, not ", describe(loss), "."), class = "cppestimators_model_fn_error")
  }
  if (!is.null(eval_metric_ops) && (!is.list(eval_metric_ops) || is.null(names(eval_metric_ops)) ||
                                    !all(nzchar(names(eval_metric_ops))) ||
                                    !all(vapply(eval_metric_ops, inherits, TRUE, "cppestimators_tf_metric")))) {
    abort("`eval_metric_ops` must be a named list of tf$metrics$...() results.", class = "cppestimators_model_fn_error")
  }
  # TensorFlow's EstimatorSpec checks, with its messages
  if (mode == "infer" && is.null(predictions)) abort("Missing predictions.", class = "cppestimators_model_fn_error")
  if (mode != "infer" && is.null(loss)) abort("Missing loss.", class = "cppestimators_model_fn_error")
  if (mode == "train" && is.null(train_op)) abort("Missing train_op.", class = "cppestimators_model_fn_error")
  structure(list(mode = mode, predictions = predictions, loss = loss, train_op = train_op,
                 eval_metric_ops = eval_metric_ops,
                 training_hooks = c(normalize_hooks(training_hooks), normalize_hooks(training_chief_hooks)),
                 evaluation_hooks = normalize_hooks(evaluation_hooks),
                 prediction_hooks = normalize_hooks(prediction_hooks)),
            class = "cppestimators_estimator_spec")
}

#' @export
print.cppestimators_estimator_spec <- function(x, ...) {
  cat(sprintf("<estimator_spec> mode \"%s\"\n", x$mode))
  if (!is.null(x$loss)) cat("  loss: ", format(x$loss), "\n", sep = "")
  if (!is.null(x$predictions)) {
    cat("  predictions: ", paste(names(spec_predictions(x$predictions)), collapse = ", "), "\n", sep = "")
  }
  if (!is.null(x$train_op)) cat("  train_op: ", x$train_op$optimizer$name, "\n", sep = "")
  if (length(x$eval_metric_ops)) {
    cat("  eval_metric_ops: ", paste(names(x$eval_metric_ops), collapse = ", "), "\n", sep = "")
  }
  invisible(x)
}

spec_predictions <- function(p) {
  if (inherits(p, "cppestimators_tf_tensor")) return(list(predictions = p))
  p
}

#' @export
print.tf_custom_estimator <- function(x, ...) {
  spec <- x$spec
  ptr <- live_ptr(x)
  # (the model's variables, not the optimizers' slots)
  vars <- if (!is.null(ptr)) setdiff(cpp_estimator_variable_names(ptr, slots = FALSE), "global_step")
  info <- c(
    `model_fn` = spec$model_fn_label %||% "function",
    `model_dir` = spec$model_dir %||% "<none>",
    `global step` = if (is.null(ptr)) (if (is.null(x$state$weights)) "0" else "saved") else
      format(cpp_estimator_global_step(ptr)),
    variables = if (is.null(ptr)) "(built at the first train(), evaluate() or predict())" else
      paste(sort(vars, method = "radix"), collapse = ", ")
  )
  cat("<estimator> (custom)\n")
  cat(sprintf("  %-*s %s\n", max(nchar(names(info))) + 1L, paste0(names(info), ":"), info), sep = "")
  invisible(x)
}

# ------------------------------------------------------------------ methods

#' @export
train.tf_custom_estimator <- function(object, input_fn, steps = NULL, hooks = NULL, max_steps = NULL,
                                      saving_listeners = NULL, cluster = NULL, ...) {
  if (!is.null(cluster %||% object$spec$config$cluster)) {
    abort("custom estimators train in one process: `cluster` is not supported for estimator(model_fn) yet.",
          class = "cppestimators_unsupported_tf")
  }
  check_custom_input(input_fn, "train")
  call <- custom_call(object, input_fn, "train")
  object <- call$object
  hooks <- c(normalize_hooks(hooks), call$spec$training_hooks)
  # an in-memory evaluator evaluates this estimator: its eval graph too
  for (h in hooks) {
    if (hook_has_role(h, "evaluator") && !is.null(h$input_fn)) custom_call(object, h$input_fn, "eval")
  }
  train.tf_estimator(object, input_fn, steps = steps, hooks = hooks, max_steps = max_steps,
                     saving_listeners = saving_listeners, ...)
}

#' @export
train_and_evaluate.tf_custom_estimator <- function(object, train_spec, eval_spec, ...) {
  if (inherits(train_spec, "cppestimators_train_spec") && inherits(eval_spec, "cppestimators_eval_spec")) {
    # the engine holds both graphs before training starts: the evaluations
    # run between its steps
    object <- custom_call(object, train_spec$input_fn, "train")$object
    object <- custom_call(object, eval_spec$input_fn, "eval")$object
  }
  train_and_evaluate.tf_estimator(object, train_spec, eval_spec, ...)
}

#' @export
evaluate.tf_custom_estimator <- function(object, input_fn, steps = NULL, checkpoint_path = NULL, name = NULL,
                                         hooks = NULL, simplify = TRUE, ...) {
  check_custom_input(input_fn, "evaluate")
  call <- custom_call(object, input_fn, "eval")
  evaluate.tf_estimator(call$object, input_fn, steps = steps, checkpoint_path = checkpoint_path, name = name,
                        hooks = c(normalize_hooks(hooks), call$spec$evaluation_hooks), simplify = simplify, ...)
}

#' @export
predict.tf_custom_estimator <- function(object, input_fn, checkpoint_path = NULL, predict_keys = NULL,
                                        hooks = NULL, as_iterable = FALSE, simplify = TRUE,
                                        yield_single_examples = TRUE, ...) {
  check_custom_input(input_fn, "predict")
  check_dots(dots_names(...), "predict", c("checkpoint_path", "predict_keys", "hooks", "as_iterable",
                                           "simplify", "yield_single_examples"))
  call <- custom_call(object, input_fn, "infer")
  object <- call$object
  preds <- spec_predictions(call$spec$predictions)
  keys <- names(preds)
  if (!is.null(predict_keys)) {
    if (!is.character(predict_keys) || !length(predict_keys) || !all(predict_keys %in% keys)) {
      abort(sprintf("Expected to run at least one output from %s, provided %s.",
                    paste(keys, collapse = ", "), paste(format(predict_keys), collapse = ", ")))
    }
    keys <- keys[keys %in% predict_keys]
  }
  ptr <- estimator_ptr(object)
  if (is.null(checkpoint_path)) check_model_trained(object, ptr)
  hooks <- refuse_training_only(c(normalize_hooks(hooks), call$spec$prediction_hooks), "predict()")
  hooks <- prepare_hooks(hooks, object, "infer", "Predicting", NULL)
  run <- run_session(object, input_fn, "infer", hooks, predict_keys = keys, checkpoint_path = checkpoint_path)
  out <- lapply(keys, function(k) {
    m <- run$predictions[[k]]
    if (preds[[k]]$dtype %in% c("int32", "int64")) storage.mode(m) <- "integer"
    if (preds[[k]]$dtype == "bool") m <- m != 0
    prediction_column(m)
  })
  names(out) <- keys
  prediction_output(out, simplify)
}

#' @rdname estimator
#' @details `input_layer()` is tfestimators' function, the same as
#'   `tf$feature_column$input_layer()`: inside a `model_fn`, the
#'   `[batch, width]` tensor of `feature_columns` (numeric, bucketized,
#'   indicator and embedding columns, sorted by name as TensorFlow does) read from
#'   `features`.
#' @param features The `features` the `model_fn` received.
#' @param feature_columns Feature columns, from [feature_columns()].
#' @param weight_collections,trainable,cols_to_vars TensorFlow's arguments,
#'   accepted for compatibility.
#' @export
input_layer <- function(features, feature_columns, weight_collections = NULL, trainable = TRUE,
                        cols_to_vars = NULL) {
  tf_feature_column_input_layer(features, feature_columns, weight_collections = weight_collections,
                                trainable = trainable, cols_to_vars = cols_to_vars)
}

#' @export
model_traits.cppestimators_model_graph <- function(model) {
  list(optimizer_in_record = FALSE, feature_scale_matters = FALSE)
}

# A custom estimator's model is what its model_fn builds: its variables,
# checked against the checkpoint's when restored.
#' @export
model_record_lines.cppestimators_model_graph <- function(model, spec) c("model: graph", "head: graph, 1")
