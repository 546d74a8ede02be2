# TFRecord files of tf.train.Example records: write_tfrecord() writes a data
# frame, tfrecord_dataset() describes files to stream back through the engine
# (data/example_reader.h) with a parse spec.

#' Write a data frame as TFRecord examples
#'
#' Writes each row of `data` as one `tf.train.Example` record of a TFRecord
#' file, one feature per column: a numeric column as a `float_list`
#' (float32: values are rounded to single precision), an integer or logical
#' column as an `int64_list`, a character or factor column as a `bytes_list`
#' (UTF-8; a factor writes its levels). A list column of atomic vectors writes
#' a feature of each element's values (read it with a [var_len_feature()],
#' or a [fixed_len_feature()] when every row has the same number): a vector
#' of length 0 writes the feature with no values, `NULL` leaves it out.
#'
#' Missing values: a feature whose value is `NA` in a row is left out of that
#' row's record (as TensorFlow represents a missing feature); reading it back
#' gives the `default_value` of a [fixed_len_feature()] (an error without
#' one) or no values of a [var_len_feature()]. A list element holding `NA`
#' is an error.
#'
#' The file is written whole to a temporary file beside `path` and renamed
#' over it: an error or a crash leaves the old file (or none), never a
#' half-written one.
#'
#' @param data A data frame.
#' @param path The file to write.
#' @return `path`, invisibly.
#' @seealso [tfrecord_dataset()] to read the file.
#' @examples
#' path <- tempfile(fileext = ".tfrecord")
#' write_tfrecord(data.frame(x = c(1.5, 2), g = c("a", NA)), path)
#' ds <- tfrecord_dataset(path, list(x = fixed_len_feature(1, "float32"),
#'                                   g = var_len_feature("string")))
#' dataset_collect(ds)
#' @export
write_tfrecord <- function(data, path) {
  if (!is.data.frame(data)) abort(paste0("`data` must be a data frame, not ", describe(data), "."))
  check_string(path, "path", must = "a file path")
  nm <- names(data)
  if (anyDuplicated(nm) || any(!nzchar(nm))) abort("The columns of `data` must have unique, non-empty names.")
  cols <- lapply(seq_along(data), function(j) {
    x <- data[[j]]
    if (is.list(x) && !is.object(x)) {
      ok <- vapply(x, function(e) {
        is.null(e) || (is.atomic(e) && is.null(dim(e)) &&
                         (is.numeric(e) || is.logical(e) || is.character(e) || is.factor(e)))
      }, NA)
      if (!all(ok)) abort(sprintf("List column '%s' must hold atomic vectors (row %d does not).", nm[j], which(!ok)[1]))
      return(x)
    }
    if (!is.null(dim(x)) || !(is.numeric(x) || is.logical(x) || is.character(x) || is.factor(x))) {
      abort(sprintf("Column '%s' must be numeric, integer, logical, character, a factor or a list, not %s.",
                    nm[j], describe(x)))
    }
    if (is.double(x)) x <- as.double(x)
    x
  })
  names(cols) <- nm
  with_error_class(cpp_write_tfrecord(cols, path.expand(path)))
  invisible(path)
}

#' A dataset of TFRecord files
#'
#' Describes TFRecord files of `tf.train.Example` records and how to parse
#' them, without reading them: the engine streams the records, file after
#' file, `chunk_size` records at a time (so files larger than memory can be
#' read), checking each record's CRCs. [dataset_collect()] reads them into a
#' data frame.
#'
#' @param filenames The files, read in this order.
#' @param features The parse spec: a named list of [fixed_len_feature()] and
#'   [var_len_feature()] objects, such as [classifier_parse_example_spec()]
#'   returns. Features of the records that the spec does not name are skipped.
#' @param chunk_size The number of records the engine parses at a time.
#' @return An object of class `cppestimators_tfrecord_dataset` (and
#'   `cppestimators_dataset`).
#' @seealso [write_tfrecord()]
#' @export
#' @examples
#' path <- tempfile(fileext = ".tfrecord")
#' write_tfrecord(data.frame(x = c(0.5, 1.5, 2.5), label = c(0L, 1L, 1L)), path)
#' ds <- tfrecord_dataset(path, list(x = fixed_len_feature(1, "float32"),
#'                                   label = fixed_len_feature(1, "int64")))
#' ds
#' dataset_collect(ds)
tfrecord_dataset <- function(filenames, features, chunk_size = 1024L) {
  if (!is.character(filenames) || length(filenames) == 0L || anyNA(filenames)) {
    abort(paste0("`filenames` must be a character vector of files, not ", describe(filenames), "."))
  }
  if (missing(features)) {
    # a TFRecord file holds no schema: the records are parsed by the spec
    abort(paste("tfrecord_dataset() needs `features`, the parse spec of the records (TFRecord files do not",
                "describe their features): a named list of fixed_len_feature() and var_len_feature() objects,",
                "e.g. features = list(x = fixed_len_feature(1, \"float32\"), g = var_len_feature(\"string\")), or",
                "the spec of an estimator's feature columns from make_parse_example_spec(),",
                "classifier_parse_example_spec() or regressor_parse_example_spec()."),
          class = "cppestimators_missing_argument")
  }
  check_features_spec(features)
  chunk_size <- check_whole(chunk_size, "chunk_size", min = 1, null_ok = FALSE, max = .Machine$integer.max)
  structure(list(filenames = path.expand(filenames), features = new_parse_spec(unclass(features)),
                 chunk_size = as.integer(chunk_size)),
            class = c("cppestimators_tfrecord_dataset", "cppestimators_dataset"))
}

check_features_spec <- function(features) {
  ok <- is.list(features) && length(features) > 0L && !is.null(names(features)) &&
    all(nzchar(names(features))) && !anyDuplicated(names(features)) &&
    all(vapply(features, inherits, NA, "cppestimators_parse_feature"))
  if (!ok) {
    abort(paste0("`features` must be a named list of fixed_len_feature() and var_len_feature() objects, not ",
                 describe(features), "."))
  }
  invisible(features)
}

#' @export
print.cppestimators_tfrecord_dataset <- function(x, ...) {
  n <- length(x$filenames)
  cat(sprintf("<tfrecord dataset> %d file%s, %d feature%s, chunks of %d records\n", n, if (n != 1L) "s" else "",
              length(x$features), if (length(x$features) != 1L) "s" else "", x$chunk_size))
  shown <- utils::head(x$filenames, 5L)
  for (f in shown) cat("  ", f, "\n", sep = "")
  if (n > length(shown)) cat("  ... and ", n - length(shown), " more\n", sep = "")
  for (k in names(x$features)) cat("  ", k, ": ", format(x$features[[k]]), "\n", sep = "")
  print_dataset_ops(x)
}

# The spec as the engine takes it (glue_tfrecord.cpp).
engine_parse_spec <- function(features) {
  unname(Map(function(key, f) {
    kind <- switch(f$dtype, string = "string", int64 = , int32 = "int64", "float")
    var_len <- inherits(f, "cppestimators_var_len_feature")
    list(key = key, kind = kind, var_len = var_len, width = if (var_len) 1L else as.integer(prod(f$shape)),
         default = if (var_len) NULL else f$default_value)
  }, names(features), features))
}

