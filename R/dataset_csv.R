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
#' types and the values that fill missing fields, as tfdatasets'
#' `csv_record_spec()` does. Names and types that are not given are read
#' from the first 1000 rows of `example_file`.
#'
#' Fields follow RFC 4180: a field in double quotes may hold delimiters,
#' line breaks and doubled quotes (`""` for one `"`); lines may end in
#' `\n` or `\r\n` and the last one needs no line break. Blank lines are
#' skipped. Numeric and logical fields may carry blanks around the value;
#' logical fields read `TRUE`/`FALSE` (also `True`, `true`, `T`, `1` and
#' their negatives). Text is taken as UTF-8 (a leading byte order mark is
#' dropped).
#'
#' @section Missing values:
#' A field is missing when it is one of the `na` strings (by default an
#' empty field or `NA`, as [utils::write.csv()] writes a missing value): a
#' numeric or logical field without its blanks, quoted or not; a character
#' field only unquoted (`"NA"` in quotes is the text `NA`). Missing fields
#' do not change the guessed type of a column (a column of numbers and `NA`
#' is numeric; one with no values at all is read as double).
#'
#' A missing value in a numeric or logical column is an error naming the
#' file, the line and the column, unless `defaults` gives the column a
#' value, which then fills it: a missing number never becomes 0 silently.
#' A missing value in a character column is `NA` (a missing category, not
#' the text `NA` or `""`) unless `defaults` gives the column a string.
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
#' @param defaults A list with one value per column filling its missing
#'   fields (e.g. `list(0, 0, 0L, "")`); each value also gives the column's
#'   type unless `types` does. `NA` gives no default and leaves the type to
#'   be guessed from `example_file` (a typed `NA`, such as `NA_real_`, gives
#'   its type): a missing field is then an error in a numeric or logical
#'   column and `NA` in a character one. `NULL` makes a missing field an
#'   error in any column, its type guessed when `types` is not given.
#'   `NULL` (the whole argument): no defaults, as if every value were `NA`.
#' @param delim The character separating fields (default `","`).
#' @param na The strings that stand for a missing value, as in
#'   `readr::read_csv()`: by default `c("", "NA")`; `character()` makes no
#'   field missing (an empty field is then an empty string, and an error in
#'   a numeric column). Used both to guess the types and to read the files.
#' @return A record spec (class `cppestimators_record_spec`) for
#'   [text_line_dataset()].
#' @seealso [text_line_dataset()], [dataset_collect()].
#' @examples
#' f <- tempfile(fileext = ".csv")
#' writeLines(c("x,y,label", "1.5,2,a", ",3,\"b, c\""), f)
#' spec <- csv_record_spec(f)
#' spec
#' # x is missing on line 3 and has no default: an error naming file and line
#' try(dataset_collect(text_line_dataset(f, spec)))
#' # a default for x (NA: no default, the type guessed from the file)
#' spec <- csv_record_spec(f, defaults = list(0, NA, NA))
#' dataset_collect(text_line_dataset(f, spec))
#'
#' # a file written by write.csv(), which writes a missing number as NA
#' g <- tempfile(fileext = ".csv")
#' write.csv(data.frame(x = c(1.5, NA, 3), s = c("a", NA, "NA")), g, row.names = FALSE)
#' csv_record_spec(g)  # x is a double, NA a missing value
#' dataset_collect(text_line_dataset(g, csv_record_spec(g, defaults = list(-1, NA))))
#' # other texts for a missing value
#' h <- tempfile(fileext = ".csv")
#' writeLines(c("x,s", "1,a", "?,b", "3,"), h)
#' dataset_collect(text_line_dataset(h, csv_record_spec(h, na = c("?", ""), defaults = list(-1, NA))))
#' @export
csv_record_spec <- function(example_file, skip = 0, names = NULL, types = NULL, defaults = NULL,
                            delim = ",", na = c("", "NA")) {
  check_string(delim, "delim")
  if (!is.character(na) || anyNA(na)) {
    abort(sprintf("`na` must be a character vector of the strings that mean a missing value, not %s.",
                  describe(na)))
  }
  na <- unique(enc2utf8(na))
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
  # columns whose type is guessed: all when neither `types` nor `defaults`
  # is given, else those whose default is NULL or NA
  guess <- is.null(types) && (is.null(defaults) || any(vapply(defaults, csv_guessed_default, TRUE)))
  preview <- NULL
  if (is.null(names) || guess) {
    if (missing(example_file)) {
      abort(if (!is.null(names) && !is.null(defaults)) {
        paste0("`example_file` must be given to guess the type of a column whose default is NA or NULL ",
               "(or give `types`, or a typed default such as NA_real_).")
      } else {
        "`example_file` must be given unless `names` and `types` (or `defaults`) are."
      })
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
                        na.strings = na)
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
  } else {
    guessed <- if (guess) vapply(preview, csv_guess_type, "", USE.NAMES = FALSE)
    if (is.null(defaults)) {
      guessed
    } else {
      vapply(seq_len(n), function(j) {
        if (csv_guessed_default(defaults[[j]])) guessed[j] else csv_type_of(csv_unwrap(defaults[[j]]))
      }, "")
    }
  }
  if (length(types) != n) {
    abort(sprintf("`types` gives %d types for %d columns.", length(types), n))
  }
  if (all(types == "skip")) abort("`types`: every column is \"skip\"; keep at least one.")
  defaults <- resolve_csv_defaults(defaults, types, names)
  structure(list(names = names, types = unname(types), defaults = defaults, skip = skip,
                 header = header, delim = delim, na = na),
            class = "cppestimators_record_spec")
}

# A default given as list(value) is the value.
csv_unwrap <- function(d) if (is.list(d) && length(d) == 1L) d[[1]] else d

# Whether a column's default leaves its type to the example file: NULL (no
# default) or a bare NA (logical NA: "no default", not "a logical column").
csv_guessed_default <- function(d) {
  d <- csv_unwrap(d)
  is.null(d) || (is.logical(d) && length(d) == 1L && is.na(d))
}

# The type of a column of the preview, read with the `na` strings as NA: a
# column with no values at all (read.csv's logical NA) is taken as double.
csv_guess_type <- function(x) {
  if (is.logical(x) && all(is.na(x))) "double" else csv_type_of(x)
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

# The defaults the reader takes: NULL for a column without one (a missing
# field is an error), NA_character_ for a character column whose missing
# fields are NA. An NA default is no default.
resolve_csv_defaults <- function(defaults, types, names) {
  n <- length(types)
  if (is.null(defaults)) {
    return(lapply(unname(types), function(t) if (t == "character") NA_character_))
  }
  if (length(defaults) != n) {
    abort(sprintf("`defaults` gives %d values for %d columns.", length(defaults), n))
  }
  out <- vector("list", n)
  for (j in seq_len(n)) {
    d <- csv_unwrap(defaults[[j]])
    if (is.null(d) || types[j] == "skip") next
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
    # NA: no default; in a character column a missing field is then NA
    if (is.na(v) && types[j] != "character") next
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
    if (is.character(d) && is.na(d)) return("NA when missing")
    paste0("default ", if (is.character(d)) paste0('"', d, '"') else format(d))
  }, "")
  defaults[x$types == "skip"] <- "left out"
  cat(paste0("  ", x$names, " <", x$types, "> ", defaults, collapse = "\n"), "\n", sep = "")
  na <- x$na %||% ""
  cat("  missing values:", if (length(na)) paste0('"', na, '"', collapse = ", ") else "none", "\n")
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
    spec$defaults, spec$na %||% "", spec$skip, spec$delim, spec$header, threads, block
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
