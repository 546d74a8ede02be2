#' Construct an input function
#'
#' Describes how an estimator reads data: which columns are features, which is
#' the response, and how rows are batched, shuffled and repeated. The data are
#' not copied: the engine reads R's column vectors in place and gathers each
#' batch into buffers allocated once.
#'
#' Batches cross epoch boundaries and only the very last batch is partial, as
#' with TensorFlow's input functions. Shuffling draws a new seeded permutation
#' for every epoch. `shuffle = "auto"` is resolved on every use: `predict()`
#' does not shuffle, `train()` and `evaluate()` do. A batch that is always one
#' whole epoch (`batch_size` equal to the number of rows, or a single epoch
#' that fits in one batch) is not shuffled: it holds every row once in any
#' order, and the order would only change how its sums round.
#'
#' The numeric columns an estimator reads are copied once into a float32
#' block laid out row by row, kept with the input function and reused by
#' every `train()`, `evaluate()` and `predict()` call over it (and every
#' epoch): half the size of R's doubles, rebuilt when the data or the
#' columns change, freed with the input function.
#' `options(cppestimators.cache_bytes =)` bounds it (default 1 GiB; 0 turns
#' it off); beyond the budget, each batch is gathered from the R vectors.
#'
#' Columns are read by their class first, their storage type second:
#' doubles, integers, logicals, characters and factors as they are;
#' `bit64::integer64` columns as the numbers they hold (a value beyond 2^53,
#' which no double holds exactly, is an error naming the column and the
#' row); `I()` columns as what they wrap; dates, date-times and time
#' differences are refused by numeric columns with how to convert them; any
#' other class (haven's labelled values, units, ...) is an error naming the
#' column and its class, since reading its storage might not be what it
#' means.
#'
#' Sparse and multi-valued features are read in place too. A sparse matrix
#' (`Matrix::dgCMatrix`, or any sparse matrix of the Matrix package,
#' converted once) is one numeric feature of `ncol()` values per row, read
#' by `column_numeric(shape = ncol(x))`: give it as an element of a named
#' list (`input_fn(list(words = x, y = y), response = "y")`), or as the
#' `object` itself with the response as a vector (`input_fn(x, response =
#' y)`: its feature is then named `"x"`). Linear models and DNNs read only
#' its non-zeros (see `sparse` of [column_numeric()]). A list column (a
#' list of character, integer or whole-number double vectors, one per row,
#' such as tokens; `vctrs::list_of()` and textrecipes' token lists too) is a
#' multi-valued categorical feature, read by the categorical columns as
#' TensorFlow reads a variable-length feature: each value yields its id, an
#' empty row none (see [column_categorical_with_hash_bucket()]).
#'
#' A factor response is encoded as integer codes `0..K-1`, with a message
#' listing the encoding; a logical response becomes 0/1. A classifier reads
#' the codes as class ids; a regressor refuses a factor response (it would
#' regress on the codes) at `train()` and `evaluate()`, but regresses on a
#' logical one as 0/1. A missing response value is an error naming the
#' column and its first row.
#'
#' An estimator's `weight_column` (see [linear_estimators]) is read from
#' the same data frame or list, whether or not `features` lists it; it is
#' only a feature of the model if one of the estimator's feature columns
#' reads it.
#'
#' The formula method reads bare column names joined by `+` (and `-` to
#' drop one); transformed terms such as `log(price)` are an error on either
#' side: compute the column into the data first.
#'
#' A streaming dataset ([text_line_dataset()], [tfrecord_dataset()],
#' [sqlite_dataset()], [dbi_dataset()], with any transforms such as
#' [dataset_batch()]) is not read into memory: the engine reads it a window
#' of rows at a time (`options(cppestimators.stream_window_rows =)`, 65536
#' by default) while the session runs, and every `train()`, `evaluate()` or
#' `predict()` reads it from its start. Its batches are those of
#' [dataset_batch()], else of `batch_size` (crossing the passes of a
#' [dataset_repeat()]); `shuffle` and `num_epochs` are the dataset's own
#' transforms ([dataset_shuffle()], [dataset_repeat()]). See
#' `vignette("streaming-datasets")`.
#'
#' @param object A data frame, a named list of equal-length vectors (or
#'   matrices, for multi-valued features), a matrix with column names, a
#'   formula (with `data`), or a streaming dataset.
#' @param features The feature columns, selected as in tidyselect: bare names,
#'   strings, `c()` of them, helpers such as [one_of()] or [starts_with()],
#'   `-name`, a variable holding names, or positions. Default: every column
#'   except the response.
#' @param response The response column, selected the same way (one column), or
#'   `NULL` for prediction-only input.
#' @param batch_size Rows per batch.
#' @param shuffle `TRUE`, `FALSE` or `"auto"`.
#' @param num_epochs Passes over the data; `NULL` repeats forever.
#' @param epochs The same as `num_epochs` (tfestimators' articles write
#'   `epochs`); giving both is an error.
#' @param queue_capacity,num_threads Accepted for compatibility and ignored
#'   (TensorFlow queue settings).
#' @param data For the formula method: the data frame.
#' @param ... Passed on to the data frame method. An argument that is none of
#'   these (a misspelt `batchsize`, say) is an error naming the nearest valid
#'   one.
#' @return An input function: an object of class `cppestimators_input_fn`.
#' @family input functions
#' @export
#' @examples
#' input <- input_fn(mtcars, response = "mpg", features = c("drat", "cyl"),
#'                   batch_size = 8L)
#' input
#' input_fn(mpg ~ drat + cyl, data = mtcars)
#' input_fn(iris, features = starts_with("Petal"), response = Species)
#' f <- tempfile(fileext = ".csv")
#' write.csv(mtcars, f, row.names = FALSE)
#' input_fn(text_line_dataset(f, csv_record_spec(f)) %>% dataset_batch(8),
#'          features = c(drat, cyl), response = mpg)
input_fn <- function(object, ...) {
  UseMethod("input_fn")
}

#' @rdname input_fn
#' @export
input_fn.default <- function(object, ...) {
  if (inherits(object, "sparseMatrix")) return(sparse_input_fn(object, ...))
  check_not_sparse(object, "object", "input_fn")
  input_fn(as.data.frame(object, stringsAsFactors = FALSE), ...)
}

# input_fn() of a sparse matrix: the matrix is the one feature, named "x",
# and `response` a vector of labels, one per row (or NULL).
sparse_input_fn <- function(object, response = NULL, batch_size = 128, shuffle = "auto", num_epochs = 1,
                            queue_capacity = 1000, num_threads = 1, ..., epochs) {
  check_dots(dots_names(...), "input_fn",
             c("response", "batch_size", "shuffle", "num_epochs", "queue_capacity", "num_threads", "epochs"))
  if (!missing(epochs)) num_epochs <- epochs_as_num_epochs(epochs, missing(num_epochs), "input_fn")
  if (!is.null(response) && (!is.atomic(response) || !is.null(dim(response)) || length(response) != nrow(object))) {
    abort(sprintf(paste("input_fn() of a sparse matrix: `response` must be NULL or a vector with one value per",
                        "row of the matrix (%d), not %s."), nrow(object), describe(response)),
          class = "cppestimators_response")
  }
  data <- list(x = object)
  if (!is.null(response)) data$y <- response
  build_input(data, "x", if (!is.null(response)) "y", batch_size, shuffle, num_epochs)
}

#' @rdname input_fn
#' @export
input_fn.formula <- function(object, data, ...) {
  if (missing(data)) abort("`data` is required by the formula method of input_fn().")
  parsed <- parse_formula(object, calls = "error")
  input_fn(data, features = parsed$features, response = parsed$response, ...)
}

#' @rdname input_fn
#' @export
input_fn.matrix <- function(object, ...) {
  if (is.null(colnames(object))) {
    abort("cannot create input function from matrix without column names")
  }
  input_fn(as.data.frame(object, stringsAsFactors = FALSE), ...)
}

#' @rdname input_fn
#' @export
input_fn.list <- function(object, features, response = NULL, batch_size = 128,
                          shuffle = "auto", num_epochs = 1, queue_capacity = 1000,
                          num_threads = 1, ..., epochs) {
  check_dots(dots_names(...), "input_fn", setdiff(names(formals(input_fn.list)), c("object", "...")))
  if (!missing(epochs)) num_epochs <- epochs_as_num_epochs(epochs, missing(num_epochs), "input_fn")
  if (is.null(names(object)) || any(!nzchar(names(object)))) {
    abort("`object` must be a named list of features.")
  }
  nms <- names(object)
  response <- select_columns(rlang::enquo(response), nms, arg = "response", null_ok = TRUE)
  if (length(response) > 1L) abort("`response` must name one column.")
  features <- if (missing(features)) setdiff(nms, response) else
    select_columns(rlang::enquo(features), nms, arg = "features")
  build_input(object, features, response, batch_size, shuffle, num_epochs)
}

# `epochs`, given for `num_epochs` (the name tfestimators' articles use):
# its value, or an error when `num_epochs` was given too.
epochs_as_num_epochs <- function(epochs, num_epochs_missing, fn) {
  if (!num_epochs_missing) {
    abort(sprintf("%s(): give `num_epochs` or `epochs` (the same setting, passes over the data), not both.", fn),
          class = "cppestimators_argument_conflict")
  }
  epochs
}

# input_fn() over the columns named `features` and `response` (resolved
# already) of the data frame or list `object`.
build_input <- function(object, features, response, batch_size, shuffle, num_epochs,
                        cache = new.env(parent = emptyenv()), at = match(features, names(object)),
                        unique_names = FALSE) {
  nms <- names(object)
  # (`unique_names`: the caller checked them)
  if (!unique_names && anyDuplicated(nms)) {
    dup <- unique(nms[duplicated(nms)])
    if (length(bad <- intersect(c(features, response), dup))) {
      abort(sprintf("`object` has more than one column named %s: the names of the columns an input uses must be unique.",
                    paste0("'", bad, "'", collapse = ", ")))
    }
  }
  batch_size <- check_whole(batch_size, "batch_size", null_ok = FALSE, max = .Machine$integer.max)
  num_epochs <- check_whole(num_epochs, "num_epochs", min = 1, max = .Machine$integer.max)
  if (!(isTRUE(shuffle) || isFALSE(shuffle) || identical(shuffle, "auto"))) {
    abort(paste0("`shuffle` must be TRUE, FALSE or \"auto\", not ", describe(shuffle), "."))
  }
  columns <- as.list(object)
  used <- c(features, response)
  # `at`: the positions of `features` among the columns (by name, the first of each)
  used_at <- c(at, match(response, nms))
  if (length(used)) {
    # each column read by its class (R/column_reading.R): an integer64 as
    # its numbers, a class the package does not know refused
    used_columns <- read_columns(columns[used_at], used)
    columns[used_at] <- used_columns
    rows <- cpp_column_rows(used_columns)
    if (anyNA(rows)) rows[is.na(rows)] <- vapply(used_columns[is.na(rows)], NROW, 0)
    if (any(rows != rows[1L])) {
      k <- which(rows != rows[1L])[1L]
      abort(sprintf("column '%s' has %d rows but '%s' has %d.", used[k], as.integer(rows[k]), used[1L],
                    as.integer(rows[1L])))
    }
  }
  labels <- NULL
  if (!is.null(response)) labels <- encode_response(columns[[match(response, nms)]], response)
  # `columns`: every column of the data (not copied), where an estimator's
  # weight column is found whether or not `features` lists it.
  # `by_reference`: the data is a data.table, whose set() and := write into
  # the vectors in place even while other objects refer to them, so nothing
  # built from them is kept between calls (see feature_block())
  new_input_fn(list(features = columns[at], response = response, labels = labels,
                    batch_size = batch_size, shuffle = shuffle, num_epochs = num_epochs,
                    cache = cache, columns = columns, by_reference = inherits(object, "data.table")))
}

# An input function as tfestimators made them: a function of the estimator
# returning a function of no arguments that returns list(features, labels).
# Its fields (the selected columns, the encoded labels, batching and the
# feature cache) are read with `$`.
new_input_fn <- function(fields) {
  self <- NULL
  self <- structure(function(estimator) {
    structure(function() input_values(fields), input_fn = self)
  }, class = c("cppestimators_input_fn", "function"))
  self
}

input_values <- function(fields) {
  features <- fields$features
  if (is.null(fields$response)) return(list(features = features))
  labels <- fields$labels
  attr(labels, "levels") <- NULL
  list(features = features, labels = labels)
}

#' @export
`$.cppestimators_input_fn` <- function(x, name) {
  .subset2(environment(unclass(x))$fields, name)
}

#' @export
`[[.cppestimators_input_fn` <- function(x, i, ...) {
  .subset2(environment(unclass(x))$fields, i)
}

#' @export
`$<-.cppestimators_input_fn` <- function(x, name, value) {
  fields <- environment(unclass(x))$fields
  fields[[name]] <- value
  # a modified copy: the original keeps its fields and its cache
  if (!identical(name, "cache")) fields$cache <- new.env(parent = emptyenv())
  new_input_fn(fields)
}

#' @export
`[[<-.cppestimators_input_fn` <- function(x, i, value) {
  `$<-.cppestimators_input_fn`(x, i, value)
}

#' @export
names.cppestimators_input_fn <- function(x) {
  names(environment(unclass(x))$fields)
}

#' @rdname input_fn
#' @export
input_fn.data.frame <- input_fn.list

#' @export
print.cppestimators_input_fn <- function(x, ...) {
  n <- if (length(x$features)) NROW(x$features[[1]]) else 0L
  feats <- names(x$features)
  if (length(feats) > 6L) feats <- c(feats[1:5], sprintf("... (%d in all)", length(feats)))
  cat(sprintf("<input_fn: %d rows; features %s; response %s; batch_size %d; num_epochs %s; shuffle %s>\n",
              n, paste(feats, collapse = ", "), x$response %||% "none",
              as.integer(x$batch_size), format(x$num_epochs %||% "NULL (repeat)"), format(x$shuffle)))
  invisible(x)
}

#' @export
format.cppestimators_input_fn <- function(x, ...) {
  utils::capture.output(print(x))
}

#' @export
str.cppestimators_input_fn <- function(object, ...) {
  print(object)
  invisible(NULL)
}

#' Construct an input function from arrays
#'
#' The counterpart of TensorFlow's `numpy_input_fn()`, as tfestimators
#' exported it: `x` is a named list of arrays (vectors, or matrices whose
#' rows are examples, for multi-valued features), `y` the response. It makes
#' the same input function as [input_fn()] on the list `x` with `y` as its
#' response.
#'
#' @param x A named list of equal-length vectors or matrices (the features).
#' @param y The response: a vector, a matrix (one row per example), a named
#'   list holding one of those, or `NULL` for prediction-only input.
#' @param batch_size Rows per batch.
#' @param num_epochs Passes over the data; `NULL` repeats forever.
#' @param shuffle `TRUE` or `FALSE`.
#' @param queue_capacity,num_threads Accepted for compatibility and ignored.
#' @return An input function, as from [input_fn()].
#' @family input functions
#' @export
#' @examples
#' x <- list(drat = mtcars$drat, wt = mtcars$wt)
#' input <- numpy_input_fn(x, y = mtcars$mpg, batch_size = 8L, shuffle = FALSE)
#' input
#' est <- linear_regressor(feature_columns = feature_columns(column_numeric("drat", "wt")))
#' train(est, input_fn = input, steps = 2)
numpy_input_fn <- function(x, y = NULL, batch_size = 128, num_epochs = 1, shuffle = TRUE,
                           queue_capacity = 1000, num_threads = 1) {
  if (!is.list(x) || is.null(names(x)) || any(!nzchar(names(x))) || anyDuplicated(names(x))) {
    abort(paste0("`x` must be a named list of arrays with distinct names, not ", describe(x), "."))
  }
  if (!(isTRUE(shuffle) || isFALSE(shuffle))) {
    abort(paste0("`shuffle` must be provided and explicitly set as TRUE or FALSE, not ", describe(shuffle), "."))
  }
  response <- NULL
  if (!is.null(y)) {
    if (is.list(y) && !is.data.frame(y)) {
      if (length(y) != 1L) abort("`y` must be an array or a list holding one array.")
      response <- names(y) %||% ""
      y <- y[[1]]
    }
    if (is.null(response) || !nzchar(response)) response <- "y"
    if (response %in% names(x)) {
      abort(sprintf("`y` is named '%s', which is also a feature in `x`.", response))
    }
  }
  rows <- vapply(c(x, if (!is.null(y)) list(y)), NROW, 0)
  if (length(unique(rows)) > 1L) {
    abort(sprintf("Length of tensors in x and y is mismatched: %s.",
                  paste(sprintf("%s has %d", c(names(x), response), rows), collapse = ", ")))
  }
  data <- x[order(names(x), method = "radix")]
  if (!is.null(y)) data[[response]] <- y
  features <- sort(names(x), method = "radix")  # TensorFlow sorted the keys
  if (is.null(response)) {
    return(input_fn.list(data, features = features, batch_size = batch_size, shuffle = shuffle,
                         num_epochs = num_epochs))
  }
  input_fn.list(data, features = features, response = response, batch_size = batch_size, shuffle = shuffle,
                num_epochs = num_epochs)
}
