# Delimited text files read as a stream of chunks by the engine's CSV reader
# (inst/include/cppestimators/data/csv_reader.h), described as tfdatasets
# describes them: a record spec (names, types, defaults) from
# csv_record_spec(), and a dataset of files from text_line_dataset().

csv_types <- c("integer", "double", "character", "logical", "skip")
csv_type_letters <- c(i = "integer", d = "double", c = "character", l = "logical", "_" = "skip")

# The column type of an R value (a default, a column of the preview).
csv_type_of <- function(x) {
  switch(typeof(x), integer = "integer", double = "double", logical = "logical", "character")
}

#' Specification for reading records from delimited text files
#'
#' Describes the columns of CSV (or other delimited) files: their names,
#' types and the values that fill empty fields, as tfdatasets'
#' `csv_record_spec()` does. Names and types that are not given are read
#' from the first 1000 rows of `example_file`.
#'
#' Fields follow RFC 4180: a field in double quotes may hold delimiters,
#' line breaks and doubled quotes (`""` for one `"`); lines may end in
#' `\n` or `\r\n` and the last one needs no line break. Blank lines are
#' skipped. Numeric and logical fields may carry blanks around the value;
#' logical fields read `TRUE`/`FALSE` (also `True`, `true`, `T`, `1` and
#' their negatives). Text is taken as UTF-8 (a leading byte order mark is
#' dropped). Only an empty field is missing: `"NA"` is text in a character
#' column and an error in a numeric one.
#'
#' @param example_file A file with records like those to be read; needed
#'   unless `names` and `types` (or `defaults`) are given.
#' @param skip Number of lines to skip at the top of each file before its
#'   header (or before the data when `names` is given).
#' @param names Column names, or `NULL` to read them from the first line
#'   (after `skip`) of `example_file`; that line is then skipped in every
#'   file. When `names` is given every line after `skip` is data: if the
#'   files have a header, skip it with `skip = 1`.
#' @param types Column types: a character vector of `"integer"`,
#'   `"double"`, `"character"`, `"logical"` or `"skip"` (a column left out
#'   of the data), or one string of letters, one per column (`i`, `d`, `c`,
#'   `l`, `_`), e.g. `"ddic"`. `NULL`: taken from `defaults`, or guessed from
#'   `example_file`.
#' @param defaults A list with one value per column filling its empty
#'   fields (e.g. `list(0, 0, 0L, "")`); `NA` fills them with `NA`, and
#'   `NULL` makes an empty field an error. `NULL` (the whole argument): `0`,
#'   `0L`, `FALSE` or `""` according to the type.
#' @param delim The character separating fields (default `","`).
#' @return A record spec (class `cppestimators_record_spec`) for
#'   [text_line_dataset()].
#' @seealso [text_line_dataset()], [dataset_collect()].
#' @examples
#' f <- tempfile(fileext = ".csv")
#' writeLines(c("x,y,label", "1.5,2,a", ",3,\"b, c\""), f)
#' spec <- csv_record_spec(f)
#' spec
#' dataset_collect(text_line_dataset(f, spec))
#' @export
csv_record_spec <- function(example_file, skip = 0, names = NULL, types = NULL, defaults = NULL,
                            delim = ",") {
  check_string(delim, "delim")
  if (nchar(delim, type = "bytes") != 1L || delim %in% c("\"", "\n", "\r")) {
    abort(sprintf("`delim` must be a single character other than a quote or a line break, not \"%s\".",
                  delim))
  }
  skip <- check_whole(skip, "skip", min = 0, null_ok = FALSE)
  if (!is.null(names) && (!is.character(names) || length(names) == 0L || anyNA(names) ||
                          !all(nzchar(names)) || anyDuplicated(names))) {
    abort(sprintf("`names` must be NULL or a character vector of distinct, non-empty names, not %s.",
                  describe(names)))
  }
  if (!is.null(defaults) && !is.list(defaults)) defaults <- as.list(defaults)
  preview <- NULL
  if (is.null(names) || (is.null(types) && is.null(defaults))) {
    if (missing(example_file)) {
      abort("`example_file` must be given unless `names` and `types` (or `defaults`) are.")
    }
    check_path(example_file, "example_file", exists = "file")
    # With types given only the header is read (the data may be what the
    # reader is to report on); otherwise the first 1000 rows, for the types.
    preview <- tryCatch(suppressWarnings(
      if (!is.null(types)) {
        utils::read.csv(text = readLines(example_file, n = skip + 1)[skip + 1], sep = delim,
                        comment.char = "", check.names = FALSE, colClasses = "character")
      } else {
        utils::read.csv(example_file, header = is.null(names), sep = delim, skip = skip, nrows = 1000,
                        comment.char = "", stringsAsFactors = FALSE, check.names = FALSE,
                        na.strings = character())
      }),
      error = function(e) {
        abort(sprintf("`example_file`: cannot read '%s': %s", example_file, conditionMessage(e)))
      }
    )
  }
  header <- is.null(names)
  if (header) names <- base::names(preview)
  n <- length(names)
  if (!is.null(preview) && ncol(preview) != n) {
    abort(sprintf("`names` has %d names but `example_file` has %d columns.", n, ncol(preview)))
  }
  if (!is.null(defaults) && length(defaults) != n) {
    abort(sprintf("`defaults` gives %d values for %d columns.", length(defaults), n))
  }
  types <- if (!is.null(types)) {
    resolve_csv_types(types, n)
  } else if (!is.null(defaults)) {
    vapply(defaults, function(d) {
      if (is.null(d)) abort("`types` must be given when `defaults` holds NULL (a column without a default).")
      csv_type_of(d)
    }, "", USE.NAMES = FALSE)
  } else {
    vapply(preview, csv_type_of, "", USE.NAMES = FALSE)
  }
  if (length(types) != n) {
    abort(sprintf("`types` gives %d types for %d columns.", length(types), n))
  }
  if (all(types == "skip")) abort("`types`: every column is \"skip\"; keep at least one.")
  defaults <- resolve_csv_defaults(defaults, types, names)
  structure(list(names = names, types = unname(types), defaults = defaults, skip = skip,
                 header = header, delim = delim),
            class = "cppestimators_record_spec")
}

resolve_csv_types <- function(types, n) {
  if (!is.character(types) || anyNA(types)) {
    abort(sprintf("`types` must be a character vector of column types, not %s.", describe(types)))
  }
  types <- tolower(types)
  if (length(types) == 1L && n != 1L && grepl("^[idcl_]+$", types)) types <- strsplit(types, "")[[1]]
  if (n == 1L && types %in% names(csv_type_letters)) types <- csv_type_letters[[types]]
  short <- types %in% names(csv_type_letters) & nchar(types) == 1L
  types[short] <- csv_type_letters[types[short]]
  bad <- setdiff(types, csv_types)
  if (length(bad)) {
    abort(sprintf(paste0("`types`: unknown column type \"%s\"; the types are %s ",
                         "(or one string of the letters i, d, c, l and _)."),
                  bad[1], or_list(paste0('"', csv_types, '"'))))
  }
  unname(types)
}

resolve_csv_defaults <- function(defaults, types, names) {
  n <- length(types)
  if (is.null(defaults)) {
    return(lapply(unname(types), function(t) {
      switch(t, integer = 0L, double = 0, logical = FALSE, character = "", skip = NULL)
    }))
  }
  if (length(defaults) != n) {
    abort(sprintf("`defaults` gives %d values for %d columns.", length(defaults), n))
  }
  out <- vector("list", n)
  for (j in seq_len(n)) {
    d <- defaults[[j]]
    if (is.null(d) || types[j] == "skip") next
    if (is.list(d) && length(d) == 1L) d <- d[[1]]
    if (length(d) != 1L || !is.atomic(d)) {
      abort(sprintf("`defaults`: the default of column '%s' must be a single value or NULL, not %s.",
                    names[j], describe(d)))
    }
    v <- suppressWarnings(switch(types[j], integer = as.integer(d), double = as.double(d),
                                 logical = as.logical(d), character = as.character(d)))
    if (is.na(v) && !is.na(d)) {
      abort(sprintf("`defaults`: the default of column '%s' (%s) is not %s.", names[j],
                    format(d), switch(types[j], integer = "an integer", double = "a number",
                                      logical = "TRUE or FALSE", "a string")))
    }
    out[j] <- list(v)
  }
  out
}

#' @export
print.cppestimators_record_spec <- function(x, ...) {
  cat(sprintf("<record spec: %d columns, delimiter \"%s\"%s%s>\n", length(x$names), x$delim,
              if (x$header) ", header" else "",
              if (x$skip > 0) sprintf(", %g lines skipped", x$skip) else ""))
  defaults <- vapply(x$defaults, function(d) {
    if (is.null(d)) return("required")
    paste0("default ", if (is.character(d) && !is.na(d)) paste0('"', d, '"') else format(d))
  }, "")
  defaults[x$types == "skip"] <- "left out"
  cat(paste0("  ", x$names, " <", x$types, "> ", defaults, collapse = "\n"), "\n", sep = "")
  invisible(x)
}

#' A dataset of records read from delimited text files
#'
#' Describes, lazily, the records of one or more CSV files read in order
#' with a [csv_record_spec()]; nothing is read until the dataset is used
#' (e.g. by [dataset_collect()]). The files are read in large blocks and
#' parsed by the engine's threads, so that they need not fit in memory.
#'
#' @param filenames Paths of the files, read in this order; each has the
#'   spec's skipped lines and header.
#' @param record_spec A record spec from [csv_record_spec()].
#' @param parallel_records Threads parsing each block of records; `NULL`:
#'   `getOption("cppestimators.threads")` (default 2).
#' @return A dataset (class `cppestimators_csv_dataset`, inheriting from
#'   `cppestimators_dataset`).
#' @seealso [dataset_collect()].
#' @export
#' @examples
#' path <- tempfile(fileext = ".csv")
#' write.csv(mtcars[, c("mpg", "drat", "cyl")], path, row.names = FALSE)
#' ds <- text_line_dataset(path, csv_record_spec(path))
#' ds
#' head(dataset_collect(ds))
#' # an input function streaming the file in batches of 8
#' input_fn(ds, features = c(drat, cyl), response = mpg, batch_size = 8)
text_line_dataset <- function(filenames, record_spec, parallel_records = NULL) {
  if (!is.character(filenames) || length(filenames) == 0L || anyNA(filenames)) {
    abort(sprintf("`filenames` must be a character vector of file paths, not %s.", describe(filenames)))
  }
  for (f in filenames) check_path(f, "filenames", exists = "file")
  if (!inherits(record_spec, "cppestimators_record_spec")) {
    abort(sprintf("`record_spec` must be a record spec from csv_record_spec(), not %s.",
                  describe(record_spec)))
  }
  parallel_records <- check_whole(parallel_records, "parallel_records", min = 1, max = 1024)
  structure(list(filenames = normalizePath(filenames), record_spec = record_spec,
                 parallel_records = parallel_records),
            class = c("cppestimators_csv_dataset", "cppestimators_dataset"))
}

#' @export
print.cppestimators_csv_dataset <- function(x, ...) {
  spec <- x$record_spec
  keep <- spec$types != "skip"
  cat(sprintf("<CSV dataset: %d file%s, %d columns>\n", length(x$filenames),
              if (length(x$filenames) == 1L) "" else "s", sum(keep)))
  cat("  files:", paste(basename(x$filenames), collapse = ", "), "\n")
  cat("  columns:", paste0(spec$names[keep], " <", spec$types[keep], ">", collapse = ", "), "\n")
  print_dataset_ops(x)
}

# An iterator over a dataset's chunks: next(n) gives the next chunk of up to
# n rows as a named list of vectors (NULL at the end), rewind() starts over.
dataset_chunks <- function(dataset) {
  spec <- dataset$record_spec
  threads <- if (is.null(dataset$parallel_records)) engine_threads() else as.integer(dataset$parallel_records)
  block <- getOption("cppestimators.csv_block_size", 8 * 2^20)
  reader <- with_error_class(cpp_csv_reader_new(
    dataset$filenames, if (spec$header) rep("", length(spec$names)) else spec$names, spec$types,
    spec$defaults, spec$skip, spec$delim, spec$header, threads, block
  ))
  list(
    next_chunk = function(n) {
      out <- with_error_class(cpp_csv_reader_next(reader, n))
      if (!is.null(out) && spec$header) names(out) <- spec$names[spec$types != "skip"]
      out
    },
    rewind = function() cpp_csv_reader_rewind(reader),
    count = function(n) with_error_class(cpp_csv_reader_count(reader, n))
  )
}
