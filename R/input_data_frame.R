# Data frames in place of input functions, and the check of new data against
# what training saw.

# The input_fn() that train(), evaluate() and predict() build when they are
# given a data frame: the features the estimator's columns read, the
# response (`response`, else the one feature_columns_from_data() or an
# earlier call recorded), and input_fn()'s batching arguments. Any other
# argument is an error naming it.
data_input <- function(object, data, mode, fn, response = NULL, batch_size = 128, shuffle = "auto",
                       num_epochs = 1, ..., epochs) {
  extra <- dots_names(...)
  if (length(extra)) {
    given <- if (!all(nzchar(extra))) "an unnamed argument" else paste0("`", extra, "`", collapse = ", ")
    near <- if (all(nzchar(extra))) did_you_mean(extra[1], data_frame_args) else ""
    abort(sprintf(paste0("%s() with a data frame takes `response`, `batch_size`, `shuffle` and `num_epochs`; ",
                         "%s is not one of them.%s"), fn, given, near),
          class = "cppestimators_unknown_argument")
  }
  if (!missing(epochs)) num_epochs <- epochs_as_num_epochs(epochs, missing(num_epochs), fn)
  keys <- column_plan(object)$keys
  # the positions of the keys and the names' own checks, kept for the next
  # call on data with identical names
  nm <- memo(object, "data_names", list(keys, names(data)), function(key) {
    list(at = match(key[[1]], key[[2]]), odd = anyDuplicated(key[[2]]) > 0L || any(!nzchar(key[[2]])))
  })
  at <- nm$at
  missing_keys <- if (anyNA(at)) setdiff(keys, names(data)) else character()
  if (length(missing_keys)) {
    abort(sprintf("%s(): the data frame has no column%s %s, which the estimator's feature columns read; it has %s.",
                  fn, if (length(missing_keys) > 1L) "s" else "", quote_names(missing_keys),
                  name_list(names(data))))
  }
  response <- if (mode == "infer") NULL else {
    quo <- rlang::enquo(response)
    r <- if (rlang::quo_is_missing(quo) || rlang::quo_is_null(quo)) NULL else
      column_named(rlang::quo_get_expr(quo), names(data)) %||%
        select_columns(quo, names(data), arg = "response", null_ok = TRUE)
    r %||% default_response(object, data, fn)
  }
  if (length(response) > 1L) abort("`response` must name one column.")
  if (!is.null(response)) {
    if (mode == "train") object$state$response <- response
    y <- data[[response]]
    vocab <- object$spec$label_vocabulary
    # a factor coded by the estimator's own vocabulary needs no message
    if ((is.factor(y) && !is.null(vocab) && all(levels(y) %in% vocab)) ||
        (is.logical(y) && identical(vocab, c("FALSE", "TRUE")))) {
      data[[response]] <- as.character(y)
    }
  }
  if (nm$odd) {
    # input_fn()'s own errors and selection
    if (is.null(response)) {
      return(input_fn(data, features = tidyselect::all_of(keys), batch_size = batch_size, shuffle = shuffle,
                      num_epochs = num_epochs))
    }
    return(input_fn(data, features = tidyselect::all_of(keys), response = tidyselect::all_of(response),
                    batch_size = batch_size, shuffle = shuffle, num_epochs = num_epochs))
  }
  build_input(data, keys, response, batch_size, shuffle, num_epochs, cache = frame_cache(object, data, keys), at = at,
              unique_names = TRUE)
}

# The column a selection names without tidyselect: a string, or a bare name,
# that is one of `names`; NULL otherwise (tidyselect resolves it then).
column_named <- function(expr, names) {
  nm <- if (is.symbol(expr)) as.character(expr) else if (is.character(expr) && length(expr) == 1L) expr
  if (!is.null(nm) && !is.na(nm) && nm %in% names) nm
}

default_response <- function(object, data, fn) {
  name <- object$spec$response$name %||% object$state$response
  if (is.null(name)) {
    abort(sprintf("%s() with a data frame needs `response`: the name of the column to learn.", fn))
  }
  if (!name %in% names(data)) {
    abort(sprintf("%s(): the data frame has no column '%s' (the response); give `response`.", fn, name))
  }
  name
}

# Where the dense block of a data frame given as `input_fn` is kept: with
# the estimator, so that repeated calls on the same data (a loop of
# train(steps = k) and evaluate(), a serving-style predict()) build it once
# (feature_block() checks that it was built from the same vectors). Only
# small data are kept there, since the cache holds the data frame's vectors
# alive until the estimator's next call on other data; a larger data frame
# gets a cache of its own call, as an input_fn() made for it would.
frame_cache_bytes <- 2^24

frame_cache <- function(object, data, keys) {
  n <- if (length(keys)) NROW(data[[keys[1L]]]) else 0
  if (n * length(keys) * 8 > frame_cache_bytes) {
    cache <- new.env(parent = emptyenv())
    cache$transient <- TRUE  # this call's only (see feature_block())
    return(cache)
  }
  cache <- call_cache(object)
  if (is.null(cache$frame)) cache$frame <- new.env(parent = emptyenv())
  cache$frame
}

# The features (input keys) an estimator's columns read, in order.
feature_keys <- function(cols) {
  keys <- vapply(column_leaves(cols), function(leaf) as.character(leaf[["key"]]), "")
  unique(keys)
}

# Type of a feature as the check of new data sees it.
feature_type <- function(x) {
  if (is.factor(x) || is.character(x)) "categorical" else if (is.logical(x)) "logical" else
    if (is.numeric(x)) "numeric" else class(x)[1]
}

# feature_type() of each element of a list, in one pass in C++ but for the
# classed vectors.
feature_types <- function(features) {
  types <- cpp_feature_types(features)
  other <- is.na(types)
  if (any(other)) types[other] <- vapply(features[other], feature_type, "", USE.NAMES = FALSE)
  types
}

type_words <- c(categorical = "a factor or character", logical = "logical", numeric = "numeric")

# On the first training: what each feature was (its type; a factor's levels)
# and the response's levels, returned to be kept in the estimator once the
# session ran (saveRDS() and export_savedmodel() keep them). Evaluation and
# prediction check their input against it: a feature of another type, or a categorical value that neither training
# nor the column's vocabulary knew (unless the column hashes such values to
# out-of-vocabulary buckets) is an error naming the feature.
check_seen_data <- function(object, features, labels, mode) {
  st <- object$state
  keys <- names(features)
  if (mode == "train" && !is.null(st$seen)) return(NULL)
  types <- feature_types(features)
  if (mode == "train") {
    # training checks its own data (the engine's messages are more precise);
    # the record is kept once a first training has run (keep_seen_data())
    cat_keys <- keys[types == "categorical"]
    levels <- lapply(features[cat_keys], function(x) if (is.factor(x)) levels(x))
    return(list(types = stats::setNames(types, keys), levels = levels,
                response_levels = attr(labels, "levels")))
  }
  seen <- st$seen
  if (!is.null(seen)) {
    # (the names training saw, in order: no lookup by name)
    was <- if (identical(keys, names(seen$types))) seen$types else seen$types[keys]
    bad <- which(!is.na(was) & was != types)
    if (length(bad)) {
      k <- bad[1]
      abort(sprintf("feature '%s' was %s in training but is %s here: new data must have the types the model was trained on.",
                    keys[k], type_words[[was[k]]] %||% was[k], type_words[types[k]] %||% types[k]))
    }
  }
  check_levels(object, features, seen$levels)
  NULL
}

# After a training session ran: keeps what check_seen_data() read off its data.
keep_seen_data <- function(object, seen) {
  if (is.null(seen) || !is.null(object$state$seen)) return(invisible())
  object$state$response_levels <- seen$response_levels
  seen$response_levels <- NULL
  object$state$seen <- seen
  invisible()
}

# Categorical values unknown to training and to the vocabulary columns that
# read them.
check_levels <- function(object, features, levels) {
  for (leaf in column_plan(object)$vocabulary_leaves) {
    key <- leaf[["key"]]
    known <- levels[[key]]
    if (is.null(known) && !isTRUE(leaf$from_data)) next
    if (leaf$num_oov_buckets > 0 || leaf$default_value != -1) next
    x <- features[[key]]
    if (is.numeric(x) && !is.object(x) && isTRUE(leaf$from_data) && is.numeric(leaf$vocabulary)) {
      # whole numbers read as categories off the training data (column_indicator("am"))
      unseen <- unique(x[!is.na(x) & !x %in% leaf$vocabulary])
    } else {
      if (!is.factor(x) && !is.character(x)) next
      known <- c(known, as.character(leaf$vocabulary))
      values <- if (is.factor(x)) {
        lv <- levels(x)
        if (all(lv %in% known)) next
        lv[tabulate(x, length(lv)) > 0L]
      } else {
        unique(x)
      }
      unseen <- setdiff(values[!is.na(values)], known)
    }
    if (length(unseen)) {
      abort(sprintf(paste0("feature '%s' has %s not seen in training: %s (give the column `num_oov_buckets` ",
                           "to map such values to out-of-vocabulary buckets)."),
                    key, if (length(unseen) > 1L) "values" else "a value",
                    quote_names(utils::head(unseen, 5))))
    }
  }
}
