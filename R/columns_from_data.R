#' Feature columns read off a data frame
#'
#' Builds the [feature_columns()] of a data frame's variables, so that a
#' model can be defined without writing a column for each of them:
#' * numeric (double, integer or `bit64::integer64`) variables become [column_numeric()],
#'   standardized with the data's mean and standard deviation by
#'   [normalizer_standardize()] unless `standardize = FALSE` (a constant
#'   variable keeps sd 1); linear models and DNNs trained by gradient steps
#'   reach their optimum in far fewer steps on standardized inputs, and the
#'   statistics travel with the model, so new data are standardized the same
#'   way;
#' * factors, character vectors and logicals become
#'   [column_categorical_with_vocabulary_list()], with the factor's levels,
#'   the sorted unique values (of a character vector) or 0 and 1 (of a
#'   logical, which the model reads as 0 and 1) as the vocabulary;
#' * list columns (one character or whole-number vector per row: tokens,
#'   tags, ids) become the same vocabulary columns of every value the rows
#'   hold (sorted), read as multi-valued features;
#' * with `dense = TRUE` (what [dnn_classifier()], the DNN part of the wide
#'   and deep models and the boosted trees need), each categorical column is
#'   wrapped in [column_indicator()], or in [column_embedding()] when it has
#'   more than `embedding_above` levels.
#'
#' With a `response`, the response is left out of the features and
#' remembered: a classifier built on these columns without `n_classes` and
#' `label_vocabulary` takes them from the response's levels (a factor's
#' levels, the sorted unique values of a character vector, `"FALSE"`,
#' `"TRUE"` for a logical), and `train()`, `evaluate()` and `predict()` on a
#' data frame take it as their default `response`.
#'
#' A value that is not in a vocabulary read off the data is an error when
#' new data are evaluated or predicted (naming the column and the value),
#' unless `num_oov_buckets` gives the column buckets for such values.
#'
#' @param data A data frame.
#' @param features The variables to use, selected as in tidyselect (see
#'   [input_fn()]); default: every column except the response.
#' @param response `NULL`, or the response column (one column).
#' @param dense Wrap categorical columns in indicator or embedding columns.
#' @param embedding_above With `dense = TRUE`, categorical columns with more
#'   levels than this become embedding columns (`Inf`: never, as boosted
#'   trees need).
#' @param embedding_dimension The embedding columns' dimension; `NULL` takes
#'   the fourth root of the number of levels, rounded up (a common rule of
#'   thumb).
#' @param num_oov_buckets Buckets for values outside a vocabulary, in every
#'   categorical column (0: such values are an error in new data).
#' @param standardize Standardize the numeric columns with the data's means
#'   and standard deviations (missing values left out of both).
#' @return A `feature_columns()` list, with the response (its name and
#'   levels) kept as its `"response"` attribute.
#' @family feature columns
#' @export
#' @examples
#' cols <- feature_columns_from_data(iris, response = Species)
#' cols
#' est <- linear_classifier(feature_columns = cols)
#' est
#' df <- data.frame(x = c(1.5, 2, 3), colour = c("red", "blue", "red"))
#' feature_columns_from_data(df, dense = TRUE)
feature_columns_from_data <- function(data, features = NULL, response = NULL, dense = FALSE,
                                      embedding_above = 50L, embedding_dimension = NULL,
                                      num_oov_buckets = 0L, standardize = TRUE) {
  if (!is.data.frame(data)) abort(paste0("`data` must be a data frame, not ", describe(data), "."))
  nms <- names(data)
  response <- select_columns(rlang::enquo(response), nms, arg = "response", null_ok = TRUE)
  if (length(response) > 1L) abort("`response` must name one column.")
  fq <- rlang::enquo(features)
  features <- if (rlang::quo_is_null(fq)) setdiff(nms, response) else
    select_columns(fq, nms, arg = "features")
  if (length(features) == 0L) abort("`data` has no columns besides the response to use as features.")
  check_flag(dense, "dense")
  embedding_above <- check_number(embedding_above, "embedding_above", min = 1, finite = FALSE,
                                  must = "a number >= 1 (or Inf)")
  embedding_dimension <- check_whole(embedding_dimension, "embedding_dimension")
  num_oov_buckets <- check_whole(num_oov_buckets, "num_oov_buckets", min = 0, null_ok = FALSE,
                                 max = 1e6)
  check_flag(standardize, "standardize")
  cols <- lapply(features, function(nm) {
    x <- read_column(data[[nm]], nm)
    if (is.numeric(x) && !is.factor(x)) {
      norm <- if (standardize) data_standardizer(x)
      return(column_numeric(nm, shape = max(1L, NCOL(x)), normalizer_fn = norm))
    }
    vocab <- if (is.list(x)) list_vocabulary(x, nm) else feature_vocabulary(x, nm)
    col <- column_categorical_with_vocabulary_list(nm, vocabulary_list = vocab,
                                                   num_oov_buckets = num_oov_buckets)
    col$from_data <- TRUE
    if (!dense) return(col)
    if (length(vocab) > embedding_above) {
      dim <- embedding_dimension %||% ceiling(length(vocab)^0.25)
      return(column_embedding(col, dimension = dim))
    }
    column_indicator(col)
  })
  out <- feature_columns(cols)
  if (!is.null(response)) {
    y <- read_column(data[[response]], response)
    levels <- if (is.numeric(y) && !is.factor(y)) NULL else data_levels(y, response, "response")
    attr(out, "response") <- list(name = response, levels = levels)
  }
  out
}

# normalizer_standardize() with a numeric variable's (or matrix's columns')
# means and standard deviations, NAs left out; sd 1 where it is 0 or unknown.
data_standardizer <- function(x) {
  if (is.matrix(x)) {
    m <- colMeans(x, na.rm = TRUE)
    s <- apply(x, 2L, stats::sd, na.rm = TRUE)
  } else {
    m <- mean(x, na.rm = TRUE)
    s <- stats::sd(x, na.rm = TRUE)
  }
  m[!is.finite(m)] <- 0
  s[!is.finite(s) | s <= 0] <- 1
  normalizer_standardize(unname(m), unname(s))
}

# The vocabulary of a list column: every value its rows hold, sorted (text,
# or whole numbers as integers).
list_vocabulary <- function(x, name) {
  v <- unlist(lapply(x, function(e) if (is.factor(e)) as.character(e) else e), use.names = FALSE)
  v <- unique(v[!is.na(v)])
  if (is.character(v) || length(v) == 0L) {
    if (length(v) == 0L) abort(sprintf("the feature '%s' is a list column without values.", name))
    return(sort(v, method = "radix"))
  }
  if (!is.numeric(v) || any(!is.finite(v) | v != floor(v))) {
    abort(sprintf(paste0("the feature '%s' is a list column of %s: feature_columns_from_data() takes list ",
                         "columns of text or of whole numbers."), name, describe(v)))
  }
  sort(as.integer(v), method = "radix")
}

# The vocabulary of a categorical feature: its categories (data_levels()),
# but 0 and 1 for a logical one, which the engine reads as those integers.
feature_vocabulary <- function(x, name) if (is.logical(x)) c(0L, 1L) else data_levels(x, name, "feature")

# The categories of a variable: a factor's levels, a character vector's sorted
# unique values, FALSE/TRUE for a logical.
data_levels <- function(x, name, what) {
  if (is.factor(x)) {
    lv <- levels(x)
    if (length(lv) == 0L) abort(sprintf("the %s '%s' is a factor without levels.", what, name))
    return(lv)
  }
  if (is.logical(x)) return(c("FALSE", "TRUE"))
  if (is.character(x)) {
    lv <- sort(unique(x[!is.na(x)]), method = "radix")
    if (length(lv) == 0L) abort(sprintf("the %s '%s' has no values (all NA).", what, name))
    return(lv)
  }
  time <- if (inherits(x, c("Date", "POSIXt"))) paste0(" Convert it first: as.numeric() of it, or a column of ",
                                                        "its year or month.", recipes_time_hint(x)) else ""
  abort(sprintf(paste0("the %s '%s' is %s: feature_columns_from_data() takes numeric, factor, ",
                       "character and logical columns.%s"), what, name, describe(x), time))
}

# The classes recorded with columns from feature_columns_from_data(): the
# levels of its response, or NULL. A classifier given neither n_classes nor
# label_vocabulary takes them from here.
recorded_levels <- function(...) {
  for (cols in list(...)) {
    lv <- attr(cols, "response")$levels
    if (!is.null(lv)) return(lv)
  }
  NULL
}

# Columns whose categories are read from the training data ----------------------
#
# column_indicator("am") wraps data_vocabulary_column("am"), a vocabulary
# list without its vocabulary. At an estimator's first train() (or
# train_and_evaluate()), before its engine is built, the vocabulary of each
# is read off the training input as feature_columns_from_data() reads it,
# and the spec with the completed columns is kept in the estimator's state,
# which `$.tf_estimator_data_columns` returns as `object$spec` (saveRDS()
# and export_savedmodel() keep it). The completed columns are marked
# `from_data`, so that evaluate() and predict() refuse categories training
# did not see (check_levels()).

# Whether any of `cols`, at any depth, still has to read its vocabulary.
has_data_vocabulary <- function(cols) any(vapply(column_leaves(cols), is_data_vocabulary, TRUE))

complete_data_columns <- function(object, input_fn) {
  if (!inherits(object, "tf_estimator_data_columns")) return(invisible())
  st <- object$state
  if (!is.null(st$data_spec)) return(invisible())
  spec <- object$spec
  complete <- function(col) {
    if (is_data_vocabulary(col)) return(data_vocabulary_of(col$key, input_fn))
    for (field in c("source_column", "categorical_column")) {
      if (!is.null(col[[field]])) col[[field]] <- complete(col[[field]])
    }
    if (!is.null(col[["keys"]])) col$keys <- lapply(col[["keys"]], complete)
    col
  }
  spec$feature_columns[] <- lapply(spec$feature_columns, complete)
  st$data_spec <- spec
  invisible()
}

# The vocabulary list of the feature `key`, read off the training input.
data_vocabulary_of <- function(key, input_fn) {
  x <- if (inherits(input_fn, "cppestimators_input_fn")) input_fn$columns[[key]] %||% input_fn$features[[key]]
  if (is.null(x)) {
    abort(sprintf(paste0("column_indicator(\"%s\") reads the categories of '%s' from the training data, but the ",
                         "input of this train() holds no column '%s' in memory (%s); give column_indicator() a ",
                         "categorical column with its vocabulary instead."), key, key, key,
                  if (inherits(input_fn, "cppestimators_input_fn")) "a streaming dataset is not read ahead" else
                    "it is not a data frame or an input_fn() of one"),
          class = "cppestimators_feature_columns")
  }
  vocab <- if ((is.logical(x) || is.factor(x) || is.character(x)) && is.null(dim(x))) {
    feature_vocabulary(x, key)
  } else if (is.numeric(x) && !is.object(x) && is.null(dim(x))) {
    v <- unique(x[!is.na(x)])
    if (length(v) == 0L || any(!is.finite(v) | v != floor(v))) {
      abort(sprintf(paste0("column_indicator(\"%s\") reads the categories of '%s' from the training data, but it ",
                           "holds %s; an indicator column needs categories (a factor, strings, logicals or whole ",
                           "numbers): bucketize numbers with column_bucketized(column_numeric(\"%s\"), ",
                           "boundaries = ...)."), key, key,
                    if (length(v) == 0L) "no values (all NA)" else
                      sprintf("numbers that are not whole (%s)", format(v[!is.finite(v) | v != floor(v)][1L])), key),
            class = "cppestimators_feature_columns")
    }
    sort(v, method = "radix")
  } else {
    abort(sprintf(paste0("column_indicator(\"%s\") reads the categories of '%s' from the training data, but it ",
                         "is %s; it takes a factor, a character, logical or whole-number vector."),
                  key, key, describe(x)), class = "cppestimators_feature_columns")
  }
  col <- column_categorical_with_vocabulary_list(key, vocabulary_list = vocab)
  col$from_data <- TRUE
  col
}
