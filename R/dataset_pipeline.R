# A dataset as the engine builds it: its source (files and how to parse
# them, or R functions that fetch rows) and the transforms applied to it,
# in order (R/dataset_transforms.R appends them to `dataset$ops`).

# list(source = , ops = ) for glue_stream.cpp: the ops as plain lists.
engine_pipeline <- function(dataset) {
  # a dataset_batch() before a dataset_map() batches its records again (R/dataset_map.R)
  carried <- carried_batch_op(dataset)
  ops <- c(if (!is.null(carried)) list(carried), dataset$ops)
  list(source = engine_source(dataset), ops = unname(lapply(ops, unclass)))
}

engine_source <- function(dataset) UseMethod("engine_source")

#' @export
engine_source.cppestimators_csv_dataset <- function(dataset) {
  spec <- dataset$record_spec
  threads <- if (is.null(dataset$parallel_records)) engine_threads() else as.integer(dataset$parallel_records)
  list(kind = "csv", files = dataset$filenames,
       names = if (spec$header) rep("", length(spec$names)) else spec$names,
       types = spec$types, defaults = spec$defaults, na = spec$na %||% "", skip = spec$skip,
       delim = spec$delim,
       header = spec$header, threads = threads,
       block_size = getOption("cppestimators.csv_block_size", 8 * 2^20),
       column_names = spec$names[spec$types != "skip"])
}

#' @export
engine_source.cppestimators_tfrecord_dataset <- function(dataset) {
  list(kind = "tfrecord", files = dataset$filenames, spec = engine_parse_spec(dataset$features))
}

#' @export
engine_source.default <- function(dataset) {
  abort(paste0("`dataset` must be a dataset such as text_line_dataset() or tfrecord_dataset() returns, not ",
               describe(dataset), "."))
}

# The names of the columns a dataset yields, in order.
dataset_names <- function(dataset) UseMethod("dataset_names")

#' @export
dataset_names.cppestimators_csv_dataset <- function(dataset) {
  spec <- dataset$record_spec
  spec$names[spec$types != "skip"]
}

#' @export
dataset_names.cppestimators_tfrecord_dataset <- function(dataset) names(dataset$features)

#' @export
dataset_names.default <- function(dataset) character()

#' @rdname dataset_collect
#' @param chunk_size Rows read from the source at a time.
#' @export
dataset_collect.cppestimators_dataset <- function(dataset, n = Inf, chunk_size = 65536L, ...) {
  check_dots(dots_names(...), "dataset_collect", c("dataset", "n", "chunk_size"))
  n <- check_number(n, "n", min = 0, finite = FALSE)
  chunk_size <- check_whole(chunk_size, "chunk_size", min = 1, null_ok = FALSE, max = 2^31 - 1)
  if (!is.finite(n) && dataset_is_infinite(dataset)) {
    abort(paste0("`dataset` repeats forever (dataset_repeat() without a `count`): give dataset_collect() ",
                 "a finite `n`, or dataset_take() a count after the repeat."))
  }
  seed <- floor(stats::runif(1) * 2^31)
  cols <- with_error_class(cpp_stream_collect(engine_pipeline(dataset), n, seed, chunk_size))
  rows <- attr(cols, "n")
  attr(cols, "n") <- NULL
  structure(cols, class = "data.frame", row.names = .set_row_names(as.integer(rows)))
}

# The R types of a streaming dataset's columns, by name, where its spec
# says them (a CSV record spec; a tf.train.Example parse spec's dtypes);
# "double" otherwise.
dataset_column_types <- function(dataset) UseMethod("dataset_column_types")

#' @export
dataset_column_types.default <- function(dataset) {
  nms <- dataset_names(dataset)
  stats::setNames(rep("double", length(nms)), nms)
}

#' @export
dataset_column_types.cppestimators_csv_dataset <- function(dataset) {
  out <- NextMethod()
  spec <- dataset$record_spec
  keep <- spec$types != "skip"
  out[spec$names[keep]] <- spec$types[keep]
  out
}

#' @export
dataset_column_types.cppestimators_tfrecord_dataset <- function(dataset) {
  out <- NextMethod()
  for (n in names(dataset$features)) {
    dt <- as.character(dataset$features[[n]]$dtype %||% "float32")
    out[[n]] <- if (dt %in% c("int64", "int32")) "integer" else if (dt == "string") "character" else "double"
  }
  out
}
