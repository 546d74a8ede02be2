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
    # the engine reads a logical feature as the integers 0 and 1
    vocab <- if (is.logical(x)) c(0L, 1L) else data_levels(x, nm, "feature")
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
