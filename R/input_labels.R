# The response of an input: encoded once when input_fn() is called, then
# mapped to the estimator's labels (its label_vocabulary, its class ids)
# and checked when a session reads it.

# Encodes a response once, when input_fn() is called.
encode_response <- function(y, name) {
  if (is.factor(y)) {
    lv <- levels(y)
    message(sprintf("The following factor levels of '%s' have been encoded:\n%s", name,
                    paste(sprintf("- %s => %d", shQuote(lv), seq_along(lv) - 1L), collapse = "\n")))
    out <- as.numeric(as.integer(y) - 1L)
    attr(out, "levels") <- lv
    return(out)
  }
  if (is.logical(y)) {
    storage.mode(y) <- "double"  # (a logical matrix stays one: multi-label responses)
    return(y)
  }
  if (is.list(y) && !is.data.frame(y)) {
    ok <- vapply(y, function(v) is.null(v) || is.character(v) || is.factor(v) || is.numeric(v), TRUE)
    if (!all(ok)) {
      abort(sprintf(paste0("the response '%s' is a list: each element must be the label names of its row ",
                           "(character, factor or numeric), not %s (row %d)."),
                    name, describe(y[[which(!ok)[1L]]]), which(!ok)[1L]))
    }
    return(y)  # a multi-label response: each row's labels
  }
  if (is.character(y)) return(y)
  if (is.numeric(y)) {
    if (is.matrix(y)) storage.mode(y) <- "double" else y <- as.numeric(y)
    return(y)
  }
  abort(sprintf("the response '%s' must be numeric, logical, a factor or character, not %s.",
                name, describe(y)))
}

# The labels a session of `estimator` reads from the encoded response `y`:
# the ids of its label_vocabulary, or `y` itself, with their values checked.
map_labels <- function(y, estimator, name) {
  head <- estimator$spec$head
  lv <- attr(y, "levels")
  if (head %in% regression_heads && !is.null(lv)) {
    abort(sprintf(paste0("the response '%s' is a factor (levels %s) but %s() is a regressor: it would regress on ",
                         "the level codes. Use a classifier, e.g. %s(n_classes = %d, label_vocabulary = levels(data$%s)), ",
                         "or feature_columns_from_data(data, response = \"%s\"), which sets them; or make the response ",
                         "numeric."),
                  name, name_list(lv, max = 10L), estimator$spec$name, classifier_for(estimator$spec$name),
                  max(2L, length(lv)), name, name), class = "cppestimators_factor_response")
  }
  if (identical(head, "multi_label")) return(multi_hot_labels(y, estimator, name))
  if (is.list(y)) {
    abort(sprintf("the response '%s' is a list of labels per row: only a classifier with head_multi_label() reads one.",
                  name), class = "cppestimators_bad_response")
  }
  check_response_na(y, name)
  vocab <- estimator$spec$label_vocabulary
  if (!is.null(vocab)) {
    lv <- attr(y, "levels")
    if (!is.null(lv)) y <- lv[y + 1]
    y <- as.character(y)
    ids <- match(y, vocab) - 1
    if (anyNA(ids)) {
      bad <- unique(y[is.na(ids)])
      abort(sprintf("response '%s' has values not in `label_vocabulary`: %s.", name,
                    paste0("'", utils::head(bad, 5), "'", collapse = ", ")))
    }
    return(as.numeric(ids))
  }
  if (is.character(y)) {
    abort(sprintf("the response '%s' is character: give the classifier a `label_vocabulary`, or use a factor.",
                  name))
  }
  if (head %in% c("binary", "multi_class")) check_class_ids(y, estimator, name)
  y  # a factor's "levels" attribute stays: dropping it would copy the response
}

# The response's first NA, named as the engine names a feature's.
check_response_na <- function(y, name) {
  if (!anyNA(y)) return(invisible())
  first <- which(is.na(y))[1L]
  row <- (first - 1L) %% NROW(y) + 1L
  abort(sprintf("response '%s' contains missing values (NA), first at row %d", name, as.integer(row)))
}

# Class ids beyond the classifier's n_classes: the engine's message, with
# the n_classes that would hold them. One pass over the labels.
check_class_ids <- function(y, estimator, name) {
  if (!is.numeric(y) || !length(y)) return(invisible())
  k <- if (identical(estimator$spec$head, "binary")) 2L else as.integer(estimator$spec$head_n)
  top <- max(y)
  if (top <= k - 1) return(invisible())
  lv <- attr(y, "levels")
  if (!is.null(lv)) {
    need <- length(lv)
    what <- sprintf("the factor '%s' has %d levels", name, need)
  } else {
    if (top != floor(top) || min(y) < 0) return(invisible())  # the engine's messages
    need <- as.integer(top) + 1L
    what <- sprintf("the response '%s' has class ids up to %d", name, as.integer(top))
  }
  range <- if (k == 2L) "[0, 1] for a binary classifier (n_classes = 2)" else
    sprintf("[0, n_classes - 1] = [0, %d]", k - 1L)
  abort(sprintf("Labels must be in %s; got %s: %s, so set `n_classes = %d` in %s().", range, format(top),
                what, need, estimator$spec$name), class = "cppestimators_label_range")
}

# The classifier of a regressor's family.
classifier_for <- function(name) {
  out <- sub("regressor", "classifier", name, fixed = TRUE)
  if (identical(out, name)) "linear_classifier" else out
}

# A multi-label classifier's labels: a multi-hot matrix (rows x labels) from
# a logical or 0/1 matrix, or from a list of each row's label names (ids of
# the label_vocabulary, or label ids 0..n-1 without one). A row without
# labels is a row of zeros.
multi_hot_labels <- function(y, estimator, name) {
  k <- as.integer(estimator$spec$head_n)
  vocab <- estimator$spec$label_vocabulary
  if (is.list(y)) {
    lens <- lengths(y)
    flat <- unlist(lapply(y, function(v) if (is.factor(v)) as.character(v) else v), use.names = FALSE)
    ids <- if (is.null(vocab)) {
      if (!is.numeric(flat) && length(flat)) {
        abort(sprintf(paste0("the response '%s' lists label names: give the classifier their `label_vocabulary` ",
                             "(head_multi_label(%d, label_vocabulary = ...))."), name, k),
              class = "cppestimators_bad_response")
      }
      as.integer(flat)
    } else {
      match(as.character(flat), vocab) - 1L
    }
    bad <- is.na(ids) | ids < 0L | ids >= k
    if (is.null(vocab) && length(flat)) bad <- bad | flat != round(flat)  # label ids are whole numbers
    if (any(bad)) {
      abort(sprintf("the response '%s' has labels not among the classifier's %d labels: %s.", name, k,
                    paste0("'", utils::head(unique(flat[bad]), 5), "'", collapse = ", ")),
            class = "cppestimators_bad_response")
    }
    out <- matrix(0, length(y), k)
    out[cbind(rep.int(seq_along(y), lens), ids + 1L)] <- 1
    return(out)
  }
  if (!is.matrix(y) || ncol(y) != k) {
    abort(sprintf(paste0("the response '%s' of a multi-label classifier of %d labels must be a logical or 0/1 ",
                         "matrix with %d columns, or a list of each row's labels; not %s."),
                  name, k, k, describe(y)), class = "cppestimators_bad_response")
  }
  check_response_na(y, name)
  y
}
