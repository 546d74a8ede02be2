# Datasets of the rows of a SQL query, read through DBI a chunk at a time on
# R's main thread: sqlite_dataset() over an SQLite file (its own connection,
# opened for each pass and closed at the end of the pass), dbi_dataset()
# over a connection the caller owns. The engine reads them as an R source
# (kind "r", src/r_source_stream.cpp): a function fetching the next chunk
# and one starting the query again, with the columns' names and types fixed
# when the dataset is made.

#' A dataset of the rows of an SQL query
#'
#' Describes the rows a query returns, read through DBI a chunk at a time
#' (`DBI::dbFetch(res, n = chunk_size)`) so that the result need not fit in
#' memory. `sqlite_dataset()` reads an SQLite database file (opened read-only
#' with RSQLite, as tfdatasets' `sqlite_dataset()` does); `dbi_dataset()`
#' runs the query on any open DBI connection, which the caller keeps open
#' while the dataset is read and closes afterwards.
#'
#' The query runs once when the dataset is made, to learn its columns, and
#' again for every pass over the data (each [dataset_collect()], each
#' repetition of `dataset_repeat()`); its result is cleared at the end of a
#' pass or when the reading stops before it (and `sqlite_dataset()`'s
#' connection closed), else when it is garbage-collected.
#'
#' Columns: the query's column names, which must be distinct (name
#' expressions with `AS`). Their types are `"double"`, `"integer"`,
#' `"character"` or `"logical"`, taken from the first 1000 rows (a column
#' holding only `NULL` there takes its declared type, else `"double"`), or
#' from `record_spec`. Every chunk is converted to these types when that
#' loses nothing (integers where doubles are expected, whole numbers where
#' integers are, 0 and 1 where logicals are); any other change of type is an
#' error naming the column. `NULL` values are `NA`. Dates, times and BLOBs
#' are errors: convert them in the query (e.g. `CAST(x AS TEXT)`).
#'
#' @param filename The SQLite database file.
#' @param query The SQL query (a `SELECT`).
#' @param record_spec `NULL`, or a record spec from [csv_record_spec()]
#'   (e.g. `csv_record_spec(names = c("x", "y"), types = "di")`) naming the
#'   query's columns in order and fixing their types (`"skip"` leaves a
#'   column out); its defaults are not used.
#' @param chunk_size The number of rows fetched at a time.
#' @param conn An open DBI connection.
#' @return A dataset (class `cppestimators_sql_dataset`, inheriting from
#'   `cppestimators_dataset`).
#' @seealso [dataset_collect()], [text_line_dataset()].
#' @examples
#' if (requireNamespace("RSQLite", quietly = TRUE)) {
#'   db <- tempfile(fileext = ".sqlite")
#'   con <- DBI::dbConnect(RSQLite::SQLite(), db)
#'   DBI::dbWriteTable(con, "cars", datasets::mtcars[, c("mpg", "cyl", "wt")])
#'   DBI::dbDisconnect(con)
#'   ds <- sqlite_dataset(db, "SELECT mpg, cyl, wt FROM cars WHERE cyl > 4")
#'   print(ds)
#'   print(head(dataset_collect(ds)))
#'
#'   mem <- DBI::dbConnect(RSQLite::SQLite(), ":memory:")
#'   DBI::dbWriteTable(mem, "iris", datasets::iris)
#'   print(dataset_collect(dbi_dataset(mem, "SELECT Species, avg(\"Petal.Width\") AS w
#'                                           FROM iris GROUP BY Species")))
#'   DBI::dbDisconnect(mem)
#' }
#' @export
sqlite_dataset <- function(filename, query, record_spec = NULL, chunk_size = 10000L) {
  need_package("DBI", "sqlite_dataset()")
  need_package("RSQLite", "sqlite_dataset()")
  check_path(filename, "filename", exists = "file",
             message = sprintf("`filename`: no SQLite database at '%s'.", filename))
  new_sql_dataset(list(filename = normalizePath(filename), conn = NULL), query, record_spec,
                  chunk_size)
}

#' @rdname sqlite_dataset
#' @export
dbi_dataset <- function(conn, query, chunk_size = 10000L) {
  need_package("DBI", "dbi_dataset()")
  if (!inherits(conn, "DBIConnection") || !DBI::dbIsValid(conn)) {
    abort(sprintf("`conn` must be an open DBI connection, not %s.", describe(conn)))
  }
  new_sql_dataset(list(filename = NULL, conn = conn), query, NULL, chunk_size)
}

new_sql_dataset <- function(source, query, record_spec, chunk_size) {
  check_string(query, "query")
  if (!is.null(record_spec) && !inherits(record_spec, "cppestimators_record_spec")) {
    abort(sprintf("`record_spec` must be NULL or a record spec from csv_record_spec(), not %s.",
                  describe(record_spec)))
  }
  chunk_size <- check_whole(chunk_size, "chunk_size", min = 1, null_ok = FALSE,
                            max = .Machine$integer.max)
  dataset <- c(source, list(query = query, chunk_size = as.integer(chunk_size)))
  structure(c(dataset, sql_schema(dataset, record_spec), list(ops = list())),
            class = c("cppestimators_sql_dataset", "cppestimators_dataset"))
}

# The columns of the query: list(names, types, columns = the query's number
# of columns, keep = which of them the dataset reads).
sql_schema <- function(dataset, record_spec) {
  g <- sql_open(dataset)
  on.exit(sql_release(g))
  preview <- sql_query_error(DBI::dbFetch(g$res, n = if (is.null(record_spec)) 1000L else 0L))
  declared <- tryCatch(DBI::dbColumnInfo(g$res)$type, error = function(e) NULL)
  sqlite <- inherits(g$conn, "SQLiteConnection")
  found <- names(preview)
  if (length(found) == 0L) abort("The query returns no columns.")
  if (!is.null(record_spec)) {
    if (length(record_spec$names) != length(found)) {
      abort(sprintf("`record_spec` names %d columns but the query returns %d (%s).",
                    length(record_spec$names), length(found), paste(found, collapse = ", ")))
    }
    keep <- which(record_spec$types != "skip")
    return(list(names = record_spec$names[keep], types = record_spec$types[keep],
                columns = length(found), keep = keep))
  }
  if (anyNA(found) || !all(nzchar(found)) || anyDuplicated(found)) {
    abort(sprintf("The query's columns must have distinct names (name expressions with AS), not %s.",
                  paste0("'", found, "'", collapse = ", ")))
  }
  types <- vapply(seq_along(found), function(j) {
    sql_column_type(preview[[j]], found[j], declared[j], sqlite)
  }, "")
  list(names = found, types = types, columns = length(found), keep = seq_along(found))
}

# The dataset type of a column of the preview: a column of only NA (NULL)
# takes the type the database declares (SQLite declares "logical" for a
# column of unknown type), else "double".
sql_column_type <- function(x, name, declared, sqlite) {
  if (inherits(x, c("Date", "POSIXt", "difftime"))) {
    abort(sprintf(paste0("Column '%s' of the query is a %s: a dataset holds numbers, logicals and ",
                         "text; convert it in the query (e.g. CAST(%s AS TEXT))."),
                  name, class(x)[1], name))
  }
  if (is.factor(x)) return("character")
  if (inherits(x, "integer64")) return("double")
  type <- if (is.object(x)) "" else switch(typeof(x), double = "double", integer = "integer",
                                           logical = "logical", character = "character", "")
  if (!nzchar(type)) {
    abort(sprintf(paste0("Column '%s' of the query holds %s values (e.g. a BLOB): a dataset holds ",
                         "numbers, logicals and text."), name, class(x)[1]))
  }
  if (type == "logical" && all(is.na(x))) {
    declared <- switch(tolower(declared %||% ""), double = , numeric = , real = "double",
                       integer = "integer", character = , text = "character",
                       logical = if (sqlite) "double" else "logical", "double")
    type <- declared
  }
  type
}

# Runs `expr` (a DBI call on the query), giving its error the package's
# class and saying it is the query's.
sql_query_error <- function(expr) {
  tryCatch(expr, error = function(e) {
    if (inherits(e, "cppestimators_error")) stop(e)
    abort(paste0("The query failed: ", conditionMessage(e)), parent = e)
  })
}

# An open result of the dataset's query: an environment holding the
# connection (`owned`: opened here, for an SQLite file) and the result,
# both released by sql_release(), or when it is garbage-collected.
sql_open <- function(dataset) {
  g <- new.env(parent = emptyenv())
  g$owned <- is.null(dataset$conn)
  g$conn <- if (g$owned) {
    tryCatch(DBI::dbConnect(RSQLite::SQLite(), dataset$filename, flags = RSQLite::SQLITE_RO,
                            bigint = "numeric", synchronous = NULL),
             error = function(e) {
               abort(sprintf("Cannot open the SQLite database '%s': %s", dataset$filename,
                             conditionMessage(e)), parent = e)
             })
  } else {
    dataset$conn
  }
  g$res <- tryCatch(sql_query_error(DBI::dbSendQuery(g$conn, dataset$query)), error = function(e) {
    sql_release(g)
    stop(e)
  })
  # registered after the connection and the result were made, so that it
  # runs before their own finalizers when they are collected together
  reg.finalizer(g, sql_release, onexit = TRUE)
  g
}

sql_release <- function(g) {
  res <- g$res
  conn <- g$conn
  g$res <- NULL
  g$conn <- NULL
  # a result may have been closed already (by another query on the caller's
  # connection)
  quietly <- function(expr) invisible(tryCatch(suppressWarnings(expr), error = function(e) NULL))
  if (!is.null(res)) quietly(if (DBI::dbIsValid(res)) DBI::dbClearResult(res))
  if (isTRUE(g$owned) && !is.null(conn)) quietly(DBI::dbDisconnect(conn))
  invisible()
}

# A chunk as the engine reads it: the dataset's columns, by position, with
# 64-bit integers as doubles.
sql_chunk <- function(df, dataset) {
  if (length(df) != dataset$columns) {
    abort(sprintf("The query returned %d columns where it returned %d when the dataset was made.",
                  length(df), dataset$columns))
  }
  df <- unclass(df)[dataset$keep]
  read_columns(df, dataset$names, "column '%s' of the query")
}

#' @export
engine_source.cppestimators_sql_dataset <- function(dataset) {
  state <- new.env(parent = emptyenv())
  state$done <- FALSE
  close <- function() {
    g <- state$open
    state$open <- NULL
    if (!is.null(g)) sql_release(g)
  }
  next_chunk <- function(n) {
    if (state$done) return(NULL)
    if (is.null(state$open)) state$open <- sql_open(dataset)
    df <- tryCatch(sql_query_error(DBI::dbFetch(state$open$res, n = min(n, dataset$chunk_size))),
                   error = function(e) {
                     close()
                     stop(e)
                   })
    if (NROW(df) == 0L || DBI::dbHasCompleted(state$open$res)) {
      state$done <- TRUE
      close()
    }
    if (NROW(df) == 0L) NULL else sql_chunk(df, dataset)
  }
  rewind <- function() {
    close()
    state$done <- FALSE
    invisible()
  }
  # close(): the engine is done with the stream (its result is cleared now,
  # not when the stream is garbage-collected)
  list(kind = "r", next_chunk = next_chunk, rewind = rewind, close = close, names = dataset$names,
       types = dataset$types)
}

#' @export
dataset_names.cppestimators_sql_dataset <- function(dataset) dataset$names

#' @export
print.cppestimators_sql_dataset <- function(x, ...) {
  from <- if (is.null(x$conn)) {
    sprintf("SQLite database '%s'", basename(x$filename))
  } else {
    sprintf("a %s", class(x$conn)[1])
  }
  cat(sprintf("<SQL dataset: %s, %d column%s, chunks of %d rows>\n", from, length(x$names),
              if (length(x$names) == 1L) "" else "s", x$chunk_size))
  cat("  query:", gsub("\\s+", " ", trimws(x$query)), "\n")
  cat("  columns:", paste0(x$names, " <", x$types, ">", collapse = ", "), "\n")
  print_dataset_ops(x)
  invisible(x)
}
