# The streaming CSV reader through csv_record_spec(), text_line_dataset()
# and dataset_collect().

write_bytes <- function(text) {
  path <- tempfile(fileext = ".csv")
  writeBin(charToRaw(text), path)
  path
}

collect <- function(files, spec = csv_record_spec(files[1]), ...) {
  dataset_collect(text_line_dataset(files, spec), ...)
}

test_that("names and types come from the example file and values match read.csv", {
  f <- write_bytes("x,n,s,b\n1.5,2,a,TRUE\n-2e3,-7,b,FALSE\n0.25,10,c,TRUE\n")
  spec <- csv_record_spec(f)
  expect_equal(spec$names, c("x", "n", "s", "b"))
  expect_equal(spec$types, c("double", "integer", "character", "logical"))
  expect_identical(spec$defaults, list(NULL, NULL, NA_character_, NULL))
  expect_identical(collect(f, spec), utils::read.csv(f, stringsAsFactors = FALSE))
})

test_that("quoted fields hold delimiters, doubled quotes and newlines", {
  f <- write_bytes(paste0("id,text,v\n",
                          "1,\"a, b\",1\n",
                          "2,\"she said \"\"hi\"\"\",2\n",
                          "3,\"two\nlines\",3\n",
                          "4,\"\",4\n",
                          "5,plain,5\n"))
  out <- collect(f, csv_record_spec(f, types = "icd"))
  expect_identical(out$text, c("a, b", "she said \"hi\"", "two\nlines", "", "plain"))
  expect_identical(out$v, c(1, 2, 3, 4, 5))
  expect_identical(out, utils::read.csv(f, stringsAsFactors = FALSE, colClasses = c("integer", "character", "numeric")))
})

test_that("CRLF line ends, a last line without newline and blank lines", {
  f <- write_bytes("a,b\r\n1,x\r\n\r\n2,\"y\r\nz\"\r\n3,w")
  out <- collect(f, csv_record_spec(f, types = "ic"))
  expect_identical(out$a, 1:3)
  expect_identical(out$b, c("x", "y\r\nz", "w"))
})

test_that("a UTF-8 byte order mark is dropped", {
  f <- tempfile(fileext = ".csv")
  writeBin(c(as.raw(c(0xef, 0xbb, 0xbf)), charToRaw("a,b\n1,caf\u00e9\n")), f)
  out <- collect(c(f, f), csv_record_spec(names = c("a", "b"), types = "ic", skip = 1))
  expect_identical(out, data.frame(a = c(1L, 1L), b = c("caf\u00e9", "caf\u00e9")))
})

test_that("empty fields take the spec's defaults", {
  f <- write_bytes("x,n,s,b\n,,,\n2,3,t,TRUE\n")
  out <- collect(f, csv_record_spec(f, types = "dicl", defaults = list(0, 0L, "", FALSE)))
  expect_identical(out, data.frame(x = c(0, 2), n = c(0L, 3L), s = c("", "t"), b = c(FALSE, TRUE)))
  spec <- csv_record_spec(f, types = "dicl", defaults = list(-1, 7L, "none", TRUE))
  out <- collect(f, spec)
  expect_identical(out$x, c(-1, 2))
  expect_identical(out$n, c(7L, 3L))
  expect_identical(out$s, c("none", "t"))
  expect_identical(out$b, c(TRUE, TRUE))
  # NA is no default: a missing number is an error, a missing string NA
  spec <- csv_record_spec(f, types = "dicl", defaults = list(1, 1L, NA, TRUE))
  expect_identical(collect(f, spec)$s, c(NA, "t"))
  for (j in c(1, 2, 4)) {
    d <- list(1, 1L, NA, TRUE)
    d[j] <- list(NA)
    expect_error(collect(f, csv_record_spec(f, types = "dicl", defaults = d)), class = "cppestimators_error",
                 regexp = sprintf(":2: column '%s' is missing \\(an empty field\\)", c("x", "n", "s", "b")[j]))
  }
})

test_that("an empty field without a default is an error naming file and line", {
  f <- write_bytes("x,y\n1,2\n3,\n")
  spec <- csv_record_spec(f, types = "dd", defaults = list(0, NULL))
  expect_output(print(spec), "y <double> required")
  expect_error(collect(f, spec), class = "cppestimators_error",
               regexp = paste0(basename(f), ":3: column 'y' is missing \\(an empty field\\) and has no default"))
})

test_that("a wrong field count or a bad number is an error naming file and line", {
  f <- write_bytes("x,y\n1,2\n3\n")
  expect_error(collect(f, csv_record_spec(f, types = "dd")), class = "cppestimators_error",
               regexp = ":3: expected 2 fields, found 1")
  f <- write_bytes("x,y\n1,\"a\nb\"\n1,2,3\n")
  expect_error(collect(f, csv_record_spec(f, types = "dc")), class = "cppestimators_error",
               regexp = ":4: expected 2 fields, found 3")
  f <- write_bytes("x,y\n1,2\n3,abc\n")
  expect_error(collect(f, csv_record_spec(f, types = "di")), class = "cppestimators_error",
               regexp = ":3: column 'y': cannot read 'abc' as an integer")
  f <- write_bytes("x\n1\n2.5x\n")
  expect_error(collect(f, csv_record_spec(f, types = "d")), class = "cppestimators_error",
               regexp = ":3: column 'x': cannot read '2.5x' as a double")
  f <- write_bytes("x,y\n1,\"open\n")
  expect_error(collect(f, csv_record_spec(f, types = "dc")), class = "cppestimators_error",
               regexp = ":2: a quoted field is not closed")
})

test_that("several files are read in order, each with its header and skipped lines", {
  a <- write_bytes("# made by a\nx,s\n1,a\n2,b\n")
  b <- write_bytes("# made by b\nx,s\n3,c\n")
  spec <- csv_record_spec(a, skip = 1)
  expect_identical(collect(c(a, b), spec), data.frame(x = 1:3, s = c("a", "b", "c")))
  nohead <- write_bytes("4,d\n5,e")
  spec <- csv_record_spec(names = c("x", "s"), types = c("integer", "character"))
  expect_identical(collect(c(nohead, nohead), spec), data.frame(x = c(4L, 5L, 4L, 5L), s = c("d", "e", "d", "e")))
})

test_that("empty and header-only files give no rows", {
  head_only <- write_bytes("a,b\n")
  empty <- write_bytes("")
  data <- write_bytes("a,b\n1,x\n")
  spec <- csv_record_spec(names = c("a", "b"), types = "dc", skip = 1)
  expect_identical(collect(c(head_only, empty), spec), data.frame(a = double(), b = character()))
  expect_identical(collect(c(empty, data, head_only), spec), data.frame(a = 1, b = "x"))
  expect_identical(collect(data, spec, n = 0), data.frame(a = double(), b = character()))
})

test_that("skip-typed columns are left out", {
  f <- write_bytes("a,b,c\n1,x,2\n3,y,4\n")
  out <- collect(f, csv_record_spec(f, types = "i_d"))
  expect_identical(out, data.frame(a = c(1L, 3L), c = c(2, 4)))
})

test_that("any chunk size, block size and thread count give the same data", {
  set.seed(3)
  n <- 5000
  df <- data.frame(id = seq_len(n), x = round(rnorm(n), 4),
                   s = sample(c("p", "q, r", "with \"quote\"", "multi\nline", ""), n, TRUE),
                   stringsAsFactors = FALSE)
  f <- tempfile(fileext = ".csv")
  utils::write.csv(df, f, row.names = FALSE)
  spec <- csv_record_spec(f, types = "idc", defaults = list(0L, 0, ""))
  ref <- utils::read.csv(f, stringsAsFactors = FALSE)
  expect_identical(ref, df)
  for (chunk in c(1, 7, 1000, 4096, 65536)) {
    expect_identical(collect(f, spec, chunk_size = chunk), df)
  }
  old <- options(cppestimators.csv_block_size = 4096)
  on.exit(options(old))
  for (threads in 1:2) {
    ds <- text_line_dataset(f, spec, parallel_records = threads)
    expect_identical(dataset_collect(ds, chunk_size = 5000), df)
  }
  expect_identical(dataset_collect(text_line_dataset(f, spec), n = 10), df[1:10, ])
})

test_that("the reader agrees with data.table::fread", {
  skip_if_not_installed("data.table")
  set.seed(4)
  n <- 3000
  dt <- data.table::data.table(a = rnorm(n) * 1e5, b = sample.int(100L, n, TRUE), c = runif(n),
                               d = sample(c("u", "v, w"), n, TRUE))
  f <- tempfile(fileext = ".csv")
  data.table::fwrite(dt, f)
  ours <- collect(f, csv_record_spec(f, types = "didc"))
  # Neither fread's nor R's own number parser (read.csv) is always correctly
  # rounded for 15 significant digits: "43796.3333163108" is read as
  # 43796.333316310804 by both where the nearest double (std::from_chars,
  # Python's float()) is 43796.333316310796; hence the last-bit tolerance.
  expect_equal(ours, as.data.frame(data.table::fread(f)), tolerance = 1e-15)
  expect_equal(ours, utils::read.csv(f, stringsAsFactors = FALSE), tolerance = 1e-15)
  g <- write_bytes("a\n43796.3333163108\n0.1\n")
  expect_identical(collect(g, csv_record_spec(g, types = "d"))$a, c(43796.333316310796, 0.1))
})

test_that("record specs and datasets check their arguments", {
  f <- write_bytes("x,y\n1,2\n")
  expect_error(csv_record_spec(f, types = "dz"), class = "cppestimators_error",
               regexp = "`types`: unknown column type \"dz\"")
  expect_error(csv_record_spec(f, types = "ddd"), class = "cppestimators_error",
               regexp = "`types` gives 3 types for 2 columns.")
  expect_error(csv_record_spec(f, defaults = list(0)), class = "cppestimators_error",
               regexp = "`defaults` gives 1 values for 2 columns.")
  expect_error(csv_record_spec(f, types = "dd", defaults = list(0, "a")), class = "cppestimators_error",
               regexp = "the default of column 'y' \\(a\\) is not a number")
  expect_error(csv_record_spec(f, types = "__"), class = "cppestimators_error",
               regexp = "every column is \"skip\"")
  expect_error(csv_record_spec(f, delim = ";;"), class = "cppestimators_error", regexp = "`delim`")
  expect_error(csv_record_spec(names = "x"), class = "cppestimators_error", regexp = "`example_file`")
  expect_error(csv_record_spec(file.path(tempdir(), "none.csv")), class = "cppestimators_error",
               regexp = "`example_file`: no file")
  expect_error(text_line_dataset(f, list()), class = "cppestimators_error", regexp = "`record_spec`")
  expect_error(text_line_dataset("nope.csv", csv_record_spec(f)), class = "cppestimators_error",
               regexp = "`filenames`: no file at 'nope.csv'")
  expect_error(text_line_dataset(f, csv_record_spec(f), parallel_records = 0),
               class = "cppestimators_error", regexp = "`parallel_records` must be >= 1")
  expect_error(dataset_collect(list()), class = "cppestimators_error", regexp = "`dataset`")
})

test_that("a semicolon-delimited file, and the print methods", {
  f <- write_bytes("a;b\n1,5;x\n")
  spec <- csv_record_spec(f, delim = ";", types = c("character", "character"))
  expect_identical(collect(f, spec), data.frame(a = "1,5", b = "x"))
  ds <- text_line_dataset(f, spec)
  expect_output(print(ds), "<CSV dataset: 1 file, 2 columns>")
  expect_output(print(ds), "a <character>, b <character>")
  expect_output(print(spec), "<record spec: 2 columns, delimiter \";\", header>")
})

# Missing values (issue 40): files written by R's write.csv(), which writes a
# missing value as NA (or as `na =` says).

na_frame <- function() {
  data.frame(x = c(1.5, NA, 3, 4), y = c(0.5, 1, 1.5, 2), g = c("a", NA, "b", "NA"),
             stringsAsFactors = FALSE)
}

write_na_csv <- function(df = na_frame(), ...) {
  f <- tempfile(fileext = ".csv")
  utils::write.csv(df, f, row.names = FALSE, ...)
  f
}

test_that("an NA written by write.csv() leaves a numeric column numeric", {
  f <- write_na_csv()
  expect_identical(readLines(f)[3], "NA,1,NA")
  spec <- csv_record_spec(f)
  expect_identical(spec$types, c("double", "double", "character"))
  expect_identical(spec$na, c("", "NA"))
  expect_output(print(spec), "x <double> required")
  expect_output(print(spec), "g <character> NA when missing")
  expect_output(print(spec), "missing values: \"\", \"NA\"")
})

test_that("a missing number without a default is an error naming file, line and column", {
  f <- write_na_csv()
  spec <- csv_record_spec(f)
  expect_error(collect(f, spec), class = "cppestimators_error",
               regexp = paste0(basename(f), ":3: column 'x' is missing \\('NA'\\) and has no default: ",
                               "give the column a default in the record spec's `defaults`, or fill in"))
  est <- quietly(linear_regressor(feature_columns(column_numeric("x"))))
  expect_error(quietly(train(est, input_fn(text_line_dataset(f, spec), features = x, response = y,
                                           batch_size = 4))),
               class = "cppestimators_error", regexp = paste0(basename(f), ":3: column 'x' is missing"))
})

test_that("a default fills missing numbers; missing strings are NA, quoted \"NA\" is text", {
  f <- write_na_csv()
  spec <- csv_record_spec(f, defaults = list(-1, NA, NA))
  expect_identical(spec$types, c("double", "double", "character"))
  expect_output(print(spec), "x <double> default -1")
  out <- collect(f, spec)
  expect_identical(out$x, c(1.5, -1, 3, 4))
  expect_identical(out$y, c(0.5, 1, 1.5, 2))
  expect_identical(out$g, c("a", NA, "b", "NA"))
  expect_identical(collect(f, csv_record_spec(f, defaults = list(-1, NA, "none")))$g, c("a", "none", "b", "NA"))
  # training reads the default: the model equals one trained on the filled data
  filled <- transform(na_frame(), x = c(1.5, -1, 3, 4))
  a <- quietly(linear_regressor(feature_columns(column_numeric("x"))))
  quietly(train(a, input_fn(text_line_dataset(f, spec) %>% dataset_repeat(5), features = x,
                            response = y, batch_size = 4)))
  b <- quietly(linear_regressor(feature_columns(column_numeric("x"))))
  quietly(train(b, input_fn(filled, features = x, response = y, batch_size = 4, num_epochs = 5, shuffle = FALSE)))
  expect_identical(variable_value(a), variable_value(b))
  pred <- quietly(predict(a, input_fn(text_line_dataset(f, spec), features = x)))
  expect_identical(pred, quietly(predict(b, input_fn(filled, features = x))))
  expect_length(pred$predictions, 4)
})

test_that("write.csv(na = \"\"): an empty number is an error, not 0", {
  f <- write_na_csv(na = "")
  expect_identical(readLines(f)[3], ",1,")
  # the default `na` holds "" (the empty x was read as 0 before)
  spec <- csv_record_spec(f)
  expect_identical(spec$types, c("double", "double", "character"))
  expect_error(collect(f, spec), class = "cppestimators_error",
               regexp = paste0(basename(f), ":3: column 'x' is missing \\(an empty field\\) and has no default"))
  spec <- csv_record_spec(f, na = "")
  expect_identical(spec$types, c("double", "double", "character"))
  expect_error(collect(f, spec), class = "cppestimators_error",
               regexp = paste0(basename(f), ":3: column 'x' is missing \\(an empty field\\) and has no default"))
  out <- collect(f, csv_record_spec(f, na = "", defaults = list(0, NA, NA)))
  expect_identical(out$x, c(1.5, 0, 3, 4))
  expect_identical(out$g, c("a", NA, "b", "NA"))
})

test_that("defaults = list(NA, 0) keeps the guessed type of the NA column", {
  f <- write_na_csv(data.frame(x = c(1.5, 2.5), y = c(1, 2)))
  spec <- csv_record_spec(f, defaults = list(NA, 0))
  expect_identical(spec$types, c("double", "double"))
  expect_identical(collect(f, spec), data.frame(x = c(1.5, 2.5), y = c(1, 2)))
  g <- write_na_csv(data.frame(x = c(1.5, NA), y = c(1, 2)))
  expect_error(collect(g, csv_record_spec(g, defaults = list(NA, 0))), class = "cppestimators_error",
               regexp = ":3: column 'x' is missing")
  # a typed NA gives its type and no default
  spec <- csv_record_spec(f, defaults = list(NA_integer_, NA_real_))
  expect_identical(spec$types, c("integer", "double"))
  expect_error(collect(f, spec), class = "cppestimators_error",
               regexp = ":2: column 'x': cannot read '1.5' as an integer")
  expect_error(csv_record_spec(names = c("x", "y"), defaults = list(NA, 0)), class = "cppestimators_error",
               regexp = "`example_file` must be given to guess the type of a column whose default is NA")
})

test_that("custom `na` strings, for guessing the types and for reading", {
  f <- write_bytes("x,s\n1,a\n?,b\n3,\n,NA\n")
  spec <- csv_record_spec(f, na = c("?", ""))
  expect_identical(spec$types, c("integer", "character"))
  expect_error(collect(f, spec), class = "cppestimators_error", regexp = ":3: column 'x' is missing \\('\\?'\\)")
  out <- collect(f, csv_record_spec(f, na = c("?", ""), defaults = list(-1, NA)))
  expect_identical(out, data.frame(x = c(1, -1, 3, -1), s = c("a", "b", NA, "NA")))
  # no `na`: nothing is missing, an empty string is a string
  g <- write_bytes("x,s\n1,\n2,NA\n")
  expect_identical(collect(g, csv_record_spec(g, na = character())), data.frame(x = 1:2, s = c("", "NA")))
  expect_error(csv_record_spec(g, na = NA), class = "cppestimators_error", regexp = "`na` must be a character vector")
})
