# SQL queries as streaming datasets: sqlite_dataset(), dbi_dataset() and
# the R source they are read through (src/r_source_stream.cpp).

# An SQLite file of `rows` rows: an integer id, a double, a text column and
# an integer column, with NULLs in each.
sql_db <- function(rows = 50L) {
  path <- tempfile(fileext = ".sqlite")
  con <- DBI::dbConnect(RSQLite::SQLite(), path)
  on.exit(DBI::dbDisconnect(con))
  DBI::dbExecute(con, "CREATE TABLE t (id INTEGER, x REAL, s TEXT, k INTEGER)")
  i <- seq_len(rows)
  df <- data.frame(id = i, x = i / 4 - 3, s = c("a", "b", "caf\u00e9", "d e")[i %% 4 + 1], k = i %% 3L)
  df$x[i %% 9 == 0] <- NA
  df$s[i %% 11 == 0] <- NA
  df$k[i %% 5 == 0] <- NA
  DBI::dbAppendTable(con, "t", df)
  path
}

sql_get <- function(path, query) {
  con <- DBI::dbConnect(RSQLite::SQLite(), path)
  on.exit(DBI::dbDisconnect(con))
  DBI::dbGetQuery(con, query)
}

test_that("sqlite_dataset() reads what dbGetQuery() returns, in one chunk or many", {
  skip_if_not_installed("RSQLite")
  path <- sql_db(50L)
  query <- "SELECT id, x, s, k FROM t ORDER BY id"
  ref <- sql_get(path, query)
  ds <- sqlite_dataset(path, query)
  expect_s3_class(ds, c("cppestimators_sql_dataset", "cppestimators_dataset"), exact = TRUE)
  expect_identical(ds$names, c("id", "x", "s", "k"))
  expect_identical(ds$types, c("integer", "double", "character", "integer"))
  expect_identical(dataset_collect(ds), ref)
  small <- sqlite_dataset(path, query, chunk_size = 7)
  expect_identical(dataset_collect(small), ref)
  expect_identical(dataset_collect(small, chunk_size = 5), ref)
  expect_identical(dataset_collect(small, n = 10), ref[1:10, ])
  # NULLs are NA
  expect_identical(is.na(dataset_collect(small)$x), seq_len(50) %% 9 == 0)
  expect_identical(dataset_collect(small)$s[c(11, 22, 3)], c(NA, NA, "d e"))
  expect_identical(Encoding(dataset_collect(small)$s[2]), "UTF-8")
})

test_that("every collect runs the query again, and the dataset's passes rewind it", {
  skip_if_not_installed("RSQLite")
  path <- sql_db(50L)
  query <- "SELECT id, s FROM t WHERE id > 3 ORDER BY id"
  ref <- sql_get(path, query)
  ds <- sqlite_dataset(path, query, chunk_size = 7)
  expect_identical(dataset_collect(ds), ref)
  expect_identical(dataset_collect(ds), ref)
  # three passes through the engine's rewind()
  ds$ops <- list(list(kind = "repeat", count = 3))
  twice <- rbind(ref, ref, ref)
  rownames(twice) <- NULL
  expect_identical(dataset_collect(ds), twice)
  # a pass stopped after 10 rows, rewound mid-query
  ds$ops <- list(list(kind = "take", count = 10), list(kind = "repeat", count = 2))
  head2 <- rbind(ref[1:10, ], ref[1:10, ])
  rownames(head2) <- NULL
  expect_identical(dataset_collect(ds), head2)
  expect_no_warning(gc())
})

test_that("the columns' types come from the query or from a record spec", {
  skip_if_not_installed("RSQLite")
  path <- sql_db(30L)
  # a column of NULLs takes its declared type; an expression of NULLs is double
  ds <- sqlite_dataset(path, "SELECT id, NULL AS none, s FROM t WHERE k IS NULL OR id < 3")
  expect_identical(ds$types, c("integer", "double", "character"))
  out <- dataset_collect(ds)
  expect_identical(out$none, rep(NA_real_, nrow(out)))
  ds <- sqlite_dataset(path, "SELECT x FROM t WHERE x IS NULL")
  expect_identical(ds$types, "double")
  expect_identical(dataset_collect(ds)$x, rep(NA_real_, 3))
  # record_spec names the columns in order, fixes their types and skips some
  spec <- csv_record_spec(names = c("a", "b", "c", "d"), types = c("double", "skip", "character", "integer"))
  ds <- sqlite_dataset(path, "SELECT id, x, s, k FROM t", record_spec = spec, chunk_size = 4)
  expect_identical(dataset_names(ds), c("a", "c", "d"))
  ref <- sql_get(path, "SELECT id, s, k FROM t")
  out <- dataset_collect(ds)
  expect_identical(out, data.frame(a = as.double(ref$id), c = ref$s, d = ref$k))
  # 0/1 integers read as logical, whole doubles as integers
  spec <- csv_record_spec(names = c("flag", "whole"), types = "li")
  ds <- sqlite_dataset(path, "SELECT id % 2, id * 1.0 FROM t", record_spec = spec, chunk_size = 8)
  expect_identical(dataset_collect(ds), data.frame(flag = rep(c(TRUE, FALSE), 15), whole = 1:30))
  expect_snapshot(print(sqlite_dataset(path, "SELECT id, s\n  FROM t", chunk_size = 7)),
                  transform = function(x) sub("'file[^']*'", "'<db>'", x))
})

test_that("dbi_dataset() reads a query on an open connection, which it leaves open", {
  skip_if_not_installed("RSQLite")
  con <- DBI::dbConnect(RSQLite::SQLite(), ":memory:")
  on.exit(DBI::dbDisconnect(con))
  DBI::dbWriteTable(con, "iris", datasets::iris)
  query <- "SELECT Species, \"Sepal.Length\" AS len, \"Petal.Width\" * 2 AS w FROM iris"
  ds <- dbi_dataset(con, query, chunk_size = 16)
  expect_s3_class(ds, "cppestimators_sql_dataset")
  expect_identical(ds$types, c("character", "double", "double"))
  expect_identical(dataset_collect(ds), DBI::dbGetQuery(con, query))
  # stopped after 20 rows, the query's result is cleared at once
  first <- dataset_collect(ds, n = 20)
  expect_no_warning(expect_identical(first, DBI::dbGetQuery(con, paste(query, "LIMIT 20"))))
  expect_true(DBI::dbIsValid(con))
  expect_identical(nrow(DBI::dbGetQuery(con, "SELECT * FROM iris")), 150L)
  agg <- dbi_dataset(con, "SELECT Species, count(*) AS n FROM iris GROUP BY Species")
  expect_identical(dataset_collect(agg)$n, c(50L, 50L, 50L))
  expect_error(dbi_dataset(con, "SELECT x'00ff' AS b"), class = "cppestimators_error",
               regexp = "Column 'b' of the query holds blob values (e.g. a BLOB)", fixed = TRUE)
  # a backend's dates (RSQLite's extended_types)
  expect_error(cppestimators:::sql_column_type(as.Date("2024-03-01"), "day", "Date", FALSE),
               class = "cppestimators_error",
               regexp = "Column 'day' of the query is a Date: a dataset holds numbers, logicals and text",
               fixed = TRUE)
  expect_error(dbi_dataset("not a connection", "SELECT 1"), class = "cppestimators_error",
               regexp = "`conn` must be an open DBI connection, not character \"not a connection\"")
})

test_that("missing files, failing queries and wrong arguments are errors of the package", {
  skip_if_not_installed("RSQLite")
  path <- sql_db(10L)
  missing <- file.path(tempdir(), "no-such.sqlite")
  expect_error(sqlite_dataset(missing, "SELECT 1"), class = "cppestimators_error",
               regexp = "`filename`: no SQLite database at '.*no-such.sqlite'", fixed = FALSE)
  expect_false(file.exists(missing))
  expect_error(sqlite_dataset(path, "SELECT nope FROM t"), class = "cppestimators_error",
               regexp = "The query failed: no such column: nope", fixed = TRUE)
  expect_error(sqlite_dataset(path, "SELEKT 1"), class = "cppestimators_error",
               regexp = "The query failed: .*syntax error")
  expect_error(sqlite_dataset(path, "SELECT id, id FROM t"), class = "cppestimators_error",
               regexp = "distinct names")
  two <- csv_record_spec(names = c("a", "b"), types = "dd")
  expect_error(sqlite_dataset(path, "SELECT id FROM t", record_spec = two),
               class = "cppestimators_error", regexp = "`record_spec` names 2 columns but the query returns 1 (id).",
               fixed = TRUE)
  expect_error(sqlite_dataset(path, "SELECT id FROM t", chunk_size = 0), class = "cppestimators_error",
               regexp = "`chunk_size` must be >= 1")
  expect_error(sqlite_dataset(path, NA_character_), class = "cppestimators_error", regexp = "`query`")
  # a file that is not a database
  junk <- tempfile(fileext = ".sqlite")
  writeLines(strrep("not sqlite ", 100), junk)
  expect_error(sqlite_dataset(junk, "SELECT * FROM t"), class = "cppestimators_error",
               regexp = "The query failed: file is not a database")
  # the file removed after the dataset was made
  ds <- sqlite_dataset(path, "SELECT id FROM t")
  unlink(path)
  expect_error(dataset_collect(ds), class = "cppestimators_error",
               regexp = "Cannot open the SQLite database '.*': .*unable to open database file")
  # without the package
  expect_error(cppestimators:::need_package("cppestimatorsNoSuchPackage", "sqlite_dataset()"),
               class = "cppestimators_error",
               regexp = "sqlite_dataset() needs the 'cppestimatorsNoSuchPackage' package", fixed = TRUE)
})

test_that("a column that changes type after the first rows is an error naming it", {
  skip_if_not_installed("RSQLite")
  path <- tempfile(fileext = ".sqlite")
  con <- DBI::dbConnect(RSQLite::SQLite(), path)
  DBI::dbExecute(con, "CREATE TABLE m (i INTEGER, s TEXT)")
  DBI::dbAppendTable(con, "m", data.frame(i = 1:1100, s = as.character(1:1100)))
  DBI::dbExecute(con, "UPDATE m SET i = 2.5 WHERE i = 1050")
  DBI::dbDisconnect(con)
  # the first 1000 rows are integers; row 1050 is not
  ds <- sqlite_dataset(path, "SELECT i FROM m ORDER BY rowid", chunk_size = 100)
  expect_identical(ds$types, "integer")
  expect_error(dataset_collect(ds), class = "cppestimators_error",
               regexp = paste("column 'i' of the dataset: expected integer, got double with values that",
                              "are not integers (2.5 at row 1050)"),
               fixed = TRUE)
  # given as double, it is read
  spec <- csv_record_spec(names = "i", types = "double")
  ds <- sqlite_dataset(path, "SELECT i FROM m ORDER BY rowid", record_spec = spec, chunk_size = 100)
  expect_identical(dataset_collect(ds)$i[1049:1051], c(1049, 2.5, 1051))
  # text where the spec says integer
  spec <- csv_record_spec(names = "s", types = "i")
  ds <- sqlite_dataset(path, "SELECT s FROM m", record_spec = spec)
  expect_error(dataset_collect(ds), class = "cppestimators_error",
               regexp = "column 's' of the dataset: expected integer, got character", fixed = TRUE)
})

# An R source of the data frames `chunks` (then the end of each pass).
fake_source <- function(chunks, names, types, counter = new.env()) {
  counter$rewinds <- 0L
  counter$closes <- 0L
  counter$i <- 0L
  structure(list(chunks = chunks, names = names, types = types, counter = counter, ops = list()),
            class = c("cppestimators_fake_r_dataset", "cppestimators_dataset"))
}
registerS3method("engine_source", "cppestimators_fake_r_dataset", function(dataset) {
  counter <- dataset$counter
  list(kind = "r",
       next_chunk = function(n) {
         counter$i <- counter$i + 1L
         if (counter$i > length(dataset$chunks)) return(NULL)
         chunk <- dataset$chunks[[counter$i]]
         if (is.function(chunk)) chunk() else chunk
       },
       rewind = function() {
         counter$rewinds <- counter$rewinds + 1L
         counter$i <- 0L
       },
       close = function() counter$closes <- counter$closes + 1L,
       names = dataset$names, types = dataset$types)
}, envir = asNamespace("cppestimators"))

test_that("an R source converts its chunks to the dataset's types", {
  chunks <- list(
    data.frame(x = c(1.5, NA), n = c(1L, NA), b = c(TRUE, NA), s = c("a", NA)),
    data.frame(x = 2:3, n = c(4, NA), b = c(0L, 1L), s = factor(c("lev2", NA), levels = c("lev1", "lev2"))),
    data.frame(x = c(TRUE, NA), n = c(NA, NA), b = c(NA, NA), s = c(NA, NA)),
    list(x = NA_character_, n = NA_character_, b = NA_real_, s = NA)
  )
  ds <- fake_source(chunks, c("x", "n", "b", "s"), c("double", "integer", "logical", "character"))
  expect_identical(dataset_collect(ds),
                   data.frame(x = c(1.5, NA, 2, 3, 1, NA, NA), n = c(1L, NA, 4L, NA, NA, NA, NA),
                              b = c(TRUE, NA, FALSE, TRUE, NA, NA, NA), s = c("a", NA, "lev2", NA, NA, NA, NA)))
  # an empty source still has the schema's columns
  empty <- fake_source(list(), c("x", "s"), c("double", "character"))
  expect_identical(dataset_collect(empty), data.frame(x = double(), s = character()))
  # passes rewind the source
  counter <- new.env()
  ds <- fake_source(chunks[1:2], c("x", "n", "b", "s"), c("double", "integer", "logical", "character"), counter)
  ds$ops <- list(list(kind = "repeat", count = 3))
  expect_identical(nrow(dataset_collect(ds)), 12L)
  expect_identical(counter$rewinds, 2L)
  expect_identical(counter$closes, 1L)
  # a stream dropped before its end is closed
  counter <- new.env()
  ds <- fake_source(list(data.frame(x = 1), data.frame(x = 2)), "x", "double", counter)
  expect_identical(dataset_collect(ds, n = 1), data.frame(x = 1))
  expect_identical(c(counter$i, counter$closes), c(1L, 1L))
})

test_that("an R source's wrong chunks and R errors are errors of the package", {
  collect_one <- function(chunk, types = "double") {
    dataset_collect(fake_source(list(chunk), "x", types))
  }
  expect_error(collect_one(data.frame(x = "a")), class = "cppestimators_error",
               regexp = "column 'x' of the dataset: expected double, got character", fixed = TRUE)
  expect_error(collect_one(data.frame(x = c(1, 2.5)), "integer"), class = "cppestimators_error",
               regexp = "expected integer, got double with values that are not integers (2.5 at row 2)",
               fixed = TRUE)
  expect_error(collect_one(data.frame(x = 2^31), "integer"), class = "cppestimators_error",
               regexp = "not integers (2147483648 at row 1)", fixed = TRUE)
  expect_error(collect_one(data.frame(x = 2L), "logical"), class = "cppestimators_error",
               regexp = "expected logical, got integer with values other than 0 and 1 (2 at row 1)",
               fixed = TRUE)
  expect_error(collect_one(data.frame(x = factor("a"))), class = "cppestimators_error",
               regexp = "expected double, got factor", fixed = TRUE)
  expect_error(collect_one(data.frame(x = 1), "character"), class = "cppestimators_error",
               regexp = "expected character, got double", fixed = TRUE)
  expect_error(collect_one(data.frame(x = as.Date("2024-01-02"))), class = "cppestimators_error",
               regexp = "column 'x' of the dataset is a Date", fixed = TRUE)
  expect_error(collect_one(data.frame(x = as.POSIXct("2024-01-02", tz = "UTC"))),
               class = "cppestimators_error", regexp = "column 'x' of the dataset is a POSIXct", fixed = TRUE)
  expect_error(collect_one(data.frame(x = 1, y = 2)), class = "cppestimators_error",
               regexp = "a chunk of the dataset has 2 columns where its schema has 1 (x)", fixed = TRUE)
  expect_error(collect_one("x"), class = "cppestimators_error",
               regexp = "next_chunk() must return a data frame or NULL, not character", fixed = TRUE)
  expect_error(collect_one(data.frame(x = 1:10 + 0)), NA)
  expect_error(dataset_collect(fake_source(list(data.frame(x = 1:10 + 0)), "x", "double"), chunk_size = 4),
               class = "cppestimators_error", regexp = "next_chunk(4) returned 10 rows", fixed = TRUE)
  # an R error in the callback reaches R as that error, with the package's class
  boom <- function() stop("the database went away")
  expect_error(collect_one(boom), class = "cppestimators_error", regexp = "the database went away")
  cnd <- tryCatch(collect_one(function() rlang::abort("typed", class = "my_db_error")), error = identity)
  expect_s3_class(cnd, "my_db_error")
  expect_s3_class(cnd, "cppestimators_error")
  # after an error the next collect works
  expect_identical(collect_one(data.frame(x = 1)), data.frame(x = 1))
})
