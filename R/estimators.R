#' Linear estimators
#'
#' `linear_regressor()` fits a linear model with squared-error loss;
#' `linear_classifier()` a logistic (two classes) or softmax (more classes)
#' linear model. Weights start at zero; the training loss of a batch is the
#' SUM of its per-example losses, in single precision, as in TensorFlow 1.x.
#'
#' The estimator object keeps its state (weights, optimizer slots, global
#' step) between calls: `train(steps = 4)` twice ends at global step 8, and
#' `evaluate()` / `predict()` use the current weights.
#'
#' @param feature_columns Feature columns, from [feature_columns()] or
#'   [column_numeric()].
#' @param model_dir Directory for the model's checkpoints and summaries;
#'   `NULL` uses `config$model_dir`, else a new temporary directory (with a
#'   message naming it).
#' @param label_dimension Number of regression targets per example.
#' @param n_classes Number of classes (2 for a binary classifier).
#' @param weight_column `NULL` (every example weighs 1), or the examples'
#'   weights, as in TensorFlow: the name of a numeric column of the input, or
#'   a [column_numeric()] (its `normalizer_fn` applied; its key names the
#'   column). The weights are read from the input like a feature -- an
#'   [input_fn()] finds them in its data frame or list whether or not its
#'   `features` list them, and a data frame given to [train()] or
#'   [evaluate()] holds them -- but they are never a feature of the model.
#'   Training multiplies each example's loss by its weight (the batch's loss
#'   is the SUM of `w * loss`; the weights are in no denominator);
#'   [evaluate()] weights every metric as TensorFlow's weighted metrics do
#'   (means are `sum(w * v) / sum(w)`, 0 when the weights sum to 0; counts of
#'   accuracy, precision, recall and AUC add weights). [predict()] reads no
#'   weights. Weights must be finite numbers >= 0: a missing (NA), negative
#'   or infinite weight is an error naming the column and the first such row,
#'   as is a weight column missing from the input.
#' @param label_vocabulary `NULL`, or a character vector of the class labels,
#'   in class-id order, when the response holds strings.
#' @param optimizer `"Ftrl"` (the default, learning rate 0.2), `"Adagrad"`,
#'   `"Adam"`, `"RMSProp"` or `"SGD"`, each with TensorFlow 1.x defaults and
#'   the linear learning rate 0.2; an optimizer with its own settings from
#'   [optimizers] (e.g. `optimizer_sgd(0.01)`); or `NULL` for FTRL with
#'   learning rate `min(0.2, 1/sqrt(number of feature columns))`.
#' @param config `NULL` or a [run_config()].
#' @param partitioner Accepted for compatibility and ignored.
#' @param head `NULL` (regressors: squared error; classifiers: logistic or
#'   softmax by `n_classes`), or a head: for regressors
#'   [head_poisson_regression()], [head_tweedie()],
#'   [head_gamma_regression()], [head_huber()], [head_absolute_error()],
#'   [head_quantile()] or [head_logistic_regression()]; for classifiers
#'   [head_multi_label()] (which sets the number of labels and their
#'   names). See [heads].
#' @param lower_limits,upper_limits `NULL` (no limit), or limits of the
#'   weights as glmnet's `lower.limits` and `upper.limits`: one number for
#'   every feature, or numbers named by input feature (or feature column;
#'   a factor's dummy variables `name_level` by the factor's name), or
#'   unnamed one per input feature in order. Lower limits must be <= 0 and
#'   upper limits >= 0 (weights start at 0); `lower_limits = 0` makes every
#'   weight non-negative. Every optimizer step ends by clamping the weights
#'   into their limits (FTRL's per-coordinate solution within them). A limit
#'   applies to the weight of the values the model reads, except that an
#'   engine standardization ([normalizer_standardize()]) is undone: the
#'   limit is then on the coefficient of the raw values. Every weight of a
#'   categorical column (one per category) gets its feature's limits;
#'   embeddings take none.
#' @return An estimator object (class `tf_estimator`).
#' @family estimators
#' @name linear_estimators
#' @examples
#' fcs <- feature_columns(column_numeric("drat"))
#' est <- linear_regressor(feature_columns = fcs)
#' est
#' # example weights: cars with more cylinders count more (`cyl` is no feature)
#' est <- linear_regressor(feature_columns = fcs, weight_column = "cyl")
#' train(est, mtcars, response = "mpg", num_epochs = 10)
#' evaluate(est, mtcars, response = "mpg")
#' # weights that may not be negative (glmnet's lower.limits = 0)
#' nonneg <- linear_regressor(feature_columns(column_numeric("drat", "wt")), lower_limits = 0)
#' train(nonneg, mtcars, response = "mpg", num_epochs = 10)
#' coef(nonneg)
NULL

#' @rdname linear_estimators
#' @export
linear_regressor <- function(feature_columns, model_dir = NULL, label_dimension = 1L,
                             weight_column = NULL, optimizer = "Ftrl", config = NULL,
                             partitioner = NULL, lower_limits = NULL, upper_limits = NULL, head = NULL) {
  label_dimension <- check_whole(label_dimension, "label_dimension", null_ok = FALSE)
  model <- linear_model_spec(if (!missing(feature_columns)) feature_columns, lower_limits, upper_limits)
  new_estimator("regressor", "linear_regressor", feature_columns, model_dir,
                head = resolve_head(head, "regression", label_dimension, "regressor", "linear_regressor"), head_n = NULL, weight_column = weight_column,
                label_vocabulary = NULL, optimizer = optimizer, config = config,
                args = as.list(environment()), model = model)
}

#' @rdname linear_estimators
#' @export
linear_classifier <- function(feature_columns, model_dir = NULL, n_classes = 2L,
                              weight_column = NULL, label_vocabulary = NULL,
                              optimizer = "Ftrl", config = NULL, partitioner = NULL,
                              lower_limits = NULL, upper_limits = NULL, head = NULL) {
  classes <- classifier_classes(n_classes, label_vocabulary, !missing(n_classes) || !missing(label_vocabulary),
                                if (!missing(feature_columns)) feature_columns, head = head)
  n_classes <- classes$n_classes
  label_vocabulary <- classes$label_vocabulary
  rm(classes)
  model <- linear_model_spec(if (!missing(feature_columns)) feature_columns, lower_limits, upper_limits)
  new_estimator("classifier", "linear_classifier", feature_columns, model_dir,
                head = classifier_head_of(head, n_classes, "linear_classifier"), head_n = NULL,
                weight_column = weight_column, label_vocabulary = label_vocabulary,
                optimizer = optimizer, config = config, args = as.list(environment()), model = model)
}

# A linear model's spec, with the limits of its weights (R/constraints.R).
linear_model_spec <- function(feature_columns, lower_limits, upper_limits) {
  do.call(new_model_spec, c(list("linear"), linear_limits_spec(feature_columns, lower_limits, upper_limits)))
}

# A classifier's n_classes and label_vocabulary, checked. When the call
# gives neither (`given` FALSE), the levels of the factor response that
# feature_columns_from_data() recorded in the columns `...` (if any) give
# both.
classifier_classes <- function(n_classes, label_vocabulary, given, ..., max = 1e6, head = NULL) {
  if (inherits(head, "cppestimators_head") && identical(head$kind, "multi_label")) {
    vocab <- head$label_vocabulary %||% label_vocabulary
    check_label_vocabulary(vocab, head$n)
    return(list(n_classes = head$n, label_vocabulary = vocab))
  }
  if (!given && !is.null(lv <- recorded_levels(...))) {
    n_classes <- length(lv)
    label_vocabulary <- lv
  }
  n_classes <- check_whole(n_classes, "n_classes", min = 2, null_ok = FALSE, max = max)
  check_label_vocabulary(label_vocabulary, n_classes)
  list(n_classes = n_classes, label_vocabulary = label_vocabulary)
}

# The head of a classifier of n_classes classes.
classifier_head <- function(n_classes) if (n_classes == 2) "binary" else "multi_class"

check_label_vocabulary <- function(label_vocabulary, n_classes) {
  if (is.null(label_vocabulary)) return(invisible())
  if (!is.character(label_vocabulary) || anyNA(label_vocabulary) ||
      anyDuplicated(label_vocabulary)) {
    abort("`label_vocabulary` must be a character vector of distinct labels.")
  }
  if (length(label_vocabulary) != n_classes) {
    abort(sprintf("`label_vocabulary` has %d labels but `n_classes` is %d.",
                  length(label_vocabulary), n_classes))
  }
}

# `model`: the engine model's spec (new_model_spec()); `default_lr`: the
# learning rate of an optimizer given by name.
new_estimator <- function(kind, name, feature_columns, model_dir, head, head_n, weight_column,
                          label_vocabulary, optimizer, config, args, model = new_model_spec("linear"),
                          default_lr = 0.2) {
  if (missing(feature_columns) || is.null(feature_columns)) {
    abort("`feature_columns` is required: build it with feature_columns().")
  }
  cols <- feature_columns(feature_columns)
  response <- attr(feature_columns, "response")
  head_args <- NULL
  if (is.list(head)) {  # resolve_head()'s
    head_args <- head$args
    head_n <- head$n
    head <- head$kind
  }
  if (head %in% regression_heads && !is.null(response$levels)) {
    abort(sprintf(paste0("the response '%s' of these feature columns is categorical (it has levels): a %s() ",
                         "regresses on numbers; use a classifier."), response$name, name))
  }
  weight_column <- weight_column_spec(weight_column)
  check_string(model_dir, "model_dir", null_ok = TRUE, must = "NULL or a non-empty string (not NA)")
  if (is.null(config)) config <- run_config()
  if (!inherits(config, "cppestimators_run_config")) {
    abort(paste0("`config` must be NULL or made by run_config(), not ", describe(config), "."))
  }
  model_dir <- resolve_model_dir(model_dir, config$model_dir)
  config <- config$replace(model_dir = model_dir)
  spec <- list(
    kind = kind, name = name, head = head, head_args = head_args, head_n = as.integer(head_n),
    feature_columns = cols, label_vocabulary = label_vocabulary, weight_column = weight_column,
    optimizer = optimizer_spec(optimizer, n_columns = length(cols), default_lr = default_lr,
                               null_ok = inherits(model, "cppestimators_model_linear")),
    model = model, model_dir = model_dir, config = config, response = response
  )
  structure(
    list(spec = spec, args = args, state = new.env(parent = emptyenv())),
    class = c(paste0("tf_estimator_", kind, "_", name), paste0("tf_estimator_", kind),
              if (has_data_vocabulary(cols)) "tf_estimator_data_columns", "tf_estimator")
  )
}

# An estimator with columns whose vocabulary is read from the training data
# (column_indicator("am")): its first train() keeps the spec with the
# completed columns in its state (complete_data_columns()), and every
# function reading `object$spec` sees that one from then on.
#' @export
`$.tf_estimator_data_columns` <- function(x, name) {
  if (identical(name, "spec")) {
    done <- .subset2(x, "state")$data_spec
    if (!is.null(done)) return(done)
  }
  .subset2(x, name)
}

# The spec of the engine model: its kind (the model the engine builds) and
# its settings beyond the feature columns, classed by kind
# (cppestimators_model_linear, _dnn, _combined, _boosted_trees) for R's
# methods.
new_model_spec <- function(kind, ...) {
  structure(list(kind = kind, ...), class = model_spec_classes(kind))
}

model_spec_classes <- function(kind) c(paste0("cppestimators_model_", kind), "cppestimators_model")

# What differs between model kinds outside their constructors is asked of
# the model spec, each answer in its kind's file: model_trait() reads the
# traits its model_traits() method gives (the defaults below otherwise),
# and model_summary() gives print()'s lines about the model.
# - coefficients: its variables are a linear model's weights (coef(),
#   tidy()'s original scale);
# - ends_by_itself: a training of it ends once the model is complete
#   (boosted trees, once their trees are grown);
# - has_optimizer: gradient steps of an optimizer train it (boosted trees
#   have a fixed shrinkage instead);
# - optimizer_in_record: model_dir's record names its optimizers (boosted
#   trees have none; a custom estimator's slots are checked against the
#   checkpoint's);
# - feature_scale_matters: gradient steps train it, which handle features
#   of very different scales badly (the first training warns);
# - reads_sparse: its numeric columns may read a sparse matrix's non-zeros
#   only (linear models and DNNs; trees bin every value).
model_traits <- function(model) UseMethod("model_traits")

#' @export
model_traits.default <- function(model) list()

model_trait_defaults <- list(coefficients = FALSE, ends_by_itself = FALSE, has_optimizer = TRUE,
                             optimizer_in_record = TRUE,
                             feature_scale_matters = TRUE, reads_sparse = FALSE)

model_trait <- function(model, trait) {
  value <- model_traits(model)[[trait]]
  if (is.null(value)) model_trait_defaults[[trait]] else value
}

#' @export
model_traits.cppestimators_model_linear <- function(model) list(coefficients = TRUE, reads_sparse = TRUE)

#' @export
model_traits.cppestimators_model_dnn <- function(model) list(reads_sparse = TRUE)

#' @export
model_traits.cppestimators_model_combined <- function(model) list(reads_sparse = TRUE)

# What a model does when a train() call of the estimator `object` ended
# (`run`: the call's outcome, R/train.R), such as warning that the input
# ran out before the model was complete.
model_training_ended <- function(model, object, ptr, run) UseMethod("model_training_ended")

#' @export
model_training_ended.default <- function(model, object, ptr, run) invisible()

# print()'s lines about the model of the estimator `x`: its columns, layers
# or trees, and how it is trained.
model_summary <- function(model, x) UseMethod("model_summary")

#' @export
model_summary.default <- function(model, x) {
  c(columns_summary(x$spec$feature_columns), layers_summary(model), constraints_summary(model),
    optimizers_summary(x$spec))
}

columns_summary <- function(cols, label = "feature columns") {
  names <- sort(vapply(cols, function(c) c$name, ""), method = "radix")
  stats::setNames(if (length(names)) paste(names, collapse = ", ") else "none", label)
}

layers_summary <- function(model) {
  if (is.null(model$hidden_units)) return(character())
  c("hidden units" = paste0(paste(model$hidden_units, collapse = ", "), " (", model$activation_fn %||% "relu",
                            if (!is.null(model$dropout)) sprintf(", dropout %g", model$dropout), ")"))
}

optimizers_summary <- function(spec) {
  opt <- function(o) sprintf("%s (learning rate %s)", o$name, format_learning_rate(o$learning_rate))
  opts <- spec$optimizers
  if (is.null(opts)) return(c(optimizer = opt(spec$optimizer)))
  stats::setNames(vapply(opts, opt, ""), paste(names(opts), "optimizer"))
}

# The model spec of an estimator's spec. Specs saved before DNNs existed
# have none (they are linear); one saved before model specs had classes
# gets its classes.
estimator_model <- function(spec) {
  model <- spec$model %||% list(kind = "linear")
  if (!inherits(model, "cppestimators_model")) class(model) <- model_spec_classes(model$kind)
  model
}

resolve_model_dir <- function(model_dir, config_dir) {
  if (!is.null(model_dir) && !is.null(config_dir) &&
      normalizePath(model_dir, mustWork = FALSE) != normalizePath(config_dir, mustWork = FALSE)) {
    abort(sprintf(paste0("model_dir are set both in constructor and RunConfig, but with different values. ",
                         "In constructor: '%s', in RunConfig: '%s'."), model_dir, config_dir))
  }
  dir <- model_dir %||% config_dir
  if (is.null(dir)) {
    dir <- tempfile("cppestimators-model-")
    dir.create(dir, recursive = TRUE)
    message("Using temporary folder as model directory: ", dir)
  }
  normalizePath(path.expand(dir), mustWork = FALSE)
}

# The estimator's optimizer as a complete spec: a name shortcut is its
# optimizer_*() constructor at the estimator's default learning rate.
optimizer_spec <- function(optimizer, n_columns, default_lr = 0.2, null_ok = TRUE) {
  optimizer_names <- canned_optimizer_names
  if (is.null(optimizer) && !null_ok) {
    abort(paste0("The given object is not an Optimizer instance. Given: NULL (`optimizer` must be one of ",
                 paste0('"', optimizer_names, '"', collapse = ", "), " or an optimizer_*() object)."))
  }
  if (is.null(optimizer)) {
    return(unclass(optimizer_ftrl(learning_rate = min(default_lr, 1 / sqrt(n_columns)))))
  }
  if (is.character(optimizer) && length(optimizer) == 1L) {
    if (!optimizer %in% optimizer_names) {
      abort(sprintf("Unsupported optimizer name: %s. Supported names are: %s", optimizer,
                    paste(optimizer_names, collapse = ", ")))
    }
    return(unclass(optimizer_constructors[[optimizer]](learning_rate = default_lr)))
  }
  if (inherits(optimizer, "cppestimators_optimizer")) return(unclass(optimizer))
  abort(paste0("`optimizer` must be NULL, one of ", paste0('"', optimizer_names, '"', collapse = ", "),
               " or an optimizer_*() object, not ", describe(optimizer), "."))
}

# The engine object behind an estimator, built on first use.
estimator_ptr <- function(object) {
  st <- object$state
  if (is.null(st$ptr) || is_null_xptr(st$ptr)) {
    if (inherits(object, "tf_custom_estimator") && !length(object$spec$model$graphs)) {
      st$ptr <- custom_checkpoint_engine(object)
      remember_weights(object)
      return(st$ptr)
    }
    st$ptr <- with_error_class(new_engine(object))
    restore_weights(object, st$ptr)
    remember_weights(object)
  }
  st$ptr
}

# The engine for evaluate()/predict(checkpoint_path =): a separate engine
# restored from that file, leaving the estimator's own state alone.
engine_for_checkpoint <- function(object, checkpoint_path) {
  check_string(checkpoint_path, "checkpoint_path", empty_ok = TRUE,
               message = "`checkpoint_path` must be the path of a checkpoint file.")
  path <- checkpoint_path
  if (!file.exists(path) && file.exists(paste0(path, ".ckpt"))) path <- paste0(path, ".ckpt")
  if (!file.exists(path) || dir.exists(path)) {
    abort(sprintf("`checkpoint_path`: no checkpoint file at '%s' (give a file, such as latest_checkpoint(estimator)).",
                  checkpoint_path))
  }
  ptr <- new_engine(object)
  with_error_class(cpp_estimator_restore(ptr, normalizePath(path)))
  ptr
}

is_null_xptr <- function(p) cpp_xptr_is_null(p)

# The engine of an estimator if it has been built (and not lost by
# saveRDS()), else NULL; never builds one.
live_ptr <- function(object) {
  ptr <- object$state$ptr
  if (is.null(ptr) || is_null_xptr(ptr)) NULL else ptr
}

#' @export
print.tf_estimator <- function(x, ...) {
  cat(sprintf("<%s>\n", x$spec$name))
  info <- estimator_summary(x)
  cat(sprintf("  %-*s %s\n", max(nchar(names(info))) + 1L, paste0(names(info), ":"), info), sep = "")
  invisible(x)
}

#' @export
str.tf_estimator <- function(object, ...) {
  info <- estimator_summary(object)
  cat(sprintf("%s estimator (class %s)\n", object$spec$name, paste(class(object), collapse = ", ")))
  cat(sprintf(" $ %-*s: %s\n", max(nchar(names(info))), gsub(" ", "_", names(info)), info), sep = "")
  invisible(NULL)
}

# What defines an estimator and where it stands, as named strings. Reads
# only the spec and the engine already in memory: printing builds no engine
# and reads or writes nothing in model_dir (so the step and the trees shown
# are this object's, not those of a checkpoint another process wrote).
estimator_summary <- function(x) {
  spec <- x$spec
  ptr <- live_ptr(x)
  step <- if (is.null(ptr)) {
    if (is.null(x$state$weights)) 0 else "saved"
  } else {
    cpp_estimator_global_step(ptr)
  }
  model <- estimator_model(spec)
  head <- head_summary(spec)
  if (!is.null(spec$label_vocabulary)) {
    head <- paste0(head, ", labels ", paste0("'", utils::head(spec$label_vocabulary, 5), "'", collapse = ", "),
                   if (length(spec$label_vocabulary) > 5) ", ..." else "")
  }
  info <- c(head = head, model_summary(model, x))
  if (!is.null(spec$weight_column)) info["weight column"] <- spec$weight_column$name
  info["model_dir"] <- spec$model_dir %||% "none"
  info["global step"] <- format(step)
  info
}
