# The fit and predict functions the "cppestimators" parsnip engines call.

#' Fit and predict functions of the parsnip engines
#'
#' The functions the `"cppestimators"` engines of parsnip call; use them
#' through parsnip (see [cppestimators_parsnip]), not directly.
#'
#' @param x A data frame of predictors (factors stay factors).
#' @param y The outcome: a numeric vector (regression) or a factor
#'   (classification).
#' @param model The parsnip model type: `"linear_reg"`, `"logistic_reg"`,
#'   `"multinom_reg"`, `"mlp"`, `"boost_tree"` or `"poisson_reg"`.
#' @param penalty,mixture,hidden_units,dropout,epochs,activation_fn,learning_rate
#'   parsnip's main arguments under this engine's names (see
#'   [cppestimators_parsnip]).
#' @param n_trees,max_depth,min_hessian_sum,tree_complexity,early_stop
#'   `boost_tree()`'s main arguments under this engine's names.
#' @param optimizer,batch_size,steps,model_dir,hooks,validation,config,verbose
#'   Engine arguments (see [cppestimators_parsnip]).
#' @param seed The random seed of the estimator's [run_config()] when
#'   `config` has none.
#' @param weights Case weights (parsnip's), scaled to a mean of 1; they
#'   become the estimator's `weight_column`.
#' @param tolerance Linear models: training stops once the mean loss of its
#'   last window of steps fell by less than this share (0: run every epoch).
#' @param learn_rate,loss_reduction `boost_tree()`'s main arguments.
#' @param growth,max_leaves,max_bin `boost_tree()`'s engine arguments: the
#'   growth (`"depthwise"` by default, `"lossguide"`, or `"tensorflow"`),
#'   see [boosted_trees_estimators].
#' @param monotone_constraints,interaction_constraints `boost_tree()`'s
#'   engine arguments, named by the predictors the engine receives (after a
#'   recipe's steps): see [boosted_trees_estimators].
#' @param objective The engine argument of `linear_reg()`, `mlp()` and
#'   `boost_tree()` choosing the loss by xgboost's name:
#'   `"reg:squarederror"` (the default), `"count:poisson"`, `"reg:tweedie"`
#'   (with `tweedie_variance_power`, default 1.5), `"reg:gamma"`,
#'   `"reg:pseudohubererror"` (with `huber_slope`, default 1),
#'   `"reg:absoluteerror"` or `"reg:logistic"` (an outcome in `[0, 1]`); see
#'   [heads].
#' @param tweedie_variance_power,huber_slope The settings of the Tweedie and
#'   pseudo-Huber objectives.
#' @param quantile_levels The levels of the "quantile regression" mode
#'   (parsnip's `set_mode("quantile regression", quantile_levels = )`).
#' @param lower_limits,upper_limits The linear models' engine arguments:
#'   limits of the coefficients as glmnet's (see [linear_estimators]), named
#'   by the predictors the engine receives.
#' @param sample_size,mtry `boost_tree()`'s main arguments with the histogram
#'   growths: the share of rows each tree samples, and the predictors each
#'   tree may use (a count).
#' @param l1_regularization,l2_regularization,min_node_weight,n_batches_per_layer
#'   `boost_tree()`'s engine arguments (see [cppestimators_parsnip]).
#' @param outcome The outcome's column name in the user's data, which
#'   parsnip gives: the formula's left-hand side when it is a bare name, or
#'   the name of `fit_xy()`'s `y` column. The estimator records it as its
#'   response, so [train()], [evaluate()] and [predict()] of the estimator
#'   (`extract_fit_engine()`) on a data frame with that column need no
#'   `response`. `NULL` (or a name that is also a predictor's): the outcome
#'   is trained as a column `.outcome`, and `train()` and `evaluate()` on a
#'   data frame need `response`.
#' @param ... Other engine arguments are an error.
#' @return `fit_cppestimators()`: the trained estimator (class
#'   `tf_estimator`).
#' @keywords internal
#' @export
#' @examples
#' # what parsnip's fit() and predict() call with a "cppestimators" engine
#' est <- fit_cppestimators(mtcars[c("drat", "wt")], mtcars$mpg, model = "linear_reg",
#'                          epochs = 2, model_dir = tempfile(), seed = 1)
#' predict_cppestimators(est, mtcars[1:3, c("drat", "wt")])
#' cls <- fit_cppestimators(iris[1:4], iris$Species, model = "multinom_reg", epochs = 2,
#'                          model_dir = tempfile(), seed = 1)
#' predict_cppestimators(cls, iris[c(1, 51, 101), 1:4], type = "class")
fit_cppestimators <- function(x, y, model, penalty = NULL, mixture = NULL, hidden_units = NULL,
                              dropout = NULL, epochs = NULL, activation_fn = NULL,
                              learning_rate = NULL, n_trees = NULL, max_depth = NULL,
                              min_hessian_sum = NULL, tree_complexity = NULL, early_stop = NULL,
                              optimizer = NULL, batch_size = NULL, steps = NULL, model_dir = NULL,
                              hooks = NULL, validation = 0, config = NULL, verbose = FALSE,
                              seed = NULL, weights = NULL, tolerance = 1e-5, learn_rate = NULL,
                              loss_reduction = NULL, l1_regularization = NULL, l2_regularization = NULL,
                              min_node_weight = NULL, n_batches_per_layer = NULL, outcome = NULL,
                              growth = "depthwise", max_leaves = NULL, max_bin = NULL, sample_size = NULL,
                              mtry = NULL, monotone_constraints = NULL, interaction_constraints = NULL,
                              lower_limits = NULL, upper_limits = NULL, objective = NULL,
                              tweedie_variance_power = NULL, huber_slope = NULL, quantile_levels = NULL, ...) {
  extra <- list(...)
  if (length(extra)) {
    valid <- parsnip_engine_args(model)
    abort(sprintf(paste("unknown engine argument%s of the \"cppestimators\" engine for %s(): %s.%s",
                        "The engine arguments are %s."),
                  if (length(extra) > 1L) "s" else "", model, paste0("`", names(extra), "`", collapse = ", "),
                  did_you_mean(names(extra)[1] %||% "", valid), paste0("`", valid, "`", collapse = ", ")),
          class = "cppestimators_engine_argument")
  }
  if (length(outcome) == 0L) outcome <- NULL
  outcome <- check_string(outcome, "outcome", null_ok = TRUE, must = "NULL or the outcome's column name")
  check_choice(model, "model", parsnip_models)
  head <- parsnip_head(model, objective, tweedie_variance_power, huber_slope, quantile_levels)
  if (identical(model, "poisson_reg")) model <- "linear_reg"
  x <- parsnip_predictors(x)
  if (is.data.frame(y) || is.matrix(y)) {
    if (NCOL(y) != 1L) abort("the \"cppestimators\" engines take one outcome, not several.")
    y <- if (is.data.frame(y)) y[[1]] else y[, 1]
  }
  y <- read_column(y, outcome %||% "outcome", "the outcome '%s'")
  classification <- is.factor(y)
  if (!classification && !is.numeric(y)) {
    abort(paste0("the outcome must be numeric (regression) or a factor (classification), not ",
                 describe(y), "."))
  }
  if (anyNA(y)) {
    abort(sprintf(paste("the outcome has %d missing values (NA): drop those rows (na.omit(), or",
                        "recipes::step_naomit(all_outcomes(), skip = TRUE)) or impute them."), sum(is.na(y))),
          class = "cppestimators_missing_values")
  }
  levels <- if (classification) levels(y)
  if (classification && !is.null(head)) {
    abort(sprintf("the objective %s is for a numeric outcome, and this outcome is a factor.", format(head)),
          class = "cppestimators_engine_argument")
  }
  check_parsnip_classes(model, levels)
  validation <- check_number(validation, "validation", min = 0, max = 1, exclusive_max = TRUE,
                             must = "a share of the rows in [0, 1)")
  verbose <- check_flag(verbose, "verbose")
  tolerance <- check_number(tolerance, "tolerance", min = 0, must = "a number >= 0")
  trees <- identical(model, "boost_tree")
  # boost_tree(): xgboost's histogram growth unless the engine asks for another
  hist <- trees && !identical(check_choice(growth, "growth", c("depthwise", "lossguide", "tensorflow")), "tensorflow")
  if (!trees && (!is.null(sample_size) || !is.null(mtry))) {
    abort("`sample_size` and `mtry` are boost_tree()'s arguments.")
  }
  if (trees && !hist && (!is.null(sample_size) || !is.null(mtry))) {
    abort(paste("`sample_size` and `mtry` need growth = \"depthwise\" or \"lossguide\"",
                "(TensorFlow's growth samples neither)."))
  }
  if (!trees && (!is.null(monotone_constraints) || !is.null(interaction_constraints))) {
    abort("`monotone_constraints` and `interaction_constraints` are boost_tree()'s engine arguments.",
          class = "cppestimators_engine_argument")
  }
  limits <- !is.null(lower_limits) || !is.null(upper_limits)
  if (!model %in% c("linear_reg", "logistic_reg", "multinom_reg") && limits) {
    abort("`lower_limits` and `upper_limits` are engine arguments of linear_reg(), logistic_reg() and multinom_reg().",
          class = "cppestimators_engine_argument")
  }
  if (hist && !is.null(n_batches_per_layer)) {
    abort(paste("`n_batches_per_layer` applies to growth = \"tensorflow\" only: the histogram growths grow each",
                "tree from every row."),
          class = "cppestimators_argument_error")
  }
  linear <- model %in% c("linear_reg", "logistic_reg", "multinom_reg")
  n <- nrow(x)
  check_has_rows(n, "fit")
  weights <- parsnip_weights(weights, n)
  val_rows <- if (validation > 0) sort(sample.int(n, max(1L, floor(n * validation)))) else integer()
  if (length(val_rows) >= n) abort("`validation` leaves no rows to train on.")
  train_rows <- if (length(val_rows)) seq_len(n)[-val_rows] else seq_len(n)
  features <- names(x)
  # the outcome's own name (recorded as the estimator's response) unless a
  # predictor has it
  known <- !is.null(outcome) && nzchar(outcome) && !outcome %in% features
  outcome <- if (known) outcome else make.unique(c(features, ".outcome"))[length(features) + 1L]
  weight_name <- if (!is.null(weights)) make.unique(c(features, outcome, ".weight"))[length(features) + 2L]
  data_of <- function(rows) {
    d <- x[rows, , drop = FALSE]
    d[[outcome]] <- if (classification) as.character(y[rows]) else as.numeric(y[rows])
    if (!is.null(weight_name)) d[[weight_name]] <- weights[rows]
    if (inherits(d, "cppestimators_sparse_x")) unclass(d) else d
  }

  sparse_names <- if (inherits(x, "cppestimators_sparse_x")) colnames(.subset2(x, "x"))
  columns <- if (inherits(x, "cppestimators_sparse_x")) {
    sparse_x_columns(x, train_rows, sparse = !trees)
  } else {
    cols <- feature_columns_from_data(x[train_rows, , drop = FALSE], dense = !linear,
                                      embedding_above = if (trees) Inf else 50L)
    if (linear) glmnet_scaled(cols, length(train_rows)) else cols
  }
  temporary <- is.null(model_dir)
  config <- parsnip_config(config, model_dir, seed)
  n_train <- length(train_rows)
  # linear models: every row in each step (the gradient of the whole
  # training loss, as glm's and glmnet's solvers use), as the trees do
  if (hist) {
    est <- parsnip_hist_trees(columns, levels, config, n_features = length(features), n_train = length(train_rows),
                              growth = growth, n_trees = n_trees, max_depth = max_depth,
                              learning_rate = learn_rate %||% learning_rate, l1_regularization = l1_regularization,
                              l2_regularization = l2_regularization,
                              tree_complexity = loss_reduction %||% tree_complexity,
                              min_node_weight = min_hessian_sum %||% min_node_weight, max_leaves = max_leaves,
                              max_bin = max_bin, sample_size = sample_size, mtry = mtry, weight_column = weight_name,
                              head = head)
    est$spec$no_start_checkpoint <- TRUE
    est$spec$model <- with_tree_constraints(est$spec$model, columns, monotone_constraints, interaction_constraints)
    if (!is.null(epochs)) abort("boost_tree() trains until its trees are grown: use `steps`, not `epochs`.")
    steps <- check_whole(steps, "steps", max = 2^53)
    input <- input_fn(data_of(train_rows), features = all_of(features), response = all_of(outcome),
                      batch_size = length(train_rows), shuffle = FALSE, num_epochs = NULL)
    hooks <- if (is.function(hooks)) hooks(est) else hooks
    hooks <- c(normalize_hooks(hooks),
               parsnip_evaluation_hooks(est, if (length(val_rows)) data_of(val_rows) else data_of(train_rows),
                                        features, outcome, validation > 0, early_stop, 1L))
    with_options(list(cppestimators.progress = verbose && progress_enabled()), {
      quiet_unless(verbose, train(est, input_fn = input, steps = steps, hooks = hooks))
    })
    if (temporary) {
      remember_weights(est)
      unlink(est$spec$model_dir, recursive = TRUE)
    }
    if (known) est$state$response <- outcome
    if (inherits(x, "cppestimators_sparse_x")) est$spec$sparse_x <- TRUE
    est$spec$sparse_x_names <- sparse_names
    return(est)
  }
  per_layer <- if (trees) check_whole(n_batches_per_layer, "n_batches_per_layer", max = 1e6)
  batch_size <- check_whole(batch_size, "batch_size", max = .Machine$integer.max) %||%
    if (!is.null(per_layer)) ceiling(n_train / per_layer) else if (trees || linear) n_train else min(32L, n_train)
  batch_size <- min(batch_size, n_train)
  per_layer <- per_layer %||% ceiling(n_train / batch_size)
  if (trees) {
    learning_rate <- learn_rate %||% learning_rate
    tree_complexity <- loss_reduction %||% tree_complexity
    min_hessian_sum <- min_hessian_sum %||% min_node_weight
  } else if (!is.null(learn_rate)) {
    learning_rate <- learn_rate
  }
  rows_per_layer <- per_layer * batch_size
  # TF's hessians of (y - f)^2 are 2, xgboost's of (y - f)^2 / 2 are 1; the
  # other losses are the same on both scales
  squared <- !classification && is.null(head)
  xgb <- if (squared) 2 else 1
  est <- parsnip_estimator(model, columns, levels, config, per_layer = per_layer, args = list(
    penalty = penalty, mixture = mixture, hidden_units = hidden_units, dropout = dropout,
    activation_fn = activation_fn, learning_rate = learning_rate, optimizer = optimizer,
    lower_limits = lower_limits, upper_limits = upper_limits, head = head,
    n_trees = n_trees, max_depth = max_depth, batch_rows = batch_size, full_batch = batch_size >= n_train,
    y_scale = if (squared) parsnip_y_scale(y[train_rows], weights[train_rows]),
    # boost_tree(): xgboost's scale (sums over the rows of its loss, half the
    # squared error for regression) to the estimator's (means over a layer's
    # rows of TF's losses, whose gains have no factor 1/2)
    tree_complexity = 2 * xgb * (tree_complexity %||% 0) / rows_per_layer,
    l1_regularization = xgb * (l1_regularization %||% 0) / rows_per_layer,
    l2_regularization = xgb * (l2_regularization %||% 1) / rows_per_layer),
    weight_column = weight_name)
  if (trees) {
    est$spec$model$min_child_weight <- xgb * (min_hessian_sum %||% 1) / rows_per_layer
    # a node that can not split is a leaf, and a layer without splits ends its tree (xgboost's rules)
    est$spec$model$finish_unsplit_trees <- 1
    est$spec$model <- with_tree_constraints(est$spec$model, columns, monotone_constraints, interaction_constraints)
  }
  est$spec$no_start_checkpoint <- TRUE  # no checkpoint of the initial variables
  if (!trees) est <- start_at_base_rate(est, y[train_rows], levels, weights[train_rows], linear = linear, head = head)
  solver <- can_solve_by_coordinates(linear, head, optimizer, learning_rate, batch_size, n_train, columns)
  if (solver) est <- with_coordinate_descent(est)

  steps <- check_whole(steps, "steps", max = 2^53)
  if (trees) {
    if (!is.null(epochs)) abort("boost_tree() trains until its trees are grown: use `steps`, not `epochs`.")
    num_epochs <- NULL  # the trees stop by themselves
    every <- per_layer * est$spec$model$max_depth
  } else {
    epochs <- check_whole(epochs, "epochs", max = .Machine$integer.max)
    # linear models: at most 1000 passes, stopped once converged (the
    # coordinate-descent solver: at most 100 Newton steps, each a pass)
    default_epochs <- if (solver) 100L else if (linear) 1000L else 20L
    num_epochs <- if (is.null(epochs) && !is.null(steps)) NULL else epochs %||% default_epochs
    every <- ceiling(n_train / batch_size)
  }
  input <- input_fn(data_of(train_rows), features = all_of(features), response = all_of(outcome),
                    batch_size = batch_size, shuffle = !solver, num_epochs = num_epochs)
  hooks <- if (is.function(hooks)) hooks(est) else hooks
  watch <- if (!trees && !solver) convergence_watch(every, tolerance, stop = linear)
  hooks <- c(normalize_hooks(hooks), if (!is.null(watch)) list(watch$hook),
             parsnip_evaluation_hooks(est, if (length(val_rows)) data_of(val_rows) else data_of(train_rows),
                                      features, outcome, validation > 0, early_stop, every))
  with_options(list(cppestimators.progress = verbose && progress_enabled()), {
    quiet_unless(verbose, train(est, input_fn = input, steps = steps, hooks = hooks))
  })
  if (!is.null(watch) && tolerance > 0) warn_unconverged(watch, model, if (linear) max(tolerance, 1e-3) else 0.05)
  # the solver ends training itself once converged: every pass taken means it had not
  if (solver && is.null(steps) && !is.null(num_epochs) && cpp_estimator_global_step(estimator_ptr(est)) >= num_epochs) {
    warn_unconverged_solver(model, num_epochs)
  }
  if (temporary) {
    # the variables live in the estimator object (saveRDS() keeps them): the
    # fit leaves nothing on disk
    remember_weights(est)
    unlink(est$spec$model_dir, recursive = TRUE)
  }
  # train(), evaluate() of a data frame with the outcome's column need no `response`
  if (known) est$state$response <- outcome
  # (fit on one sparse matrix, and its column names: predictions read new
  # rows by them)
  if (inherits(x, "cppestimators_sparse_x")) est$spec$sparse_x <- TRUE
  est$spec$sparse_x_names <- sparse_names
  est
}

# Linear fits standardize numeric predictors as glmnet does, by standard
# deviations of 1/n (feature_columns_from_data() divides by n - 1): the
# penalty, which weighs the standardized slopes, is then glmnet's.
glmnet_scaled <- function(columns, n) {
  if (n < 2L) return(columns)
  shrink <- sqrt((n - 1) / n)
  out <- lapply(columns, function(col) {
    eng <- if (identical(col$kind, "numeric")) attr(col$normalizer_fn, "engine", exact = TRUE)
    if (is.null(eng) || !isTRUE(eng$centres)) return(col)
    col$normalizer_fn <- normalizer_standardize(eng$shift, eng$scale * shrink)
    col
  })
  attributes(out) <- attributes(columns)
  out
}

# The outcome's standard deviation (1/n, weighted), as glmnet scales a
# gaussian outcome; 1 for a constant outcome.
parsnip_y_scale <- function(y, w) {
  w <- w %||% rep(1, length(y))
  m <- sum(w * y) / sum(w)
  s <- sqrt(sum(w * (y - m)^2) / sum(w))
  if (is.finite(s) && s > 0) s else 1
}

# Case weights (parsnip's `weights`): numbers >= 0, scaled to a mean of 1 so
# that the loss, and with it the penalty's scale, is that of unweighted rows.
parsnip_weights <- function(weights, n) {
  if (is.null(weights)) return(NULL)
  w <- as.numeric(weights)
  if (length(w) != n || anyNA(w) || any(w < 0) || !any(w > 0)) {
    abort(sprintf("case weights must be %d numbers >= 0 (not all 0), without NA.", n),
          class = "cppestimators_weight_error")
  }
  w / mean(w)
}

# A hook noting the training loss of each step, stopping training (`stop`)
# once the mean loss of the last `window` steps (at least 10, and at least
# one epoch of `every` steps) moved by less than `tolerance` (relative) from
# the window before. `$state()` says where training ended.
convergence_watch <- function(every, tolerance, stop) {
  window <- max(10L, as.integer(every))
  size <- 2L * window
  losses <- numeric(size)
  seen <- 0L
  converged <- FALSE
  # the relative fall of the mean loss between the last two windows of k steps
  change <- function(k) {
    i <- ((seen - seq_len(2L * k)) %% size) + 1L  # newest first
    before <- mean(losses[i[k + seq_len(k)]])
    (before - mean(losses[i[seq_len(k)]])) / max(abs(before), 1e-12)
  }
  hook <- session_run_hook(
    before_run = function(context) session_run_args(loss = "loss"),
    after_run = function(context, values) {
      seen <<- seen + 1L
      losses[(seen - 1L) %% size + 1L] <<- values$results$loss
      # (|change|: a loss that rose by more than the tolerance, as a full
      # step overshoots early on uncentered sparse columns, has not converged)
      if (stop && tolerance > 0 && seen >= size && seen %% window == 0L && abs(change(window)) < tolerance) {
        converged <<- TRUE
        context$request_stop()
      }
    })
  list(hook = hook, state = function() {
    k <- min(window, seen %/% 2L)
    list(converged = converged, change = if (k >= 1L) change(k) else NA_real_, steps = seen, window = k)
  })
}

# A warning when training ended while its loss was still falling by more
# than `threshold` (relative) between its last two windows of steps.
warn_unconverged <- function(watch, model, threshold) {
  st <- watch$state()
  if (st$converged || !is.finite(st$change) || st$change <= threshold) return(invisible())
  fix <- if (model == "mlp") "raise `epochs` (mlp(epochs = )) or `learn_rate`" else
    "raise `epochs` (set_engine(\"cppestimators\", epochs = ))"
  warning(structure(class = c("cppestimators_convergence_warning", "warning", "condition"), list(
    message = sprintf(paste("%s() stopped before its training converged: the mean loss still fell by %.2g%%",
                            "over its last %d steps. To train longer, %s."),
                      model, 100 * st$change, st$window, fix),
    call = NULL)))
}

warn_unconverged_solver <- function(model, steps) {
  warning(structure(class = c("cppestimators_convergence_warning", "warning", "condition"), list(
    message = sprintf(paste("%s() stopped before its training converged: %d Newton steps did not settle its",
                            "weights. To train longer, raise `epochs` (set_engine(\"cppestimators\", epochs = ))."),
                      model, steps),
    call = NULL)))
}

#' @rdname fit_cppestimators
#' @param object A trained estimator.
#' @param new_data A data frame of predictors.
#' @param type `"numeric"`, `"class"`, `"prob"` or `"raw"`.
#' @return `predict_cppestimators()`: a numeric vector (`"numeric"`), a factor
#'   (`"class"`), a data frame with a column per class (`"prob"`) or
#'   [predict()][predict.tf_estimator]'s data frame (`"raw"`).
#' @export
predict_cppestimators <- function(object, new_data, type = "numeric") {
  check_estimator(object)
  check_choice(type, "type", c("numeric", "class", "prob", "quantile", "raw"))
  # a model fit on one sparse matrix "x" reads rows of its columns, by name
  # (a data frame, sparse or not, or a matrix); sparse rows for a model fit
  # on a data frame's columns are read as those columns
  # (a predictor that happens to be named "x" is a column like any other)
  on_x <- isTRUE(object$spec$sparse_x)
  if (on_x) {
    new_data <- sparse_x(sparse_rows_of(new_data, object$spec$sparse_x_names))
  } else if (inherits(new_data, "sparseMatrix")) {
    new_data <- as.data.frame(as.matrix(new_data))
  }
  new_data <- parsnip_predictors(new_data)
  n <- nrow(new_data)
  vocab <- object$spec$label_vocabulary
  if (n == 0L) {
    return(switch(type, numeric = numeric(), class = factor(character(), levels = vocab),
                  prob = as.data.frame(stats::setNames(rep(list(numeric()), length(vocab)), vocab),
                                       check.names = FALSE),
                  raw = data.frame()))
  }
  batch_size <- min(n, 4096L)
  # (sparse predictors: an input function over the list, which has no batch_size of its own)
  sparse <- inherits(new_data, "cppestimators_sparse_x")
  if (sparse) new_data <- input_fn(unclass(new_data), features = "x", batch_size = batch_size, shuffle = FALSE)
  predicted <- function(...) {
    if (sparse) predict(object, new_data, ...) else predict(object, new_data, batch_size = batch_size, ...)
  }
  if (type == "raw") return(predicted())
  if (type == "quantile") {
    if (!identical(object$spec$head, "quantile")) abort("`type = \"quantile\"` needs a quantile regression fit.")
    m <- as.matrix(predicted(type = "numeric"))
    dimnames(m) <- NULL
    return(tibble::new_tibble(list(.pred_quantile = hardhat::quantile_pred(m, object$spec$head_args$levels))))
  }
  out <- predicted(type = type)
  switch(type,
    numeric = out$.pred,
    class = out$.pred_class,
    prob = stats::setNames(out, sub("^[.]pred_", "", names(out))))
}

# Predictors as a data frame with names (parsnip gives data frames, fit_xy() may give matrices).
parsnip_predictors <- function(x) {
  if (inherits(x, "sparseMatrix")) return(sparse_x(x))
  if (inherits(x, "cppestimators_sparse_x")) return(x)
  # A sparse tibble (what parsnip makes of a sparse matrix, and recipes'
  # sparse steps give) that is wide and all numeric is one sparse matrix
  # feature, read from its non-zeros; a narrower one is read as the data
  # frame it is, column by column (densified), so that coefficients and
  # explanations keep the columns' names.
  if (is_wide_sparse_frame(x)) return(sparse_x(sparsevctrs::coerce_to_sparse_matrix(x)))
  if (is.matrix(x)) {
    if (is.null(colnames(x))) abort("the predictors need column names.")
    x <- as.data.frame(x, stringsAsFactors = FALSE)
  }
  if (!is.data.frame(x)) abort(paste0("the predictors must be a data frame, not ", describe(x), "."))
  if (inherits(x, "tbl_df")) x <- as.data.frame(x)
  # each predictor read by its class (R/column_reading.R)
  classed <- cpp_classed_columns(x)
  if (length(classed)) x[classed] <- read_columns(unclass(x)[classed], names(x)[classed])
  x
}

# Columns from which a data frame of sparse vectors becomes one sparse
# matrix feature.
wide_sparse_columns <- 100L

is_wide_sparse_frame <- function(x) {
  is.data.frame(x) && length(x) >= wide_sparse_columns && requireNamespace("sparsevctrs", quietly = TRUE) &&
    sparsevctrs::has_sparse_elements(x) && all(vapply(x, is.numeric, NA))
}

# The rows of a model fit on one sparse matrix feature as a dgCMatrix whose
# columns are the fit's (`names`, when the fit's matrix had column names):
# from a sparse matrix, a matrix or a data frame (sparse or not).
sparse_rows_of <- function(x, names) {
  check_has <- function(have) {
    missing <- setdiff(names, have)
    if (length(missing)) {
      abort(sprintf("`new_data` lacks %d of the columns the model was fit on: %s.", length(missing),
                    paste(utils::head(missing, 5), collapse = ", ")), class = "cppestimators_missing_columns")
    }
  }
  if (is.data.frame(x)) {
    if (!is.null(names)) {
      check_has(names(x))
      x <- x[names]
    }
    if (requireNamespace("sparsevctrs", quietly = TRUE) && sparsevctrs::has_sparse_elements(x)) {
      return(sparsevctrs::coerce_to_sparse_matrix(x))
    }
    x <- as.matrix(x)
  }
  if (is.matrix(x)) x <- Matrix::Matrix(x, sparse = TRUE)
  m <- as_dgc(x)
  if (!is.null(names) && !is.null(colnames(m)) && !identical(colnames(m), names)) {
    check_has(colnames(m))
    m <- m[, names, drop = FALSE]
  }
  m
}

# Sparse predictors (a sparse matrix, as parsnip passes a dgCMatrix or a
# sparse tibble to an engine that allows them): one matrix-valued feature
# named "x" in a list that the fit subsets by rows as it subsets a data
# frame, and input_fn() reads as a list.
sparse_x <- function(x) {
  structure(list(x = as_dgc(x)), class = c("cppestimators_sparse_x", "list"))
}

#' @export
`[.cppestimators_sparse_x` <- function(x, i, j, ..., drop = FALSE) {
  m <- .subset2(x, "x")
  out <- unclass(x)
  # (every row in order, as a fit without validation rows takes: no copy)
  all_rows <- missing(i) || (is.numeric(i) && length(i) == nrow(m) && identical(as.integer(i), seq_len(nrow(m))))
  out$x <- if (all_rows) m else m[i, , drop = FALSE]
  structure(out, class = class(x))
}

#' @export
dim.cppestimators_sparse_x <- function(x) c(nrow(.subset2(x, "x")), 1L)

# The feature column of sparse predictors: column_numeric("x") as wide as
# the matrix, scaled by each column's standard deviation over the training
# rows (1/n, as glmnet standardizes) but not centered, so zeros stay zeros
# (the means fold into the bias); `sparse`: read as sparse (not by trees).
sparse_x_columns <- function(x, rows, sparse) {
  m <- .subset2(x[rows, ], "x")
  s <- cpp_sparse_column_moments(m@p, m@x, nrow(m))$sd
  s[!is.finite(s) | s <= 0] <- 1
  feature_columns(column_numeric("x", shape = ncol(m), sparse = sparse,
                                 normalizer_fn = normalizer_standardize(0, unname(s))))
}

# `expr` with messages silenced unless `verbose`.
quiet_unless <- function(verbose, expr) {
  if (verbose) return(expr)
  withCallingHandlers(expr, message = function(m) invokeRestart("muffleMessage"))
}

with_options <- function(opts, expr) {
  old <- options(opts)
  on.exit(options(old), add = TRUE)
  expr
}
