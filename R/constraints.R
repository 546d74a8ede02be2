# Constraints by feature name, resolved here to the model's feature
# columns (the engine takes them by column name): monotone and interaction
# constraints of boosted trees (src/engine/model/trees/constraints.cpp) and
# the limits of a linear model's weights (LinearModel::limits()).

# The model spec's fields for the constraints (an empty list without any).
tree_constraints_spec <- function(feature_columns, monotone_constraints, interaction_constraints) {
  if (is.null(monotone_constraints) && is.null(interaction_constraints)) return(list())
  m <- constrained_model(feature_columns, "`monotone_constraints` and `interaction_constraints`")
  c(monotone_spec(monotone_constraints, m$cols, m$col_names, m$keys, m$features),
    interaction_spec(interaction_constraints, m$col_names, m$keys, m$features))
}

# The feature columns (`cols`), their names, the input features each reads
# (`keys`) and all those features, in order, for constraints `what`.
constrained_model <- function(feature_columns, what) {
  if (is.null(feature_columns)) {
    abort(paste(what, "need the estimator's `feature_columns`."), class = "cppestimators_argument_error")
  }
  cols <- feature_columns(feature_columns)
  keys <- lapply(cols, function(col) unique(vapply(column_leaves(list(col)), function(l) as.character(l[["key"]]), "")))
  list(cols = cols, col_names = vapply(cols, function(col) col$name, ""), keys = keys, features = unique(unlist(keys)))
}

# The columns a constraint's name designates: the column of that name, else
# every column reading the input feature of that name; with `dummies`, the
# columns of a factor's dummy variables (name_level) too.
constraint_columns <- function(name, arg, col_names, keys, features, dummies = FALSE) {
  at <- which(col_names == name)
  if (length(at)) return(at)
  at <- which(vapply(keys, function(k) name %in% k, NA))
  if (length(at)) return(at)
  expanded <- features[startsWith(features, paste0(name, "_"))]
  if (dummies && length(expanded)) return(which(vapply(keys, function(k) any(k %in% expanded), NA)))
  hint <- if (length(expanded)) {
    sprintf(paste(" It was expanded into dummy columns (%s): a factor's categories have no order, so it can not",
                  "be monotone; leave it a factor (the trees split its categories) or constrain a numeric feature."),
            paste(utils::head(expanded, 5L), collapse = ", "))
  } else {
    did_you_mean(name, features)
  }
  abort(sprintf("`%s` names '%s', which is not a feature of the model.%s The features: %s.", arg, name, hint,
                paste(features, collapse = ", ")),
        class = "cppestimators_argument_error")
}

monotone_spec <- function(monotone, cols, col_names, keys, features) {
  if (is.null(monotone)) return(list())
  if (!is.numeric(monotone) || anyNA(monotone) || !all(monotone %in% c(-1, 0, 1))) {
    abort(paste0("`monotone_constraints` must be a numeric vector of -1 (decreasing), 0 and 1 (increasing), ",
                 "not ", describe(monotone), "."), class = "cppestimators_argument_error")
  }
  if (is.null(names(monotone))) {
    if (length(monotone) != length(features)) {
      abort(sprintf(paste("`monotone_constraints` without names is positional: one direction per feature of the",
                          "model (%d: %s), not %d. Or name them: c(%s = 1)."),
                    length(features), paste(features, collapse = ", "), length(monotone), features[1]),
            class = "cppestimators_argument_error")
    }
    names(monotone) <- features
  }
  if (any(!nzchar(names(monotone))) || anyDuplicated(names(monotone))) {
    abort("`monotone_constraints` must name every feature once.", class = "cppestimators_argument_error")
  }
  out_cols <- character()
  out_dirs <- numeric()
  for (name in names(monotone)) {
    for (i in constraint_columns(name, "monotone_constraints", col_names, keys, features)) {
      col <- cols[[i]]
      if (monotone[[name]] != 0 && length(keys[[i]]) > 1L) {
        abort(sprintf(paste("`monotone_constraints`: '%s' is read by %s with other features (%s): a monotone",
                            "feature must be a column of its own."),
                      name, column_repr(col), paste(setdiff(keys[[i]], name), collapse = ", ")),
              class = "cppestimators_argument_error")
      }
      if (monotone[[name]] != 0 && !column_is_ordered(col)) {
        abort(sprintf(paste("`monotone_constraints`: '%s' is read by %s, a categorical column, whose categories",
                            "have no order; constrain a numeric or bucketized column."), name, column_repr(col)),
              class = "cppestimators_argument_error")
      }
      if (!col_names[i] %in% out_cols) {
        out_cols <- c(out_cols, col_names[i])
        out_dirs <- c(out_dirs, monotone[[name]])
      }
    }
  }
  list(monotone_columns = out_cols, monotone_directions = as.numeric(out_dirs))
}

interaction_spec <- function(sets, col_names, keys, features) {
  if (is.null(sets)) return(list())
  ok <- is.list(sets) && length(sets) > 0L &&
    all(vapply(sets, function(s) (is.character(s) || is.numeric(s)) && length(s) > 0L && !anyNA(s), NA))
  if (!ok) {
    abort(paste0("`interaction_constraints` must be a list of sets of features (character vectors of names, ",
                 "or integer positions among the model's features), such as list(c(\"a\", \"b\"), c(\"c\", \"d\")); ",
                 "not ", describe(sets), "."), class = "cppestimators_argument_error")
  }
  out_cols <- character()
  out_sets <- numeric()
  for (s in seq_along(sets)) {
    set <- sets[[s]]
    if (is.numeric(set)) {
      if (any(set != floor(set)) || any(set < 1) || any(set > length(features))) {
        abort(sprintf("`interaction_constraints`: positions are 1 to %d (the features: %s).", length(features),
                      paste(features, collapse = ", ")), class = "cppestimators_argument_error")
      }
      set <- features[set]
    }
    # a column over several features (crossed, weighted) is in the set when
    # all of them are (a factor's dummy variables count as the factor)
    in_set <- function(k) k %in% set | vapply(k, function(x) any(startsWith(x, paste0(set, "_"))), NA)
    at <- unique(unlist(lapply(set, function(name) {
      cand <- constraint_columns(name, "interaction_constraints", col_names, keys, features, dummies = TRUE)
      if (name %in% col_names) cand else cand[vapply(cand, function(i) all(in_set(keys[[i]])), NA)]
    })))
    out_cols <- c(out_cols, col_names[at])
    out_sets <- c(out_sets, rep(s - 1, length(at)))
  }
  list(interaction_columns = out_cols, interaction_sets = out_sets)
}

# The model spec's fields for a linear model's limits (glmnet's
# lower.limits / upper.limits): each NULL (none), one number for every
# feature, one per feature named by input feature (or feature column), or
# unnamed one per feature in order. A limit is on the weight of the
# feature's values as the model reads them, except that an engine
# standardization (normalizer_standardize()) is undone: the limit is then on
# the coefficient of the raw values, as coef() reports it.
linear_limits_spec <- function(feature_columns, lower_limits, upper_limits) {
  if (is.null(lower_limits) && is.null(upper_limits)) return(list())
  m <- constrained_model(feature_columns, "`lower_limits` and `upper_limits`")
  cols <- m$cols
  col_names <- m$col_names
  keys <- m$keys
  features <- m$features
  per_column <- function(limits, arg, sign) {
    out <- rep(sign * Inf, length(cols))
    if (is.null(limits)) return(out)
    ok <- is.numeric(limits) && !anyNA(limits) && length(limits) > 0L && all(sign * limits >= 0)
    if (!ok) {
      abort(sprintf(paste("`%s` must be numbers %s 0 (glmnet's rule: every weight starts at 0), one for every",
                          "feature or named by feature, not %s."), arg, if (sign > 0) ">=" else "<=",
                    describe(limits)), class = "cppestimators_argument_error")
    }
    if (is.null(names(limits))) {
      if (length(limits) == 1L) limits <- rep(limits, length(features))
      if (length(limits) != length(features)) {
        abort(sprintf("`%s` without names takes one number, or one per feature of the model (%d: %s), not %d.",
                      arg, length(features), paste(features, collapse = ", "), length(limits)),
              class = "cppestimators_argument_error")
      }
      names(limits) <- features
    }
    for (name in names(limits)) {
      for (i in constraint_columns(name, arg, col_names, keys, features, dummies = TRUE)) {
        scale <- attr(cols[[i]]$normalizer_fn, "engine", exact = TRUE)$scale %||% 1
        if (length(unique(scale)) > 1L && is.finite(limits[[name]]) && limits[[name]] != 0) {
          abort(sprintf("`%s`: '%s' is standardized with one scale per value; give it 0 or an infinite limit.",
                        arg, name), class = "cppestimators_argument_error")
        }
        out[i] <- limits[[name]] * scale[1]
      }
    }
    out
  }
  lower <- per_column(lower_limits, "lower_limits", -1)
  upper <- per_column(upper_limits, "upper_limits", 1)
  limited <- is.finite(lower) | is.finite(upper)
  for (i in which(limited)) {
    if (is_embedding_column(cols[[i]])) {
      abort(sprintf("`lower_limits` / `upper_limits`: %s is an embedding, whose weights have no sign to limit.",
                    column_repr(cols[[i]])), class = "cppestimators_argument_error")
    }
  }
  if (!any(limited)) return(list())
  list(limit_columns = col_names[limited], lower_limits = lower[limited], upper_limits = upper[limited])
}

# print()'s lines about a model's constraints (none without any).
constraints_summary <- function(model) {
  out <- character()
  if (length(model$monotone_columns)) {
    on <- model$monotone_directions != 0
    dirs <- ifelse(model$monotone_directions[on] > 0, "increasing", "decreasing")
    if (any(on)) out[["monotone"]] <- paste(sprintf("%s (%s)", model$monotone_columns[on], dirs), collapse = ", ")
  }
  if (length(model$interaction_columns)) {
    sets <- split(model$interaction_columns, model$interaction_sets)
    out[["interactions within"]] <- paste(vapply(sets, function(s) paste0("{", paste(s, collapse = ", "), "}"), ""),
                                          collapse = ", ")
  }
  if (length(model$limit_columns)) {
    out[["weight limits"]] <- paste(sprintf("%s [%g, %g]", model$limit_columns, model$lower_limits,
                                            model$upper_limits), collapse = ", ")
  }
  out
}
