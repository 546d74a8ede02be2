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
                                  reference = NULL) {
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
  if (is.null(m)) {
    abort(paste0("predict(type = \"", kind, "\") is computed for ",
                 switch(kind,
                        dfc = "boosted trees of TensorFlow's growth (growth = \"tensorflow\")",
                        interactions = "boosted trees",
                        "boosted trees and linear models"),
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
  names(out) <- if (identical(object$spec$head, "regression")) paste0("output_", seq_len(k)) else class_levels(object)
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
  if (is.data.frame(reference)) reference <- data_input(object, reference, "infer", "predict")
  ref <- resolve_input(reference, object, "infer")
  if (isTRUE(ref$stream)) {
    abort("`reference` must be a data frame or an input_fn() of data in memory.",
          class = "cppestimators_argument_error")
  }
  means <- colMeans(cpp_estimator_explain(ptr, ref$features, engine_threads(), "contributions"))
  for (j in seq_len(k)) {
    at <- (j - 1L) * n_cols + seq_len(n_cols - 1L)
    m[, at] <- sweep(m[, at, drop = FALSE], 2L, means[at])
    m[, j * n_cols] <- m[, j * n_cols] + sum(means[at])
  }
  attr(m, "columns") <- columns
  m
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
