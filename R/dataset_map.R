# dataset_map() and dataset_filter(): transforms that run R code on the
# records of a streaming dataset, a batch at a time. The dataset before the
# transform (`upstream`) is read by the engine batch by batch
# (cpp_stream_reader_new()), R applies the function to each batch, and the
# result is the source, of kind "r" (src/r_source_stream.cpp), of the
# transforms after it. The columns of the result (names and types) are
# those of the first batch's result, read when they are first needed.

#' Transform the records of a dataset with an R function
#'
#' `dataset_map()` applies `map_func` to the records a batch at a time: it is
#' given a data frame of the batch's records (one column per column of the
#' dataset) and returns a data frame, or a named list of equal-length
#' vectors, of the same number of rows, whose columns may be changed, added
#' or dropped. `dataset_filter()` keeps the records for which `predicate`,
#' given the same data frame, returns `TRUE` (a logical vector with a value
#' per record; `NA` drops the record, as in `dplyr::filter()`).
#'
#' The functions run R code on each batch, not on each value, on R's
#' thread while the dataset is read (by [train()], [evaluate()],
#' [predict()] or [dataset_collect()]). A batch is one of [dataset_batch()]
#' when the dataset is batched before the transform, otherwise a chunk of
#' up to `options(cppestimators.stream_window_rows =)` records (65536 by
#' default): a function whose result for a record depends on that record
#' alone (a derived column, a recoding, a condition on the record's values)
#' gives the same records either way. After the transform, the records are
#' batched again with the size of that [dataset_batch()]; transforms
#' applied after it (such as [dataset_shuffle()], [dataset_repeat()],
#' [dataset_batch()]) work as on any dataset.
#'
#' The columns of the result are numbers, integers, logicals or text
#' (factors are read as their labels), or list columns of text or numbers
#' (one vector per row: tokens, tags, ids, as the categorical columns read
#' them; variable-length TFRecord features arrive as such lists); their
#' names and types are those of the first batch's result (the first batch
#' is read, once, when they are first needed), and a later batch of other
#' columns, or of a type that does not convert exactly, is an error naming
#' the column. Matrix columns cannot pass through a transform. The records before the transform are read with a seed of their
#' own, drawn from R's random numbers, so a [dataset_shuffle()] without a
#' `seed` before the transform does not follow `run_config(tf_random_seed =
#' )`: shuffle after it, or give the shuffle a seed.
#'
#' @inheritParams dataset_shuffle
#' @param map_func A function of a data frame (a batch of records) returning
#'   a data frame or a named list of vectors with as many rows; or a
#'   one-sided formula such as `~ transform(.x, z = x * 2)`.
#' @param num_parallel_calls Accepted for compatibility with tfdatasets and
#'   ignored: the function runs on R's thread.
#' @return The dataset with the transform appended.
#' @family dataset transforms
#' @export
#' @examples
#' path <- tempfile(fileext = ".csv")
#' writeLines(c("x,y", paste(1:10, (1:10) %% 2, sep = ",")), path)
#' ds <- text_line_dataset(path, csv_record_spec(path))
#' # a derived column
#' doubled <- dataset_map(ds, function(batch) transform(batch, x2 = x * 2))
#' dataset_collect(doubled)
#' # the records with y == 1, batched by 2
#' odd <- ds |> dataset_filter(function(batch) batch$y == 1) |> dataset_batch(2)
#' dataset_collect(odd)
#' # training on them
#' est <- linear_regressor(feature_columns(column_numeric("x", "x2")))
#' train(est, input_fn(doubled, features = c(x, x2), response = y, batch_size = 4))
dataset_map <- function(dataset, map_func, num_parallel_calls = NULL) {
  check_dataset(dataset)
  check_given(!missing(map_func), "map_func")
  new_mapped_dataset(dataset, "map", as_batch_function(map_func, "map_func"), substitute(map_func))
}

#' @rdname dataset_map
#' @param predicate A function of a data frame (a batch of records)
#'   returning a logical vector with a value per record (`TRUE`: keep it);
#'   or a one-sided formula such as `~ .x$y > 0`.
#' @export
dataset_filter <- function(dataset, predicate) {
  check_dataset(dataset)
  check_given(!missing(predicate), "predicate")
  new_mapped_dataset(dataset, "filter", as_batch_function(predicate, "predicate"), substitute(predicate))
}

as_batch_function <- function(f, arg) {
  if (inherits(f, "formula")) {
    if (length(f) != 2L) abort(sprintf("`%s` must be a function or a one-sided formula (~ ...), not a two-sided one.",
                                       arg))
    return(rlang::as_function(f))
  }
  if (!is.function(f)) abort(sprintf("`%s` must be a function or a one-sided formula, not %s.", arg, describe(f)))
  f
}

new_mapped_dataset <- function(dataset, kind, fn, expr) {
  label <- paste(deparse(expr, width.cutoff = 60L), collapse = " ")
  if (nchar(label) > 60L) label <- paste0(substr(label, 1L, 57L), "...")
  structure(list(upstream = dataset, kind = kind, fn = fn, label = label, ops = list(),
                 cache = new.env(parent = emptyenv())),
            class = c("cppestimators_mapped_dataset", "cppestimators_dataset"))
}

# The function's name in messages.
mapped_what <- function(dataset) {
  sprintf("dataset_%s()'s `%s`", dataset$kind, if (dataset$kind == "map") "map_func" else "predicate")
}

# A reader of the records before the transform, batch by batch.
open_upstream <- function(dataset) {
  window <- getOption("cppestimators.stream_window_rows", 65536)
  seed <- floor(stats::runif(1) * 2^31)
  with_error_class(cpp_stream_reader_new(engine_pipeline(dataset$upstream), seed, as.integer(min(window, 2^31 - 1)),
                                         window))
}

# A batch as the functions get it: a data frame.
batch_frame <- function(cols) {
  n <- attr(cols, "n")
  attr(cols, "n") <- NULL
  structure(cols, class = "data.frame", row.names = .set_row_names(as.integer(n)))
}

# The transform of one batch (the reader's named list of columns): the
# columns of the result, as a plain list.
transform_batch <- function(dataset, cols) {
  df <- batch_frame(cols)
  n <- nrow(df)
  what <- mapped_what(dataset)
  out <- tryCatch(dataset$fn(df), error = function(e) {
    abort(sprintf("%s failed: %s", what, conditionMessage(e)), class = "cppestimators_dataset_function_error",
          parent = e)
  })
  if (dataset$kind == "filter") {
    if (!is.logical(out) || !(length(out) %in% c(1L, n)) || !is.null(dim(out))) {
      abort(sprintf("%s must return a logical vector with a value per record (%d), not %s.", what, n, describe(out)),
            class = "cppestimators_dataset_function_error")
    }
    keep <- rep_len(out, n)
    keep[is.na(keep)] <- FALSE
    return(lapply(unclass(df), function(x) x[keep]))
  }
  if (!is.list(out) || is.null(names(out)) || !all(nzchar(names(out))) || anyDuplicated(names(out))) {
    abort(sprintf("%s must return a data frame or a named list of vectors (distinct names), not %s.", what,
                  describe(out)), class = "cppestimators_dataset_function_error")
  }
  rows <- vapply(out, NROW, 0)
  if (any(rows != n)) {
    bad <- names(out)[rows != n][1L]
    abort(sprintf("%s must return as many rows as it is given (%d): column '%s' has %d.", what, n, bad,
                  as.integer(rows[names(out) == bad][1L])), class = "cppestimators_dataset_function_error")
  }
  out <- unclass(as.list(out))
  read_columns(out, names(out), paste0("column '%s' after ", gsub("%", "%%", what, fixed = TRUE)))
}

# The type of a column of the result, as the R source reads it.
result_type <- function(x, name, dataset) {
  if (is.factor(x) || is.character(x)) return("character")
  # a list column (tokens, tags, ids: one vector per row) by the type of its
  # values: text, integers (whole numbers) or numbers
  if (is.list(x) && is.null(dim(x))) {
    kinds <- unique(vapply(x, list_value_kind, ""))
    kinds <- setdiff(kinds, "empty")
    if (length(kinds) <= 1L && !identical(kinds, "other")) {
      return(paste0("list_", if (length(kinds)) kinds else "character"))
    }
    if (all(kinds %in% c("integer", "double"))) return("list_double")
  }
  if (!is.null(dim(x)) || is.list(x) || inherits(x, c("Date", "POSIXt", "difftime"))) {
    what <- if (!is.null(dim(x))) {
      "a matrix"
    } else if (is.list(x)) {
      "a list mixing text and numbers, or of other values"
    } else {
      paste("a", class(x)[1L])
    }
    abort(sprintf(paste("column '%s' after %s is %s: the records of a transform hold numbers, integers,",
                        "logicals, text and lists of text or of numbers (convert it, or drop the column)."),
                  name, mapped_what(dataset), what),
          class = "cppestimators_dataset_function_error")
  }
  if (is.logical(x)) return("logical")
  if (is.integer(x)) return("integer")
  if (is.double(x)) return("double")
  abort(sprintf("column '%s' after %s is %s: the records of a transform hold numbers, integers, logicals and text.",
                name, mapped_what(dataset), describe(x)), class = "cppestimators_dataset_function_error")
}

# The kind of one row of a list column: "character", "integer", "double",
# "empty" (no values) or "other".
list_value_kind <- function(v) {
  if (length(v) == 0L) return("empty")
  if (is.character(v) || is.factor(v)) return("character")
  if (is.integer(v) || is.logical(v)) return("integer")
  if (is.double(v) && is.null(dim(v))) return("double")
  "other"
}

# The names and types of the records after the transform: those of the
# first batch's result (for a filter, of the records it is given), read
# once per dataset object.
mapped_schema <- function(dataset) {
  cache <- dataset$cache
  if (!is.null(cache$schema)) return(cache$schema)
  reader <- open_upstream(dataset)
  on.exit(cpp_stream_reader_close(reader), add = TRUE)
  cols <- with_error_class(cpp_stream_reader_next(reader, 1024))
  if (is.null(cols)) {
    abort(sprintf("%s: the dataset has no records, so the columns of the transform's result are not known.",
                  sub("'s `.*$", "", mapped_what(dataset))), class = "cppestimators_dataset_function_error")
  }
  out <- if (dataset$kind == "filter") {
    transform_batch(dataset, cols)  # checks the predicate's result
    unclass(batch_frame(cols))
  } else {
    transform_batch(dataset, cols)
  }
  types <- vapply(names(out), function(nm) result_type(out[[nm]], nm, dataset), "", USE.NAMES = FALSE)
  cache$schema <- list(names = names(out), types = types)
  cache$schema
}

#' @export
engine_source.cppestimators_mapped_dataset <- function(dataset) {
  schema <- mapped_schema(dataset)
  state <- new.env(parent = emptyenv())
  state$done <- FALSE
  close <- function() {
    r <- state$reader
    state$reader <- NULL
    if (!is.null(r)) cpp_stream_reader_close(r)
  }
  next_chunk <- function(n) {
    if (state$done) return(NULL)
    if (is.null(state$reader)) state$reader <- open_upstream(dataset)
    repeat {
      cols <- with_error_class(cpp_stream_reader_next(state$reader, n))
      if (is.null(cols)) {
        state$done <- TRUE
        close()
        return(NULL)
      }
      out <- transform_batch(dataset, cols)
      if (!identical(names(out), schema$names)) {
        abort(sprintf("%s returned the columns %s for a batch where it returned %s for the first one.",
                      mapped_what(dataset), paste(names(out), collapse = ", "),
                      paste(schema$names, collapse = ", ")), class = "cppestimators_dataset_function_error")
      }
      # a batch the filter emptied is skipped (no rows: the end of a pass)
      if (length(out) && length(out[[1L]])) return(out)
    }
  }
  rewind <- function() {
    close()
    state$done <- FALSE
    invisible()
  }
  list(kind = "r", next_chunk = next_chunk, rewind = rewind, close = close, names = schema$names,
       types = schema$types)
}

#' @export
dataset_names.cppestimators_mapped_dataset <- function(dataset) mapped_schema(dataset)$names

# The dataset_batch() transform the records were batched with before the
# transform, which batches them again after it (unless the dataset has one
# of its own after the transform).
carried_batch_op <- function(dataset) {
  if (!inherits(dataset, "cppestimators_mapped_dataset")) return(NULL)
  if (any(vapply(dataset$ops, inherits, TRUE, "cppestimators_dataset_op_batch"))) return(NULL)
  dataset_batch_op(dataset$upstream)
}

# The first dataset_batch() transform of a dataset (before a transform of
# R code when it has none after it), or NULL.
dataset_batch_op <- function(dataset) {
  for (op in dataset$ops) if (inherits(op, "cppestimators_dataset_op_batch")) return(op)
  if (inherits(dataset, "cppestimators_mapped_dataset")) dataset_batch_op(dataset$upstream)
}

#' @export
print.cppestimators_mapped_dataset <- function(x, ...) {
  print(x$upstream)
  cat(sprintf("  |> dataset_%s(%s)\n", x$kind, x$label))
  print_dataset_ops(x)
  invisible(x)
}

# A mapped dataset's shard: the records before its dataset_map() or
# dataset_filter() (which keep each record's own result), so that each
# process runs R code on its shard only.
#' @export
shard_dataset.cppestimators_mapped_dataset <- function(dataset, num_shards, index) {
  dataset$upstream <- shard_dataset(dataset$upstream, num_shards, index)
  dataset
}
