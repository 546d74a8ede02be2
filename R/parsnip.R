# The "cppestimators" engines of parsnip: registration (when parsnip is
# loaded), the fit and predict functions parsnip calls, and their docs.
# The registration tables only name functions of this package, so
# registering again (a second load of either package) changes nothing.

#' parsnip engines "cppestimators"
#'
#' With parsnip installed, loading cppestimators registers the engine
#' `"cppestimators"` for six parsnip model types, so models are specified,
#' fitted, resampled and tuned as with any tidymodels engine:
#'
#' | parsnip model | regression | classification | quantile regression |
#' |---|---|---|---|
#' | `linear_reg()` | [linear_regressor()] | | `linear_regressor(head = head_quantile())` |
#' | `logistic_reg()` | | [linear_classifier()] (two classes) | |
#' | `multinom_reg()` | | `linear_classifier(n_classes = )` | |
#' | `mlp()` | [dnn_regressor()] | [dnn_classifier()] | `dnn_regressor(head = head_quantile())` |
#' | `boost_tree()` | [boosted_trees_regressor()] | [boosted_trees_classifier()] (two or more classes) | `boosted_trees_regressor(head = head_quantile())` |
#' | `poisson_reg()` | `linear_regressor(head = head_poisson_regression())` | | |
#'
#' **Losses beyond squared error** ([heads]): the engine argument
#' `objective` of `linear_reg()`, `mlp()` and `boost_tree()` takes
#' xgboost's names -- `"count:poisson"`, `"reg:tweedie"` (with
#' `tweedie_variance_power`), `"reg:gamma"`, `"reg:pseudohubererror"` (with
#' `huber_slope`), `"reg:absoluteerror"`, `"reg:logistic"`; an unknown one
#' is an error listing these. `poisson_reg()` (parsnip's model, no
#' poissonreg needed) fits a Poisson regression whose `penalty` and
#' `mixture` mean glmnet's `family = "poisson"` ones. The "quantile
#' regression" mode (parsnip 1.2 or later: `set_mode("quantile
#' regression", quantile_levels = )`) fits every level in one model and
#' predicts `.pred_quantile` (hardhat's `quantile_pred`), never crossing.
#' With tune 2.1.0, tuning `trees` of `boost_tree()` in the quantile mode
#' fails inside tune (its predictions of several tree counts are nested
#' where its quantile metric cannot read them); other parameters tune.
#'
#' `fit()` takes a formula or `fit_xy()` predictors and an outcome. Factors
#' reach the engine as factors (no dummy variables): their feature columns
#' are built from the data by [feature_columns_from_data()] -- a vocabulary
#' column per factor, character or logical predictor (used as it is by the
#' linear models, as an indicator column by the trees and as an indicator
#' or, above 50 levels, an embedding column by the DNN), a numeric column
#' per numeric predictor. The classifiers learn the outcome's levels as
#' their `label_vocabulary`. `predict()` returns parsnip's standard columns:
#' `.pred` (numeric), `.pred_class` (a factor with the training levels),
#' `.pred_<level>` (probabilities, which sum to 1), one row per row of
#' `new_data`; `type = "raw"` returns [predict()][predict.tf_estimator]'s own
#' data frame. `extract_fit_engine()` returns the trained estimator itself,
#' so [evaluate()], [predict()], [variable_value()], [read_summaries()],
#' checkpoints and hooks all work on it. It records the outcome's name (the
#' formula's left-hand side when it is a bare name, or the name of
#' `fit_xy()`'s `y` column) as its response: `train(est, data)` and
#' `evaluate(est, data)` on data with that column need no `response` (a
#' transformed outcome such as `log(y) ~ .`, or an unnamed vector `y`, has
#' no name to record: give `response` then).
#'
#' @section Fits that converge:
#' The engines fit as `lm()`, `glm()` and glmnet users expect, on inputs of
#' any scale: numeric predictors are standardized inside the engine (their
#' means and standard deviations are kept with the model and applied to new
#' data; see [feature_columns_from_data()]; the linear models divide by
#' standard deviations of 1/n, as glmnet does), the bias starts at the best
#' constant model (the outcome's mean, the logit of the base rate, the log of
#' each class's share), and the linear models (`linear_reg()`,
#' `logistic_reg()`, `multinom_reg()` with their own losses) are fitted as
#' glmnet fits them: each training step is one proximal Newton step over
#' every training row (the loss's second-order expansion at the current
#' fit, solved by cyclic coordinate descent with the L1 and L2 penalties
#' exactly, on columns centred implicitly so that sparse columns stay
#' sparse), up to `epochs` steps (default 100), and training ends by itself
#' once a step's first sweep moves no weight by more than 1e-7 of the
#' loss. With an `optimizer` or `learning_rate` engine argument, a
#' `batch_size` below the rows, an `objective` or an embedding column they
#' take gradient steps instead (FTRL, learning rate 0.5, up to 1000
#' epochs, stopping once the mean loss of the last 10 steps fell by less
#' than `tolerance`, default 1e-5, from the 10 before). A fit that had not
#' converged when training ended (too few `epochs`) warns with the fix
#' (class `cppestimators_convergence_warning`). `tidy()` reports the linear
#' models' coefficients on the data's scale. Rows with a missing predictor
#' get `NA` predictions; training on them is an error saying how to impute.
#' A fit keeps no files: its variables live in the fitted object
#' (`saveRDS()` keeps them), unless the engine argument `model_dir` asks for
#' checkpoints and summaries. Case weights (`hardhat::importance_weights()`,
#' `hardhat::frequency_weights()`) become the estimator's `weight_column`.
#'
#' @section Main arguments:
#' **linear_reg(), logistic_reg(), multinom_reg()**:
#' * `penalty` (default 0) and `mixture` (default 1) are glmnet's: the
#'   model minimizes the mean loss (`RSS / (2n)` for regression, the mean log
#'   loss for classification) plus `penalty * (mixture * |w|_1 + (1 -
#'   mixture) / 2 * |w|_2^2)` over the standardized predictors, the bias
#'   unpenalized, as glmnet with its defaults (for regression glmnet's L2
#'   term is also divided by the outcome's standard deviation, since it fits
#'   `y / sd(y)`; so is this one). Fitted to convergence, the coefficients
#'   are glmnet's. A sparse matrix (`fit_xy()` of a `Matrix::dgCMatrix`,
#'   which parsnip hands over as a sparse tibble, or a recipe's sparse
#'   columns) of at least 100 columns, all sparse numeric, is one sparse
#'   feature: standardized by scaling only, read from its non-zeros, and
#'   new data is read by its column names. (FTRL's strengths are that
#'   penalty times the rows of a step, twice for squared error, which sums
#'   `(y - f)^2`, and grow with the steps taken, since FTRL sums the gradients
#'   of every step; dials' default `penalty()` range therefore changes the
#'   model from none to almost every weight at 0.) A penalty with another
#'   optimizer than FTRL is an error.
#'
#' **mlp()** (DNN estimators; Adagrad at learning rate 0.05 by default):
#' * `hidden_units` -> `hidden_units` (default 5; a vector such as
#'   `c(16, 8)` gives several hidden layers);
#' * `activation` -> `activation_fn` (default `"relu"`; the names of
#'   [dnn_regressor()], so not dials' `"linear"` or `"softmax"`);
#' * `dropout` -> `dropout` (default 0: none);
#' * `epochs` -> passes over the training data (default 20);
#' * `learn_rate` -> the optimizer's learning rate;
#' * `penalty` -> FTRL's `l2_regularization_strength`: `penalty` times the
#'   squared weights of every variable, added to the summed loss as above.
#'   It needs `set_engine("cppestimators", optimizer = "Ftrl")`, the one
#'   optimizer with a penalty; with another, a penalty above 0 is an error.
#'
#' **boost_tree()** (boosted trees estimators):
#' * `trees` -> `n_trees` (default 100), `tree_depth` -> `max_depth`
#'   (default 6), `learn_rate` -> `learning_rate` (default 0.1),
#'   `loss_reduction` -> `tree_complexity` (subtracted from every split's
#'   gain, as xgboost's `gamma`; default 0);
#' * `min_n` -> the smallest hessian sum of each side of a split, as
#'   xgboost's engine maps `min_n` to `min_child_weight` (default 1, as
#'   xgboost's): each example adds 1 for regression and `p (1 - p)`, at
#'   most 1/4, for classification (with more than two classes, the sum over
#'   the classes);
#' * `stop_iter` -> early stopping: with the engine argument `validation` the
#'   model is evaluated on that share of the rows (else on the training
#'   data) after every tree, training stops once `stop_iter` trees have not
#'   lowered the evaluation's `average_loss`, and the best evaluation's
#'   trees are kept ([hook_in_memory_evaluator()],
#'   [hook_stop_if_no_decrease()] with `restore_best = TRUE`);
#' * `sample_size` -> the share of rows each tree samples, `mtry` -> the
#'   predictors each tree may use (a count, as xgboost's engine takes it).
#'
#' The trees are grown by xgboost's histogram algorithm, depth-wise
#' (`growth = "depthwise"`, see [boosted_trees_estimators]): one training
#' step grows one tree from every training row, missing predictor values
#' are allowed (each split learns where they go) and factors split into
#' sets of levels. The arguments above are on xgboost's scale as they are
#' (`l2_regularization` defaults to 1, xgboost's lambda; `learn_rate` to
#' 0.3, xgboost's eta). The engine argument `growth = "lossguide"` grows
#' LightGBM's leaf-wise trees (engine argument `max_leaves`, default 31);
#' `max_bin` sets the bins of numeric predictors (default 256).
#'
#' With the engine argument `growth = "tensorflow"` the trees are
#' TensorFlow's: the whole training set is one batch, so each training step
#' grows one layer of a tree. Those trees follow xgboost's rules rather than TensorFlow's where they
#' differ: a split must lower the loss (pre-pruning), a node that can not
#' split is a leaf and a layer without splits ends its tree, and regression
#' starts from the outcome's mean (`center_bias`). The penalties and sizes
#' above are xgboost's (sums over the rows of its losses, half the squared
#' error for regression); the estimator holds them on its own scale (means
#' over a layer's rows of TensorFlow's losses), so `l2_regularization = 1`
#' here is `2 / n` (regression) or `1 / n` (classification) in
#' `extract_fit_engine(fit)$spec$model`, for `n` training rows.
#' Classification takes two classes or more: an outcome with more than two
#' levels grows multi-class trees, with one leaf value per class.
#'
#' @section Engine arguments:
#' Given to `set_engine("cppestimators", ...)`:
#' * `optimizer`: a name (`"Ftrl"`, `"Adagrad"`, `"Adam"`, `"RMSProp"`,
#'   `"SGD"`) or an optimizer from [optimizers]; `learn_rate` (or, for the
#'   linear models, the engine argument `learning_rate`) replaces its
#'   learning rate. Not for boost_tree().
#' * boost_tree(): `l2_regularization` (default 1), `l1_regularization`
#'   (default 0), `tree_complexity` (the same as `loss_reduction`),
#'   `min_node_weight` (the same as `min_n`), `learning_rate` (the same as
#'   `learn_rate`), on xgboost's scale (its `lambda`, `alpha`, `gamma` and
#'   `min_child_weight`; see above); `growth` (`"depthwise"`, `"lossguide"`
#'   or `"tensorflow"`), `max_leaves` and `max_bin`; `n_batches_per_layer`
#'   with `growth = "tensorflow"` only.
#' * `batch_size`: rows per batch (default: every training row for the
#'   linear models and boost_tree, 32 for mlp()).
#' * `epochs` (linear models: at most 1000, stopped on convergence; mlp():
#'   20) and `steps`: the length of
#'   training. Given `steps` alone, training runs that many steps over
#'   repeated data; given both, it stops at whichever comes first.
#' * `model_dir`: a directory under which each fit makes its own
#'   subdirectory for checkpoints and TensorBoard summaries, so that the
#'   fits of a tuning run do not meet; `model_dir(extract_fit_engine(fit))`
#'   is the one of a fit. Without it (the default) a fit trains in a
#'   temporary directory removed when it ends.
#' * `tolerance` (linear models): see "Fits that converge" (0: every epoch).
#' * `hooks`: a list of hooks for [train()], or a function of the estimator
#'   returning one (for hooks that need the estimator, such as
#'   [hook_in_memory_evaluator()]).
#' * `validation`: a share of the training rows, in `[0, 1)`, held out and
#'   evaluated during training (after every epoch, or every tree); its
#'   metrics join the training history and the `eval` summaries.
#' * `config`: a [run_config()]; its `model_dir` is replaced by the fit's
#'   own directory. Without a `tf_random_seed` in it, the seed is drawn
#'   from R's random number generator, so `set.seed()` makes fits
#'   reproducible.
#' * `verbose`: `TRUE` shows the progress bars and messages of training,
#'   which fits through parsnip silence by default (fits write nothing to
#'   stdout either way).
#'
#' @name cppestimators_parsnip
#' @aliases details_linear_reg_cppestimators details_logistic_reg_cppestimators
#'   details_multinom_reg_cppestimators details_mlp_cppestimators
#'   details_boost_tree_cppestimators
#' @family estimators
#' @examples
#' if (requireNamespace("parsnip", quietly = TRUE)) {
#'   set.seed(1)
#'   spec <- parsnip::boost_tree(trees = 20, tree_depth = 3) |>
#'     parsnip::set_engine("cppestimators") |>
#'     parsnip::set_mode("regression")
#'   fit <- parsnip::fit(spec, mpg ~ ., data = mtcars)
#'   print(head(predict(fit, mtcars), 3))
#'
#'   cls <- parsnip::multinom_reg(penalty = 0.01) |>
#'     parsnip::set_engine("cppestimators", epochs = 50) |>
#'     parsnip::fit(Species ~ ., data = iris)
#'   print(head(predict(cls, iris, type = "prob"), 3))
#'   # the estimator underneath
#'   print(parsnip::extract_fit_engine(cls))
#' }
NULL

parsnip_models <- c("linear_reg", "logistic_reg", "multinom_reg", "mlp", "boost_tree", "poisson_reg")

# Registers the engines now if parsnip is loaded, and whenever parsnip is
# loaded later (extension packages' way of registering with a Suggests).
register_parsnip_on_load <- function() {
  if (isNamespaceLoaded("parsnip")) register_parsnip_engines()
  setHook(packageEvent("parsnip", "onLoad"), function(...) register_parsnip_engines())
  invisible()
}

register_parsnip_engines <- function() {
  tryCatch({
    for (m in parsnip_models) register_parsnip_model(m)
    # multi_predict() of boost_tree() fits: the classes parsnip gives a fit of these estimators
    for (cls in c("_tf_estimator_regressor_boosted_trees_regressor",
                  "_tf_estimator_classifier_boosted_trees_classifier")) {
      registerS3method("multi_predict", cls, multi_predict_trees, envir = asNamespace("parsnip"))
    }
  }, error = function(e) {
    warning(paste("cppestimators could not register its parsnip engines:", conditionMessage(e)),
            call. = FALSE)
  })
  invisible()
}

# parsnip's argument names -> this engine's (the names fit_cppestimators() takes).
parsnip_arg_map <- list(
  linear_reg = c(penalty = "penalty", mixture = "mixture"),
  logistic_reg = c(penalty = "penalty", mixture = "mixture"),
  multinom_reg = c(penalty = "penalty", mixture = "mixture"),
  poisson_reg = c(penalty = "penalty", mixture = "mixture"),
  mlp = c(hidden_units = "hidden_units", penalty = "penalty", dropout = "dropout", epochs = "epochs",
          activation = "activation_fn", learn_rate = "learning_rate"),
  boost_tree = c(trees = "n_trees", tree_depth = "max_depth", learn_rate = "learn_rate",
                 min_n = "min_hessian_sum", loss_reduction = "loss_reduction", stop_iter = "early_stop",
                 sample_size = "sample_size", mtry = "mtry")
)

parsnip_model_modes <- list(linear_reg = c("regression", "quantile regression"), logistic_reg = "classification",
                            multinom_reg = "classification",
                            mlp = c("regression", "classification", "quantile regression"),
                            boost_tree = c("regression", "classification", "quantile regression"),
                            poisson_reg = "regression")

# The outcome's name, as parsnip's fit() (`formula`, a bare name on its
# left) or fit_xy() (`y_var`, the names of a data frame `y`) knows it,
# evaluated where parsnip calls fit_cppestimators(); NULL otherwise (a
# transformed outcome such as log(y), an unnamed vector `y`).
parsnip_outcome_arg <- quote(
  if (inherits(formula, "formula") && is.name(rlang::f_lhs(formula))) {
    as.character(rlang::f_lhs(formula))
  } else if (exists("y_var") && is.character(y_var) && length(y_var) == 1L) {
    y_var
  }
)

register_parsnip_model <- function(model) {
  eng <- "cppestimators"
  modes <- parsnip_model_modes[[model]]
  # the "quantile regression" mode came with parsnip 1.2
  if (utils::packageVersion("parsnip") < "1.2.0") modes <- setdiff(modes, "quantile regression")
  for (mode in modes) {
    parsnip::set_model_engine(model, mode = mode, eng = eng)
    parsnip::set_dependency(model, eng = eng, pkg = "cppestimators", mode = mode)
  }
  args <- parsnip_arg_map[[model]]
  for (p in names(args)) {
    parsnip::set_model_arg(model = model, eng = eng, parsnip = p, original = args[[p]],
                           func = list(pkg = "dials", fun = p),
                           has_submodel = model == "boost_tree" && p == "trees")
  }
  for (mode in modes) {
    parsnip::set_fit(model = model, eng = eng, mode = mode, value = list(
      interface = "data.frame", protect = c("x", "y", "weights"),
      func = c(pkg = "cppestimators", fun = "fit_cppestimators"),
      defaults = c(list(model = model, seed = quote(sample.int(10^5, 1)), outcome = parsnip_outcome_arg),
                   # (parsnip evaluates `quantile_levels` where it fits: the mode's levels)
                   if (mode == "quantile regression") list(quantile_levels = quote(quantile_levels)))))
    parsnip::set_encoding(model = model, eng = eng, mode = mode, options = list(
      predictor_indicators = "none", compute_intercept = FALSE, remove_intercept = FALSE,
      allow_sparse_x = TRUE))
    types <- switch(mode, regression = c("numeric", "raw"), classification = c("class", "prob", "raw"),
                    "quantile regression" = c("quantile", "raw"))
    for (type in types) {
      parsnip::set_pred(model = model, eng = eng, mode = mode, type = type, value = list(
        pre = NULL, post = NULL, func = c(pkg = "cppestimators", fun = "predict_cppestimators"),
        args = list(object = quote(object$fit), new_data = quote(new_data), type = type)))
    }
  }
}

# multi_predict() of a boost_tree() fit: the predictions of its first
# `trees` trees, for each value of `trees` (tune_grid() fits the most trees
# of a grid once and predicts the others from it). parsnip's layout: one
# row per row of `new_data`, each a data frame with a row per `trees` value.
# `new_data` holds the predictors as the fit read them (a formula's
# variables, not transformed).
multi_predict_trees <- function(object, new_data, type = NULL, trees = NULL, ...) {
  est <- object$fit
  most <- as.integer(est$spec$model$n_trees)
  trees <- trees %||% most
  if (!is.numeric(trees) || !length(trees) || anyNA(trees) || any(trees < 1)) {
    abort(paste0("`trees` must be numbers of trees >= 1, not ", describe(trees), "."))
  }
  trees <- sort(unique(as.integer(trees)))
  type <- type %||% switch(object$spec$mode, classification = "class", "quantile regression" = "quantile", "numeric")
  check_choice(type, "type", c("numeric", "class", "prob", "quantile"))
  new_data <- parsnip_predictors(new_data)
  ptr <- estimator_ptr(est)
  on.exit(cpp_estimator_tree_limit(ptr, -1L), add = TRUE)
  n <- nrow(new_data)
  per <- lapply(trees, function(k) {
    cpp_estimator_tree_limit(ptr, min(k, most))
    p <- predict_cppestimators(est, new_data, type = type)
    p <- switch(type, numeric = data.frame(.pred = p), class = data.frame(.pred_class = p),
                prob = stats::setNames(p, paste0(".pred_", names(p))), quantile = p)
    if (type == "quantile") return(tibble::tibble(trees = rep(k, n), .pred_quantile = p$.pred_quantile))
    cbind(data.frame(trees = rep(k, n)), p)
  })
  # (vctrs binds hardhat's quantile predictions, which rbind() cannot)
  res <- if (type == "quantile") do.call(vctrs::vec_rbind, per) else do.call(rbind, per)
  row <- rep(seq_len(n), length(trees))
  res <- res[order(row, res$trees), , drop = FALSE]
  rownames(res) <- NULL
  tibble::tibble(.pred = unname(lapply(split(res, sort(row)), tibble::as_tibble)))
}
