#' DNN estimators
#'
#' `dnn_regressor()` and `dnn_classifier()` train a feed-forward network as
#' TensorFlow 1.x's canned DNN estimators do: an input layer that
#' concatenates the feature columns in sorted name order (numeric values,
#' one-hot bucketized columns, [column_indicator()] and [column_embedding()]
#' columns; raw categorical columns must be wrapped in one of those), hidden
#' layers `h = activation(h W + b)` with Glorot-uniform kernels and zero
#' biases (seeded by `run_config(tf_random_seed =)`), inverted dropout in
#' training only, and a logits layer. The training loss is the SUM of the
#' per-example losses, as for the linear estimators; heads, metrics and
#' prediction keys are the same. Variables are named as TensorFlow named them
#' (`dnn/hiddenlayer_0/kernel`, ..., `dnn/logits/bias`,
#' `dnn/input_from_feature_columns/input_layer/<column>/embedding_weights`).
#'
#' @inheritParams linear_estimators
#' @param hidden_units The sizes of the hidden layers, e.g. `c(64, 32)` (or a list of
#'   numbers, `list(64, 32)`, as tfestimators scripts often give them).
#' @param feature_columns Dense feature columns (see above), from
#'   [feature_columns()].
#' @param optimizer `"Adagrad"` (the default, learning rate 0.05), `"Adam"`,
#'   `"Ftrl"`, `"RMSProp"` or `"SGD"` at learning rate 0.05, or an optimizer
#'   from [optimizers].
#' @param activation_fn The hidden layers' activation, by TensorFlow's name:
#'   `"relu"` (default), `"relu6"`, `"elu"`, `"selu"`, `"sigmoid"`, `"tanh"`,
#'   `"softplus"`, `"softsign"`, `"leaky_relu"` (slope 0.2) or `"crelu"`
#'   (which doubles a layer's outputs).
#' @param dropout `NULL`, or the probability of dropping a hidden unit's output
#'   during training (the kept ones are scaled by `1 / (1 - dropout)`).
#' @param input_layer_partitioner Accepted for compatibility and ignored.
#' @return An estimator object (class `tf_estimator`).
#' @family estimators
#' @name dnn_estimators
#' @examples
#' fcs <- feature_columns(column_numeric(starts_with("Petal")), names = iris)
#' est <- dnn_classifier(hidden_units = c(10, 10), feature_columns = fcs, n_classes = 3)
#' est
NULL

#' @rdname dnn_estimators
#' @export
dnn_regressor <- function(hidden_units, feature_columns, model_dir = NULL, label_dimension = 1L,
                          weight_column = NULL, optimizer = "Adagrad", activation_fn = "relu",
                          dropout = NULL, input_layer_partitioner = NULL, config = NULL, head = NULL) {
  label_dimension <- check_whole(label_dimension, "label_dimension", null_ok = FALSE)
  new_estimator("regressor", "dnn_regressor", feature_columns, model_dir,
                head = resolve_head(head, "regression", label_dimension, "regressor", "dnn_regressor"), head_n = NULL, weight_column = weight_column,
                label_vocabulary = NULL, optimizer = optimizer, config = config,
                args = as.list(environment()),
                model = dnn_model_spec(hidden_units, activation_fn, dropout), default_lr = 0.05)
}

#' @rdname dnn_estimators
#' @export
dnn_classifier <- function(hidden_units, feature_columns, model_dir = NULL, n_classes = 2L,
                           weight_column = NULL, label_vocabulary = NULL, optimizer = "Adagrad",
                           activation_fn = "relu", dropout = NULL, input_layer_partitioner = NULL,
                           config = NULL, head = NULL) {
  classes <- classifier_classes(n_classes, label_vocabulary, !missing(n_classes) || !missing(label_vocabulary),
                                if (!missing(feature_columns)) feature_columns, head = head)
  n_classes <- classes$n_classes
  label_vocabulary <- classes$label_vocabulary
  rm(classes)
  new_estimator("classifier", "dnn_classifier", feature_columns, model_dir,
                head = classifier_head_of(head, n_classes, "dnn_classifier"), head_n = NULL,
                weight_column = weight_column, label_vocabulary = label_vocabulary,
                optimizer = optimizer, config = config, args = as.list(environment()),
                model = dnn_model_spec(hidden_units, activation_fn, dropout), default_lr = 0.05)
}

activation_names <- c("relu", "relu6", "elu", "selu", "sigmoid", "tanh", "softplus", "softsign",
                      "leaky_relu", "crelu")

dnn_model_spec <- function(hidden_units, activation_fn, dropout) {
  # tfestimators passed the sizes to Python as a list as readily as a vector
  if (!missing(hidden_units) && is.list(hidden_units) && length(hidden_units) > 0L &&
      all(vapply(hidden_units, function(u) is.numeric(u) && length(u) == 1L, TRUE))) {
    hidden_units <- unlist(hidden_units, use.names = FALSE)
  }
  if (missing(hidden_units) || !is.numeric(hidden_units) || length(hidden_units) == 0L ||
      anyNA(hidden_units) || any(hidden_units < 1) || any(hidden_units != floor(hidden_units))) {
    abort(paste0("`hidden_units` must be a vector of positive whole numbers (the sizes of the hidden layers), not ",
                 if (missing(hidden_units)) "missing" else describe(hidden_units), "."))
  }
  if (is.function(activation_fn)) {
    abort(paste0("`activation_fn` must be the name of an activation (",
                 paste0('"', activation_names, '"', collapse = ", "), "); R functions cannot run inside the engine."))
  }
  check_string(activation_fn, "activation_fn", empty_ok = TRUE, must = "a string")
  activation_fn <- sub("^tf\\$nn\\$", "", activation_fn)
  if (!activation_fn %in% activation_names) {
    abort(sprintf("'%s' is not a known activation function in the 'tf$nn' module; known: %s.",
                  activation_fn, paste(activation_names, collapse = ", ")))
  }
  check_number(dropout, "dropout", min = 0, max = 1, exclusive_max = TRUE, null_ok = TRUE,
               must = "NULL or a probability in [0, 1)")
  new_model_spec("dnn", hidden_units = as.numeric(hidden_units), activation_fn = activation_fn,
                 dropout = dropout)
}

#' Wide and deep estimators
#'
#' `dnn_linear_combined_regressor()` and `dnn_linear_combined_classifier()`
#' sum the logits of a linear model on `linear_feature_columns` (any columns,
#' as [linear_regressor()]) and of a DNN on `dnn_feature_columns` (dense
#' columns, as [dnn_regressor()]). One loss; the linear part is updated by
#' `linear_optimizer` (FTRL, learning rate `min(0.005, 1/sqrt(number of
#' linear columns))` by default) and the DNN part by `dnn_optimizer`
#' (Adagrad, learning rate 0.001), both from the gradients at the same
#' parameters, and the global step goes up once per batch. Either part may be
#' absent. Variables keep their TensorFlow names (`linear/linear_model/...`,
#' `dnn/...`); optimizer variables of the parts are scoped by the part
#' (`linear/beta1_power`, ...).
#'
#' The default learning rates are TensorFlow's for these estimators, far
#' below those of [linear_classifier()] (FTRL at 0.2) and [dnn_classifier()]
#' (Adagrad at 0.05): with as many steps, the combined model is less
#' trained than either part alone. Give the parts the rates of the single
#' models (`linear_optimizer = optimizer_ftrl(0.2)`, `dnn_optimizer =
#' optimizer_adagrad(0.05)`) or train it for more steps.
#'
#' @inheritParams dnn_estimators
#' @param linear_feature_columns,dnn_feature_columns The columns of each
#'   part, or `NULL`.
#' @param linear_optimizer,dnn_optimizer Each part's optimizer: a name or an
#'   optimizer from [optimizers], each with its own learning rate or
#'   [learning_rate_schedules] (fetched as `"linear/learning_rate"` and
#'   `"dnn/learning_rate"`).
#' @param dnn_hidden_units,dnn_activation_fn,dnn_dropout The DNN part's
#'   `hidden_units`, `activation_fn` and `dropout`.
#' @return An estimator object (class `tf_estimator`).
#' @family estimators
#' @name dnn_linear_combined_estimators
#' @examples
#' est <- dnn_linear_combined_classifier(
#'   linear_feature_columns = feature_columns(column_numeric("Sepal.Length")),
#'   dnn_feature_columns = feature_columns(column_numeric("Petal.Length", "Petal.Width")),
#'   dnn_hidden_units = c(8, 4), n_classes = 3)
#' est
NULL

#' @rdname dnn_linear_combined_estimators
#' @export
dnn_linear_combined_regressor <- function(model_dir = NULL, linear_feature_columns = NULL,
                                          linear_optimizer = "Ftrl", dnn_feature_columns = NULL,
                                          dnn_optimizer = "Adagrad", dnn_hidden_units = NULL,
                                          dnn_activation_fn = "relu", dnn_dropout = NULL,
                                          label_dimension = 1L, weight_column = NULL,
                                          input_layer_partitioner = NULL, config = NULL, head = NULL) {
  label_dimension <- check_whole(label_dimension, "label_dimension", null_ok = FALSE)
  new_combined("regressor", "dnn_linear_combined_regressor",
               resolve_head(head, "regression", label_dimension, "regressor", "dnn_linear_combined_regressor"), NULL, NULL,
               model_dir, linear_feature_columns, linear_optimizer, dnn_feature_columns,
               dnn_optimizer, dnn_hidden_units, dnn_activation_fn, dnn_dropout, weight_column,
               config, as.list(environment()))
}

#' @rdname dnn_linear_combined_estimators
#' @export
dnn_linear_combined_classifier <- function(model_dir = NULL, linear_feature_columns = NULL,
                                           linear_optimizer = "Ftrl", dnn_feature_columns = NULL,
                                           dnn_optimizer = "Adagrad", dnn_hidden_units = NULL,
                                           dnn_activation_fn = "relu", dnn_dropout = NULL,
                                           n_classes = 2L, weight_column = NULL,
                                           label_vocabulary = NULL, input_layer_partitioner = NULL,
                                           config = NULL, head = NULL) {
  classes <- classifier_classes(n_classes, label_vocabulary, !missing(n_classes) || !missing(label_vocabulary),
                                linear_feature_columns, dnn_feature_columns, head = head)
  n_classes <- classes$n_classes
  label_vocabulary <- classes$label_vocabulary
  rm(classes)
  new_combined("classifier", "dnn_linear_combined_classifier",
               classifier_head_of(head, n_classes, "dnn_linear_combined_classifier"), NULL, label_vocabulary,
               model_dir, linear_feature_columns, linear_optimizer, dnn_feature_columns,
               dnn_optimizer, dnn_hidden_units, dnn_activation_fn, dnn_dropout, weight_column,
               config, as.list(environment()))
}

new_combined <- function(kind, name, head, head_n, label_vocabulary, model_dir, linear_columns,
                         linear_optimizer, dnn_columns, dnn_optimizer, hidden_units, activation_fn,
                         dropout, weight_column, config, args) {
  if (is.null(linear_columns) && is.null(dnn_columns)) {
    abort("Either linear_feature_columns or dnn_feature_columns must be defined.")
  }
  if (!is.null(dnn_columns) && is.null(hidden_units)) {
    abort("dnn_hidden_units must be defined when dnn_feature_columns is specified.")
  }
  linear <- if (!is.null(linear_columns)) feature_columns(linear_columns)
  dnn <- if (!is.null(dnn_columns)) feature_columns(dnn_columns)
  all <- c(unclass(linear), unclass(dnn))
  names_all <- vapply(all, function(c) c$name, "")
  for (nm in unique(names_all[duplicated(names_all)])) {
    same <- all[names_all == nm]
    if (!all(vapply(same, identical, TRUE, same[[1]]))) {
      abort(sprintf("the feature column '%s' is defined differently in linear_feature_columns and dnn_feature_columns.",
                    nm))
    }
  }
  fields <- list(linear_columns = vapply(linear, function(c) c$name, ""),
                 dnn_columns = vapply(dnn, function(c) c$name, ""))
  if (!is.null(dnn)) fields <- c(fields, unclass(dnn_model_spec(hidden_units, activation_fn, dropout))[-1])
  if (is.null(linear)) fields$linear_columns <- NULL
  if (is.null(dnn)) fields$dnn_columns <- NULL
  model <- do.call(new_model_spec, c(list("combined"), fields))
  response <- attr(linear_columns, "response") %||% attr(dnn_columns, "response")
  object <- new_estimator(kind, name, structure(all, class = "cppestimators_feature_columns",
                                                response = response),
                          model_dir, head = head, head_n = head_n, weight_column = weight_column,
                          label_vocabulary = label_vocabulary, optimizer = "SGD", config = config,
                          args = args, model = model)
  optimizers <- list()
  if (!is.null(linear)) {
    optimizers$linear <- optimizer_spec(linear_optimizer, n_columns = length(linear),
                                        default_lr = min(0.005, 1 / sqrt(length(linear))), null_ok = FALSE)
  }
  if (!is.null(dnn)) {
    optimizers$dnn <- optimizer_spec(dnn_optimizer, n_columns = length(dnn), default_lr = 0.001,
                                     null_ok = FALSE)
  }
  object$spec$optimizer <- optimizers[[1]]
  object$spec$optimizers <- optimizers
  object
}

#' @export
model_summary.cppestimators_model_combined <- function(model, x) {
  by_name <- function(names) lapply(names, function(n) list(name = n))
  c(columns_summary(by_name(model$linear_columns), "linear columns"),
    columns_summary(by_name(model$dnn_columns), "dnn columns"),
    layers_summary(model), optimizers_summary(x$spec))
}
