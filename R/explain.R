# Per-prediction explanations (predict(type = "contributions",
# "interactions" or "dfc")): the engine's contributions of each of the
# model's feature columns to each logit (Model::explain(), model/model.h:
# TreeSHAP of boosted trees of every growth, a linear model's terms,
# TensorFlow's directional feature contributions), summed back to the input
# features the columns read (a column over several features, such as a
# crossed or a weighted column, shares its contribution equally between
# them).

# The contributions of the rows of `input_fn` (a data frame or an input_fn()
# in memory): a data frame with one column per input feature and
# `.baseline`, on the margin's scale (the logit of the second class of a
# binary classifier, the prediction of a regressor; "dfc" of a binary
# classifier on the probability's scale, as TensorFlow's); for several logits (a
# multi-class classifier, a multi-target regressor), a named list of such
# data frames, one per class or target.
predict_contributions <- function(object, input_fn, checkpoint_path = NULL, kind = "contributions",
                                  reference = NULL, integration_steps = 50L) {
  interactions <- identical(kind, "interactions")
  if (is.null(checkpoint_path)) {
    ptr <- estimator_ptr(object)
    sync_from_model_dir(object, ptr)
  } else {
    ptr <- engine_for_checkpoint(object, checkpoint_path)
  }
  data <- resolve_input(input_fn, object, "infer")
  if (isTRUE(data$stream)) {
    abort(paste0("predict(type = \"", kind, "\") reads data in memory: collect the dataset first ",
                 "(dataset_collect()) or pass a data frame."), class = "cppestimators_argument_error")
  }
  engine_kind <- kind
  if (identical(kind, "dfc")) {
    if (identical(object$spec$head, "multi_class")) {
      abort(paste("predict(type = \"dfc\") needs one logit, as TensorFlow's experimental_predict_with_explanations():",
                  "use type = \"contributions\" for several classes."), class = "cppestimators_unsupported")
    }
    if (is_boosted_trees(object) && !is_hist_trees(object) && !isTRUE(object$spec$model$center_bias)) {
      abort(paste("predict(type = \"dfc\") needs center_bias = TRUE, as TensorFlow's",
                  "experimental_predict_with_explanations() did: the bias is the centered prior."),
            class = "cppestimators_argument_error")
    }
    # a binary classifier's, of the probability (TensorFlow's); a regressor's, of the prediction
    if (identical(object$spec$head, "binary")) engine_kind <- "dfc_logistic"
  }
  m <- withCallingHandlers(
    cpp_estimator_explain(ptr, data$features, engine_threads(), engine_kind),
    error = function(e) {
      if (grepl("have no covers", conditionMessage(e), fixed = TRUE)) {
        abort(conditionMessage(e), class = c("cppestimators_no_covers", "cppestimators_argument_error"))
      }
    })
  if (!is.null(m) && model_trait(estimator_model(object$spec), "coefficients")) {
    m <- centre_terms(object, ptr, m, reference)
  }
  if (is.null(m) && identical(kind, "contributions") &&
      estimator_model(object$spec)$kind %in% c("dnn", "combined")) {
    m <- integrated_gradients(object, ptr, data, reference, integration_steps)
  }
  if (is.null(m)) {
    abort(paste0("predict(type = \"", kind, "\") is computed for ",
                 switch(kind,
                        dfc = "boosted trees of TensorFlow's growth (growth = \"tensorflow\")",
                        interactions = "boosted trees",
                        "boosted trees, linear models, DNNs and wide & deep models"),
                 "; ", object$spec$name, "()", if (is_boosted_trees(object)) {
                   paste0(" of growth = \"", object$spec$model$growth %||% "tensorflow", "\"")
                 }, " has none."), class = "cppestimators_unsupported")
  }
  columns <- attr(m, "columns")
  share <- contribution_shares(object$spec$feature_columns, columns)
  n_cols <- length(columns) + 1L
  per_logit <- if (interactions) n_cols^2 else n_cols
  k <- ncol(m) %/% per_logit
  one <- function(j) {
    block <- m[, (j - 1L) * per_logit + seq_len(per_logit), drop = FALSE]
    if (interactions) return(feature_interactions(block, share))
    out <- as.data.frame(block[, seq_along(columns), drop = FALSE] %*% share)
    out$.baseline <- block[, n_cols]
    out
  }
  if (k == 1L) return(one(1L))
  out <- lapply(seq_len(k), one)
  names(out) <- if (is_regression_head(object$spec)) paste0("output_", output_names(object, k)) else class_levels(object)
  out
}

# The matrix (model columns x input features) that carries each column's
# contribution to the features it reads, in equal shares.
contribution_shares <- function(feature_columns, columns) {
  by_name <- stats::setNames(feature_columns, vapply(feature_columns, function(c) c$name, ""))
  keys <- lapply(columns, function(name) {
    col <- by_name[[name]]
    if (is.null(col)) return(name)
    unique(vapply(column_leaves(list(col)), function(l) as.character(l[["key"]]), ""))
  })
  features <- unique(unlist(keys))
  share <- matrix(0, length(columns), length(features), dimnames = list(columns, features))
  for (i in seq_along(columns)) share[i, keys[[i]]] <- 1 / length(keys[[i]])
  share
}

# One logit's interaction values (`block`: rows x (columns + 1)^2, each
# row's matrix row by row, the baseline last) as an array rows x (features +
# 1) x (features + 1) over the input features: for each row, share' I share
# (I its columns x columns matrix), with the baseline in the last cell, as
# xgboost's predinteraction lays it out.
feature_interactions <- function(block, share) {
  n_cols <- nrow(share) + 1L
  n_feat <- ncol(share)
  rows <- nrow(block)
  keep <- as.vector(outer(seq_len(n_cols - 1L), (seq_len(n_cols - 1L) - 1L) * n_cols, "+"))
  # block's columns run over (a, b) with b fastest; I is symmetric, so the
  # order of the two indices does not matter
  pairs <- block[, keep, drop = FALSE] %*% kronecker(share, share)
  out <- array(0, c(rows, n_feat + 1L, n_feat + 1L),
               dimnames = list(NULL, c(colnames(share), ".baseline"), c(colnames(share), ".baseline")))
  out[, seq_len(n_feat), seq_len(n_feat)] <- pairs
  out[, n_feat + 1L, n_feat + 1L] <- block[, n_cols^2]
  out
}

# A linear model's contributions: the engine gives each column's term of
# the logits and the bias; a column's contribution is its term minus the
# term's mean over the reference rows (weight x (value - mean) for a numeric
# column), the baseline the bias plus those means. Without `reference`,
# only a model whose every numeric column the engine standardizes (its mean
# is 0 on the training data) and that has no categorical column has known
# means (0).
centre_terms <- function(object, ptr, m, reference) {
  columns <- attr(m, "columns")
  n_cols <- length(columns) + 1L
  k <- ncol(m) %/% n_cols
  if (is.null(reference)) {
    cols <- object$spec$feature_columns
    standardized <- vapply(cols, function(col) {
      is_numeric_column(col) && isTRUE(attr(col$normalizer_fn, "engine", exact = TRUE)$centres)
    }, TRUE)
    if (!all(standardized)) {
      abort(paste0("the contributions of a linear model are each feature's term against its mean: give ",
                   "`reference`, the training data (or a sample of it), whose means are the baseline. Only a ",
                   "model whose columns are all numeric and standardized in the engine (normalizer_standardize()) ",
                   "needs none."), class = "cppestimators_argument_error")
    }
    return(m)
  }
  ref <- reference_input(object, reference)
  means <- colMeans(cpp_estimator_explain(ptr, ref$features, engine_threads(), "contributions"))
  for (j in seq_len(k)) {
    at <- (j - 1L) * n_cols + seq_len(n_cols - 1L)
    m[, at] <- sweep(m[, at, drop = FALSE], 2L, means[at])
    m[, j * n_cols] <- m[, j * n_cols] + sum(means[at])
  }
  attr(m, "columns") <- columns
  m
}

# The rows of `reference` (a data frame or an input_fn() in memory) as the
# engine reads them.
reference_input <- function(object, reference) {
  if (is.data.frame(reference)) reference <- data_input(object, reference, "infer", "predict")
  ref <- resolve_input(reference, object, "infer")
  if (isTRUE(ref$stream)) {
    abort("`reference` must be a data frame or an input_fn() of data in memory.",
          class = "cppestimators_argument_error")
  }
  ref
}

# A DNN's contributions: integrated gradients from the mean of the reference
# rows' input layer (Model::integrated_gradients()); a wide & deep model's
# add its linear part's terms against their means over those rows.
integrated_gradients <- function(object, ptr, data, reference, steps) {
  steps <- check_whole(steps, "integration_steps", null_ok = FALSE, min = 1, max = 1e5)
  if (is.null(reference)) {
    abort(paste0("the contributions of a DNN (and of a wide & deep model) are integrated gradients from a ",
                 "baseline, the mean of reference ",
                 "rows: give `reference`, the training data (or a sample of it)."),
          class = "cppestimators_argument_error")
  }
  ref <- reference_input(object, reference)
  cpp_estimator_integrated_gradients(ptr, data$features, ref$features, steps, engine_threads())
}

#' Global importance from per-prediction contributions
#'
#' The mean absolute contribution of each feature over the rows explained by
#' `predict(type = "contributions")`: the usual global summary of SHAP
#' values, on the model's margin scale.
#'
#' @param contributions A data frame returned by `predict(type =
#'   "contributions")`, or the list of them of a multi-class classifier (one
#'   per class).
#' @return A data frame with columns `feature` and `importance`, the most
#'   important feature first; with a `class` column first for a list.
#' @seealso [predict.tf_estimator()]
#' @export
#' @examples
#' cols <- feature_columns(column_numeric("wt"), column_numeric("hp"), column_numeric("disp"))
#' est <- boosted_trees_regressor(cols, growth = "depthwise", n_trees = 10, max_depth = 3)
#' train(est, mtcars, response = "mpg")
#' contributions <- predict(est, mtcars, type = "contributions")
#' contribution_importance(contributions)
contribution_importance <- function(contributions) {
  if (is.list(contributions) && !is.data.frame(contributions)) {
    parts <- lapply(names(contributions), function(k) {
      cbind(class = k, contribution_importance(contributions[[k]]), stringsAsFactors = FALSE)
    })
    return(do.call(rbind, parts))
  }
  if (!is.data.frame(contributions) || !".baseline" %in% names(contributions)) {
    abort(paste0("`contributions` must be what predict(type = \"contributions\") returns (a data frame with ",
                 "`.baseline`, or a list of them), not ", describe(contributions), "."),
          class = "cppestimators_argument_error")
  }
  features <- setdiff(names(contributions), ".baseline")
  importance <- colMeans(abs(as.matrix(contributions[features])))
  out <- data.frame(feature = features, importance = unname(importance), stringsAsFactors = FALSE)
  out <- out[order(-out$importance, method = "radix"), , drop = FALSE]
  rownames(out) <- NULL
  out
}

# shapviz::shapviz() of an estimator (registered when shapviz is loaded):
# the contributions of `X_pred`'s rows as a "shapviz" object (one per class,
# as an "mshapviz", for a multi-class classifier unless `which_class` picks
# one), with `X` the feature values shown beside them.
shapviz_tf_estimator <- function(object, X_pred, X = X_pred, which_class = NULL, interactions = FALSE,
                                 reference = NULL, ...) {
  contrib <- predict(object, X_pred, type = "contributions", reference = reference, ...)
  inter <- if (isTRUE(interactions)) predict(object, X_pred, type = "interactions")
  one <- function(k) {
    part <- if (is.data.frame(contrib)) contrib else contrib[[k]]
    features <- setdiff(names(part), ".baseline")
    s_inter <- NULL
    if (!is.null(inter)) {
      block <- if (is.array(inter)) inter else inter[[k]]
      s_inter <- block[, features, features, drop = FALSE]
    }
    shapviz::shapviz(as.matrix(part[features]), X = as.data.frame(X)[features],
                     baseline = part$.baseline[1], S_inter = s_inter)
  }
  if (is.data.frame(contrib)) return(one(1L))
  if (!is.null(which_class)) return(one(which_class))
  shapviz::mshapviz(stats::setNames(lapply(seq_along(contrib), one), names(contrib)))
}

# treeshap::unify() of a boosted trees estimator of a histogram growth
# (registered when treeshap is loaded): its trees in treeshap's "unified
# model" table (nodes with their splits, children, leaf values and covers),
# for treeshap::treeshap(). Numeric columns split on raw values only.
unify_tf_estimator <- function(model, data, ...) {
  if (!is_hist_trees(model)) {
    abort(paste("treeshap's unified model is made of boosted trees grown by histograms",
                "(growth = \"depthwise\" or \"lossguide\")."),
          class = "cppestimators_unsupported")
  }
  if (identical(model$spec$head, "multi_class")) {
    abort("treeshap's unified model takes one logit: a multi-class classifier has several.",
          class = "cppestimators_unsupported")
  }
  ens <- boosted_trees_ensemble(model)
  split <- !ens$is_leaf
  cols <- model$spec$feature_columns
  plain <- vapply(cols, function(col) is_numeric_column(col) && is.null(col$normalizer_fn), NA)
  names(plain) <- vapply(cols, function(col) col$name, "")
  bad <- unique(ens$feature[split & !ens$feature %in% names(plain)[plain]])
  if (length(bad)) {
    abort(paste0("treeshap's unified model splits raw numeric values: the trees split on ", paste(bad, collapse = ", "),
                 ", which ", if (length(bad) == 1L) "is not a numeric column" else "are not numeric columns",
                 " without a normalizer."), class = "cppestimators_unsupported")
  }
  # each node's row in the table: trees one after another
  first <- match(ens$tree, ens$tree) - 1L
  row_of <- function(id) ifelse(is.na(id), NA_integer_, first + id + 1L)
  table <- data.frame(Tree = ens$tree - 1L, Node = ens$node_id, Feature = ifelse(split, ens$feature, NA_character_),
                      Decision.type = factor(ifelse(split, "<=", NA_character_), levels = c("<=", "<")),
                      Split = ifelse(split, ens$threshold, NA_real_), Yes = row_of(ens$left_id),
                      No = row_of(ens$right_id),
                      Missing = ifelse(split, row_of(ifelse(ens$default_left, ens$left_id, ens$right_id)), NA_integer_),
                      Prediction = ifelse(split, NA_real_, ens$value), Cover = ens$cover, stringsAsFactors = FALSE)
  features <- names(plain)[plain]
  out <- list(model = table, data = as.data.frame(data)[intersect(features, names(data))], feature_names = features)
  class(out) <- "model_unified"
  attr(out, "missing_support") <- TRUE
  attr(out, "model") <- "cppestimators"
  out
}

# Registers shapviz::shapviz() and treeshap::unify() methods of estimators
# now if those packages are loaded, and whenever they are loaded later.
register_explainers_on_load <- function() {
  methods <- list(shapviz = c("shapviz", "shapviz_tf_estimator"), treeshap = c("unify", "unify_tf_estimator"))
  for (pkg in names(methods)) {
    local({
      pkg <- pkg
      generic <- methods[[pkg]][1]
      fun <- get(methods[[pkg]][2], mode = "function")
      register <- function(...) {
        tryCatch(registerS3method(generic, "tf_estimator", fun, envir = asNamespace(pkg)),
                 error = function(e) NULL)
      }
      if (isNamespaceLoaded(pkg)) register()
      setHook(packageEvent(pkg, "onLoad"), register)
    })
  }
  invisible()
}

#' Per-prediction contributions of a parsnip fit or a fitted workflow
#'
#' parsnip passes no engine-specific prediction type, so the contributions
#' of a fit of the "cppestimators" engine (see `predict(type =
#' "contributions")` of [predict.tf_estimator()]) come from its engine fit,
#' on the predictors the engine received: for a fitted workflow, `new_data`
#' goes through the workflow's preprocessing (its formula or its recipe's
#' steps, by `hardhat::forge()`) first, so the features are the recipe's
#' outputs (a factor dummy-expanded by the recipe has one contribution per
#' dummy variable).
#'
#' @param fit A parsnip `model_fit` of the "cppestimators" engine, or a
#'   fitted workflow holding one.
#' @param new_data A data frame of predictors, as `predict()` of the fit takes.
#' @param type `"contributions"` (the default), `"interactions"` or, for
#'   boosted trees of TensorFlow's growth, `"dfc"`.
#' @param ... Passed to [predict.tf_estimator()]: `reference` (for linear
#'   models, DNNs and wide & deep models: rows of the training data, as the
#'   fit's predictors) and `integration_steps`.
#' @return What `predict(type = type)` of the engine fit returns: a data
#'   frame with one column per feature and `.baseline` (a list of them per
#'   class for a multi-class fit).
#' @seealso [contribution_importance()]
#' @export
#' @examples
#' if (requireNamespace("parsnip", quietly = TRUE)) {
#'   spec <- parsnip::set_engine(parsnip::boost_tree(trees = 10, tree_depth = 3, mode = "regression"),
#'                               "cppestimators")
#'   fit <- parsnip::fit(spec, mpg ~ wt + hp + disp, data = mtcars)
#'   head(fit_contributions(fit, mtcars))
#' }
fit_contributions <- function(fit, new_data, type = c("contributions", "interactions", "dfc"), ...) {
  type <- match.arg(type)
  if (inherits(fit, "workflow")) {
    if (!requireNamespace("workflows", quietly = TRUE) || !requireNamespace("hardhat", quietly = TRUE)) {
      abort("the contributions of a workflow need the packages workflows and hardhat.",
            class = "cppestimators_argument_error")
    }
    mold <- workflows::extract_mold(fit)
    new_data <- hardhat::forge(new_data, mold$blueprint)$predictors
    fit <- workflows::extract_fit_parsnip(fit)
  }
  if (!inherits(fit, "model_fit") || !inherits(fit$fit, "tf_estimator")) {
    abort(paste0("`fit` must be a parsnip fit of the \"cppestimators\" engine (or a fitted workflow holding one), ",
                 "not ", describe(fit), "."), class = "cppestimators_argument_error")
  }
  predict(fit$fit, as.data.frame(new_data), type = type, ...)
}
