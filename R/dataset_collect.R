# The generic shared by the streaming datasets (TFRecord, CSV).

#' Read a dataset into a data frame
#'
#' Reads the records of a dataset through the engine into a data frame, chunk by chunk. A [text_line_dataset()]
#' gives one column per column of its record spec (columns of type `"skip"`
#' left out); a [tfrecord_dataset()] one column per feature of its parse
#' spec, in the spec's order: a fixed-length feature of one value as a
#' vector, of several values as a matrix column, a variable-length feature
#' as a list column (one vector per record). `float32` features are doubles,
#' `int64` ones integers (a value outside R's integers is an error) and
#' `string` ones character vectors.
#'
#' @param dataset A dataset.
#' @param n The number of records to read at most (`Inf`: all; a dataset
#'   repeated forever by [dataset_repeat()] needs a finite `n`).
#' @param ... Unused.
#' @return A data frame.
#' @export
#' @examples
#' path <- tempfile(fileext = ".csv")
#' write.csv(data.frame(x = 1:5, g = c("a", "b", "a", "c", "b")), path, row.names = FALSE)
#' ds <- text_line_dataset(path, csv_record_spec(path))
#' dataset_collect(ds)
#' # at most n records
#' dataset_collect(ds, n = 2)
dataset_collect <- function(dataset, n = Inf, ...) UseMethod("dataset_collect")

#' @export
dataset_collect.default <- function(dataset, n = Inf, ...) {
  abort(paste0("`dataset` must be a dataset such as text_line_dataset() or tfrecord_dataset() returns, not ",
               describe(dataset), "."))
}
