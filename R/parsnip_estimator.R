# The estimator a parsnip fit trains (R/parsnip_fit.R): its kind, columns,
# optimizer, configuration, starting point and evaluation hooks from the
# engine's arguments.

# boost_tree()'s estimator of a histogram growth, its arguments on
# xgboost's scale as xgboost's engine maps them: `min_n` is the least
# hessian sum of a child (min_child_weight), `loss_reduction` the least
# gain of a split (gamma), `sample_size` the share of rows each tree
# samples, `mtry` the columns each tree may use (a count, as a share of
# the predictors); l2_regularization 1 unless given, as xgboost's lambda.
parsnip_hist_trees <- function(columns, levels, config, n_features, n_train, growth, n_trees, max_depth,
                               learning_rate, l1_regularization, l2_regularization, tree_complexity,
                               min_node_weight, max_leaves, max_bin, sample_size, mtry, weight_column,
                               head = NULL) {
  subsample <- 1
  if (!is.null(sample_size)) {
    subsample <- check_number(sample_size, "sample_size", min = 0, max = 1, exclusive_min = TRUE,
                              must = "a share of the rows in (0, 1]")
  }
  colsample <- 1
  if (!is.null(mtry)) {
    mtry <- check_number(mtry, "mtry", min = 0, exclusive_min = TRUE, must = "a number of predictors > 0")
    colsample <- min(1, mtry / max(1L, n_features))
  }
  args <- list(columns, growth = growth, n_trees = n_trees %||% 100L, max_depth = max_depth %||% 6L,
               learning_rate = learning_rate %||% 0.3, l1_regularization = l1_regularization %||% 0,
               l2_regularization = l2_regularization %||% 1, tree_complexity = tree_complexity %||% 0,
               min_node_weight = min_node_weight %||% 1, max_leaves = max_leaves, max_bin = max_bin %||% 256L,
               subsample = subsample, colsample = colsample, config = config, weight_column = weight_column)
  if (is.null(levels)) return(do.call(boosted_trees_regressor, c(args, list(head = head))))
  do.call(boosted_trees_classifier, c(args, list(n_classes = length(levels), label_vocabulary = levels)))
}

# The engine arguments of a model type, for the message of an unknown one.
parsnip_engine_args <- function(model) {
  common <- c("batch_size", "steps", "model_dir", "hooks", "validation", "config", "verbose")
  switch(model,
    boost_tree = c("growth", "max_leaves", "max_bin", "learning_rate", "l1_regularization", "l2_regularization",
                   "tree_complexity", "min_node_weight", "n_batches_per_layer", "monotone_constraints",
                   "interaction_constraints", "objective", "tweedie_variance_power", "huber_slope", common),
    mlp = c("optimizer", "tolerance", "objective", "tweedie_variance_power", "huber_slope", common),
    poisson_reg = c("optimizer", "learning_rate", "epochs", "tolerance", "lower_limits", "upper_limits", common),
    c("optimizer", "learning_rate", "epochs", "tolerance", "lower_limits", "upper_limits", "objective",
      "tweedie_variance_power", "huber_slope", common))
}

check_parsnip_classes <- function(model, levels) {
  if (is.null(levels)) {
    if (model %in% c("logistic_reg", "multinom_reg")) {
      abort(sprintf("%s() needs a factor outcome.", model))
    }
    return(invisible())
  }
  if (model == "linear_reg") abort("linear_reg() needs a numeric outcome.")
  if (length(levels) < 2L) abort("a classification outcome needs at least two levels.")
  if (model == "logistic_reg" && length(levels) != 2L) {
    abort(sprintf("logistic_reg() takes an outcome with two levels, not %d (%s): use multinom_reg().",
                  length(levels), paste(levels, collapse = ", ")))
  }
  invisible()
}

# The estimator with its bias starting where the best constant model is (the
# outcome's mean, the logit of the base rate, the log of each class's share),
# as glm and glmnet start: training then spends its steps on the slopes. The
# linear models' bias is left out of the penalty, as glmnet's intercept.
start_at_base_rate <- function(est, y, levels, weights, linear, head = NULL) {
  w <- weights %||% rep(1, length(y))
  bias <- if (!is.null(head)) {
    head_start(head, y, w)
  } else if (is.null(levels)) {
    sum(w * y) / sum(w)
  } else {
    p <- vapply(seq_along(levels), function(k) sum(w[as.integer(y) == k]), 1) / sum(w)
    p <- pmin(pmax(p, 1e-6), 1 - 1e-6)
    if (length(levels) == 2L) stats::qlogis(p[2]) else log(p) - mean(log(p))
  }
  est$spec$model$bias_init <- as.numeric(bias)
  if (linear) est$spec$model$bias_regularized <- 0
  est
}

# The run configuration of a fit: the user's (or the default), in a new
# directory of its own under `model_dir`, seeded from R's generator unless
# it has a seed.
parsnip_config <- function(config, model_dir, seed) {
  if (is.null(config)) config <- run_config()
  if (!inherits(config, "cppestimators_run_config")) {
    abort(paste0("`config` must be NULL or made by run_config(), not ", describe(config), "."))
  }
  parent <- check_string(model_dir, "model_dir", null_ok = TRUE) %||% tempdir()
  dir <- tempfile("cppestimators-fit-", tmpdir = parent)
  dir.create(dir, recursive = TRUE, showWarnings = FALSE)
  if (is.null(config$tf_random_seed) && !is.null(seed)) config <- config$replace(tf_random_seed = seed)
  config$replace(model_dir = dir)
}

parsnip_estimator <- function(model, columns, levels, config, per_layer, args, weight_column = NULL) {
  k <- length(levels)
  classifier <- !is.null(levels)
  lv <- if (classifier) levels
  switch(model,
    linear_reg = , logistic_reg = , multinom_reg = {
      mixture <- check_number(args$mixture %||% 1, "mixture", min = 0, max = 1)
      penalty <- check_number(args$penalty %||% 0, "penalty", min = 0)
      # glmnet's penalty on the mean loss, as FTRL strengths of the summed
      # loss of a step's rows (squared error is twice glmnet's RSS / 2n).
      # glmnet fits a gaussian model to y / sd(y) with lambda / sd(y), which
      # leaves its L1 term as it is on y's scale and divides its L2 term by
      # sd(y)
      # (a head other than squared error: the summed negative
      # log-likelihood, glmnet's deviance / 2, as a classifier's)
      nll <- classifier || !is.null(args$head)
      rows <- args$batch_rows * if (nll) 1 else 2
      l2_scale <- if (nll) 1 else 1 / args$y_scale
      opt <- parsnip_optimizer(args$optimizer, args$learning_rate, "Ftrl", if (args$full_batch) 0.5 else 0.2,
                               l1 = rows * penalty * mixture, l2 = rows * penalty * (1 - mixture) / 2 * l2_scale,
                               per_step = TRUE)
      if (classifier) {
        linear_classifier(columns, n_classes = k, label_vocabulary = lv, optimizer = opt, config = config,
                          weight_column = weight_column, lower_limits = args$lower_limits,
                          upper_limits = args$upper_limits)
      } else {
        linear_regressor(columns, optimizer = opt, config = config, weight_column = weight_column,
                         lower_limits = args$lower_limits, upper_limits = args$upper_limits, head = args$head)
      }
    },
    mlp = {
      penalty <- check_number(args$penalty %||% 0, "penalty", min = 0)
      opt <- parsnip_optimizer(args$optimizer, args$learning_rate, "Adagrad", 0.05, l2 = penalty)
      dropout <- args$dropout
      if (!is.null(dropout) && identical(as.numeric(dropout), 0)) dropout <- NULL
      units <- args$hidden_units %||% 5L
      act <- args$activation_fn %||% "relu"
      if (classifier) {
        dnn_classifier(units, columns, n_classes = k, label_vocabulary = lv, optimizer = opt,
                       activation_fn = act, dropout = dropout, config = config, weight_column = weight_column)
      } else {
        dnn_regressor(units, columns, optimizer = opt, activation_fn = act, dropout = dropout,
                      config = config, weight_column = weight_column, head = args$head)
      }
    },
    boost_tree = {
      if (!is.null(args$optimizer)) abort("boost_tree() has no `optimizer`: its trees are grown, not optimized.")
      tree_args <- list(columns, n_batches_per_layer = per_layer, n_trees = args$n_trees %||% 100L,
                        max_depth = args$max_depth %||% 6L, learning_rate = args$learning_rate %||% 0.1,
                        # xgboost's rule: a split must lower the loss (pre-pruning, which
                        # needs a positive complexity; 1e-12 leaves every gain as it is)
                        pruning_mode = "pre", tree_complexity = max(args$tree_complexity, 1e-12),
                        # regression: the bias starts at the outcome's mean, or the large
                        # one-signed gradients leave the gains to float rounding
                        center_bias = !classifier,
                        l1_regularization = args$l1_regularization,
                        l2_regularization = args$l2_regularization, config = config,
                        weight_column = weight_column)
      if (classifier) {
        do.call(boosted_trees_classifier, c(tree_args, list(n_classes = k, label_vocabulary = lv)))
      } else {
        do.call(boosted_trees_regressor, c(tree_args, list(head = args$head)))
      }
    })
}

# The optimizer of a fit: `optimizer` (a name or an optimizer_*() object,
# default `default`) with `learning_rate` when given, and FTRL's L1/L2
# strengths when a penalty is asked for.
parsnip_optimizer <- function(optimizer, learning_rate, default, default_lr, l1 = 0, l2 = 0, per_step = FALSE) {
  optimizer <- optimizer %||% default
  known <- names(optimizer_constructors)
  if (is.character(optimizer) && length(optimizer) == 1L && optimizer %in% known) {
    fields <- list()
    name <- optimizer
    learning_rate <- learning_rate %||% default_lr
  } else if (inherits(optimizer, "cppestimators_optimizer")) {
    fields <- unclass(optimizer)[setdiff(names(optimizer), "name")]
    name <- optimizer$name
  } else {
    abort(paste0("`optimizer` must be one of ", paste0('"', known, '"', collapse = ", "),
                 " or an optimizer_*() object, not ", describe(optimizer), "."))
  }
  if (!is.null(learning_rate)) fields$learning_rate <- learning_rate
  if (l1 > 0 || l2 > 0) {
    if (name != "Ftrl") {
      abort(sprintf(paste("`penalty` needs the FTRL optimizer (the one with L1/L2 strengths), not %s:",
                          "use set_engine(\"cppestimators\", optimizer = \"Ftrl\")."), name))
    }
    fields$l1_regularization_strength <- l1
    fields$l2_regularization_strength <- l2
  }
  opt <- do.call(optimizer_constructors[[name]], fields)
  if (per_step && name == "Ftrl") opt$penalty_per_step <- TRUE
  opt
}

# An in-memory evaluation on the held-out rows every `every` steps when
# asked for (`validation`) or needed by early stopping (on the training
# rows without validation), and the early stopping itself.
parsnip_evaluation_hooks <- function(est, data, features, outcome, validation, early_stop, every) {
  if (!validation && is.null(early_stop)) return(list())
  input <- input_fn(data, features = all_of(features), response = all_of(outcome),
                    batch_size = min(nrow(data), 4096L), shuffle = FALSE)
  hooks <- list(hook_in_memory_evaluator(est, input, every_n_iter = every))
  if (!is.null(early_stop)) {
    early_stop <- check_whole(early_stop, "stop_iter", null_ok = FALSE, max = 1e6)
    hooks <- c(hooks, list(hook_stop_if_no_decrease(est, "average_loss",
                                                    max_steps_without_decrease = early_stop * every,
                                                    restore_best = TRUE)))
  }
  hooks
}

# The head of an engine's `objective` (xgboost's names) or of the model
# and mode: poisson_reg() fits a Poisson regression, the "quantile
# regression" mode a quantile head at `quantile_levels`. NULL: squared error
# (or the classifiers' heads).
parsnip_objectives <- c("reg:squarederror", "count:poisson", "reg:tweedie", "reg:gamma", "reg:pseudohubererror",
                        "reg:absoluteerror", "reg:logistic", "reg:quantileerror")

parsnip_head <- function(model, objective, tweedie_variance_power, huber_slope, quantile_levels) {
  if (!is.null(quantile_levels)) {
    if (!is.null(objective) && !identical(objective, "reg:quantileerror")) {
      abort(sprintf("the \"quantile regression\" mode fits quantiles: `objective = \"%s\"` does not apply.", objective),
            class = "cppestimators_engine_argument")
    }
    return(head_quantile(quantile_levels))
  }
  if (identical(model, "poisson_reg")) {
    if (!is.null(objective) && !identical(objective, "count:poisson")) {
      abort(sprintf("poisson_reg() fits a Poisson regression: `objective = \"%s\"` does not apply.", objective),
            class = "cppestimators_engine_argument")
    }
    return(head_poisson_regression())
  }
  if (is.null(objective)) {
    if (!is.null(tweedie_variance_power) || !is.null(huber_slope)) {
      abort("`tweedie_variance_power` and `huber_slope` go with `objective = \"reg:tweedie\"` and \"reg:pseudohubererror\".",
            class = "cppestimators_engine_argument")
    }
    return(NULL)
  }
  if (!model %in% c("linear_reg", "mlp", "boost_tree")) {
    abort(sprintf("`objective` is an engine argument of linear_reg(), mlp() and boost_tree(), not of %s().", model),
          class = "cppestimators_engine_argument")
  }
  if (!is.character(objective) || length(objective) != 1L || !objective %in% parsnip_objectives) {
    shown <- if (is.character(objective) && length(objective) == 1L) sprintf("\"%s\"", objective) else describe(objective)
    abort(sprintf("unknown objective %s; the known objectives are %s.", shown,
                  paste0("\"", parsnip_objectives, "\"", collapse = ", ")),
          class = "cppestimators_engine_argument")
  }
  switch(objective,
    "reg:squarederror" = NULL,
    "count:poisson" = head_poisson_regression(),
    "reg:tweedie" = head_tweedie(tweedie_variance_power %||% 1.5),
    "reg:gamma" = head_gamma_regression(),
    "reg:pseudohubererror" = head_huber(huber_slope %||% 1, pseudo = TRUE),
    "reg:absoluteerror" = head_absolute_error(),
    "reg:logistic" = head_logistic_regression(),
    "reg:quantileerror" = abort("`objective = \"reg:quantileerror\"` needs the \"quantile regression\" mode and its `quantile_levels`.",
                                class = "cppestimators_engine_argument"))
}

# The bias a head's linear model or network starts from: the logit of the
# constant that fits the outcome best (its link of the weighted mean; a
# quantile head's weighted quantiles; absolute error's weighted median).
head_start <- function(head, y, w) {
  wq <- function(p) {
    o <- order(y)
    cw <- cumsum(w[o]) / sum(w)
    y[o][vapply(p, function(q) which(cw >= q - 1e-12)[1L], 1L)]
  }
  m <- sum(w * y) / sum(w)
  switch(head$kind,
    poisson_regression = , tweedie = , gamma_regression = log(max(m, 1e-10)),
    logistic_regression = stats::qlogis(min(max(m, 1e-6), 1 - 1e-6)),
    absolute_error = wq(0.5),
    quantile = wq(head$args$levels),
    m)
}

# A linear fit trained as glmnet trains one: each step a proximal Newton
# step over every row, its quadratic model solved by coordinate descent
# with the L1 and L2 penalties exactly (the engine's coordinate-descent
# solver). The penalties are the FTRL strengths the estimator was given
# (per step of every row), so both solve the same problem; the solver ends
# training once a step no longer lowers the penalized loss.
with_coordinate_descent <- function(est) {
  opt <- est$spec$optimizer
  est$spec$model$solver <- "coordinate_descent"
  est$spec$model$solver_l1 <- as.numeric(opt$l1_regularization_strength %||% 0)
  est$spec$model$solver_l2 <- as.numeric(opt$l2_regularization_strength %||% 0)
  est
}

# Whether a linear fit can take the coordinate-descent solver: every row in
# each step, the engine's optimizer (none asked for), the head's own loss
# (squared error, logistic, softmax) and no embedding columns.
can_solve_by_coordinates <- function(linear, head, optimizer, learning_rate, batch_size, n_train, columns) {
  linear && is.null(head) && is.null(optimizer) && is.null(learning_rate) && batch_size >= n_train &&
    !any(vapply(columns, function(col) identical(col$kind, "embedding"), TRUE))
}
