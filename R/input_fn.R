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
  input_fn(as.data.frame(object, stringsAsFactors = FALSE), ...)
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
                          num_threads = 1, ...) {
  check_dots(dots_names(...), "input_fn", setdiff(names(formals(input_fn.list)), c("object", "...")))
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

# input_fn() over the columns named `features` and `response` (resolved
# already) of the data frame or list `object`.
build_input <- function(object, features, response, batch_size, shuffle, num_epochs,
                        cache = new.env(parent = emptyenv()), at = match(features, names(object))) {
  nms <- names(object)
  if (anyDuplicated(nms)) {
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
    rows <- cpp_column_rows(columns[used_at])
    if (anyNA(rows)) rows[is.na(rows)] <- vapply(columns[used_at][is.na(rows)], NROW, 0)
    if (any(rows != rows[1L])) {
      k <- which(rows != rows[1L])[1L]
      abort(sprintf("column '%s' has %d rows but '%s' has %d.", used[k], as.integer(rows[k]), used[1L],
                    as.integer(rows[1L])))
    }
  }
  labels <- NULL
  if (!is.null(response)) labels <- encode_response(object[[response]], response)
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
  if (is.logical(y)) return(as.numeric(y))
  if (is.character(y)) return(y)
  if (is.numeric(y)) {
    if (is.matrix(y)) storage.mode(y) <- "double" else y <- as.numeric(y)
    return(y)
  }
  abort(sprintf("the response '%s' must be numeric, logical, a factor or character, not %s.",
                name, describe(y)))
}

# The response, features and intercept of a formula, as tfestimators parsed
# it: `y ~ x1 + x2 - x3`, `0`/`1` terms setting the intercept, `(x)` and
# `data$x` read as `x`. A term that calls a function (`log(x)`,
# `tf$Tensor(x)`) is kept as its text when `calls = "keep"`; input_fn()
# refuses it (`calls = "error"`), since the data has no such column.
parse_formula <- function(f, calls = c("keep", "error")) {
  calls <- match.arg(calls)
  if (length(f) == 3L && is.call(f[[2]]) && !is_formula_operator(f[[2]])) {
    abort(sprintf("the response %s of the formula is a transformed term: %s.", deparse1(f[[2]]),
                  transformed_term_hint(f[[2]])))
  }
  if (length(f) != 3L || !is.symbol(f[[2]])) {
    abort("the formula must have one response on its left-hand side, e.g. y ~ x1 + x2.")
  }
  intercept <- TRUE
  walk <- function(e, sign = 1) {
    if (is.symbol(e)) return(as.character(e))
    if (is.numeric(e) && length(e) == 1L && e %in% c(0, 1)) {
      intercept <<- (e == 1) == (sign > 0)
      return(character())
    }
    if (is.call(e)) {
      if (!is_formula_operator(e)) {
        if (calls == "keep") return(deparse1(e))
        op <- if (is.symbol(e[[1]])) as.character(e[[1]]) else deparse1(e[[1]])
        abort(sprintf("unhandled formula operator: expected '+' or '-'; got '%s': %s.", op,
                      transformed_term_hint(e)))
      }
      op <- as.character(e[[1]])
      if (op == "(") return(walk(e[[2]], sign))
      if (op == "+") return(unlist(lapply(as.list(e)[-1], walk, sign = sign)))
      if (op == "-" && length(e) == 3L) return(setdiff(walk(e[[2]], sign), walk(e[[3]], -sign)))
      if (op == "-" && length(e) == 2L) {
        walk(e[[2]], -sign)
        return(character())
      }
      if (op == "$") return(as.character(e[[3]]))
      abort(sprintf("unhandled formula operator: expected '+' or '-'; got '%s'", op))
    }
    abort(paste0("unhandled formula term: ", deparse(e)))
  }
  features <- walk(f[[3]])
  list(response = as.character(f[[2]]), features = unique(features), intercept = intercept)
}

# Operators of formula syntax (interactions, nesting), as opposed to calls
# of functions that transform a column.
is_formula_operator <- function(e) {
  is.symbol(e[[1]]) && as.character(e[[1]]) %in% c("+", "-", "*", ":", "^", "/", "%in%", "|", "(", "$", "~")
}

# How to use a transformed column: compute it into the data, then name it.
transformed_term_hint <- function(e) {
  vars <- all.vars(e)
  fn <- if (is.symbol(e[[1]])) as.character(e[[1]]) else "f"
  column <- gsub("[^A-Za-z0-9_.]", "_", paste(c(fn, vars), collapse = "_"))
  in_data <- do.call(substitute, list(e, stats::setNames(
    lapply(vars, function(v) call("$", quote(data), as.name(v))), vars)))
  sprintf(paste0("transformed terms such as %s are not supported by input_fn(); compute the column first, ",
                 "e.g. data$%s <- %s, and use %s in the formula"),
          deparse1(e), column, deparse1(in_data), column)
}

# The data a session reads, for one estimator and mode: the features its
# columns use, as the input holds them (normalizer_fn applied once), the
# labels as doubles (vocabulary applied) and the weight column's values.
resolve_input <- function(input_fn, estimator, mode, in_order = FALSE) {
  check_choice(mode, "mode", session_modes)
  input_fn <- as_input_fn(input_fn, estimator)
  if (inherits(input_fn, "cppestimators_dataset_input_fn")) return(list(stream = TRUE, input = input_fn))
  plan <- column_plan(estimator)
  features <- mark_checked(plan, input_fn, session_features(estimator, plan, input_fn$features))
  read <- if (identical(names(input_fn$features), plan$keys)) input_fn$features else input_fn$features[plan$keys]
  seen <- check_seen_data(estimator, read, input_fn$labels, mode)
  labels <- NULL
  if (mode != "infer") {
    if (is.null(input_fn$labels)) {
      abort("`input_fn` has no response: train() and evaluate() need one (set `response`).")
    }
    labels <- map_labels(input_fn$labels, estimator, input_fn$response)
  }
  shuffle <- input_fn$shuffle
  if (identical(shuffle, "auto")) shuffle <- mode != "infer"
  list(features = features, labels = labels, weights = input_weights(estimator, input_fn, mode),
       batch_size = input_fn$batch_size, shuffle = shuffle && !in_order,
       num_epochs = input_fn$num_epochs %||% -1, input = input_fn, seen = seen)
}

# engine_features() without a loop over the columns in R: the input's own
# vectors, selected by name, when every leaf's feature is there and no
# numeric one is a classed vector (a Date, say, which check_not_time()
# refuses); only the columns with a normalizer_fn run R code. Anything else
# goes through engine_features(), which gives the same result or error.
session_features <- function(estimator, plan, features) {
  plain <- plan$numeric & !plan$normalized
  if (identical(names(features), plan$keys) && !any(plan$normalized)) {
    # exactly the keys, in order (a data frame given to train() and the others)
    return(if (cpp_any_object(features[plan$plain_at])) engine_features(estimator$spec$feature_columns, features) else
      features[seq_along(features)])
  }
  present <- plan$leaf_keys %in% names(features)
  if (!all(present) || cpp_any_object(features[plan$leaf_keys[plain]]) ||
      anyDuplicated(plan$engine_keys[plan$normalized])) {
    return(engine_features(estimator$spec$feature_columns, features))
  }
  if (!any(plan$normalized)) return(features[plan$keys])
  keep <- !duplicated(plan$engine_keys)
  out <- features[plan$leaf_keys[keep]]
  names(out) <- plan$engine_keys[keep]
  at <- cumsum(keep)
  for (i in which(plan$normalized & keep)) {
    out[at[i]] <- list(engine_features(plan$leaves[i], features)[[1L]])
  }
  out
}

# The input_fn() object behind what the user passed: the object itself, the
# function it returns for an estimator, or a function of 0 or 1 arguments
# returning one of those (as tfestimators' normalize_input_fn accepted).
as_input_fn <- function(input_fn, estimator) {
  for (depth in 1:3) {
    if (inherits(input_fn, "cppestimators_input_fn")) return(input_fn)
    if (inherits(attr(input_fn, "input_fn"), "cppestimators_input_fn")) return(attr(input_fn, "input_fn"))
    if (!is.function(input_fn)) break
    nargs <- length(formals(input_fn))
    input_fn <- if (nargs == 0L) input_fn() else if (nargs == 1L) input_fn(estimator) else
      abort("'input_fn' should accept 0 or 1 arguments")
  }
  abort(paste0("`input_fn` must be made by input_fn() or numpy_input_fn() (or be a function returning one), not ",
               describe(input_fn), "."))
}

map_labels <- function(y, estimator, name) {
  head <- estimator$spec$head
  lv <- attr(y, "levels")
  if (identical(head, "regression") && !is.null(lv)) {
    abort(sprintf(paste0("the response '%s' is a factor (levels %s) but %s() is a regressor: it would regress on ",
                         "the level codes. Use a classifier, e.g. %s(n_classes = %d, label_vocabulary = levels(data$%s)), ",
                         "or feature_columns_from_data(data, response = \"%s\"), which sets them; or make the response ",
                         "numeric."),
                  name, name_list(lv, max = 10L), estimator$spec$name, classifier_for(estimator$spec$name),
                  max(2L, length(lv)), name, name), class = "cppestimators_factor_response")
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
