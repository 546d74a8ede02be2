# TFRecord files of tf.train.Example records: write_tfrecord(), tfrecord_dataset(),
# dataset_collect() and the parse specs built from feature columns.

# CRC-32C (Castagnoli, reflected polynomial 0x82F63B78) over raw bytes, in
# plain R on bit vectors, independent of the engine's implementation.
crc32c_bits <- function(bytes) {
  poly <- as.logical(intToBits(0x82F63B78 - 2^32 * (0x82F63B78 >= 2^31)))
  crc <- rep(TRUE, 32)
  for (b in as.integer(bytes)) {
    crc[1:8] <- xor(crc[1:8], as.logical(intToBits(b))[1:8])
    for (k in 1:8) {
      lsb <- crc[1]
      crc <- c(crc[-1], FALSE)
      if (lsb) crc <- xor(crc, poly)
    }
  }
  !crc
}
bits_value <- function(bits) sum(2^(0:31)[bits])
le_bytes <- function(value, n) as.raw(floor(value / 256^(0:(n - 1))) %% 256)
masked_crc <- function(bytes) {
  bits <- crc32c_bits(bytes)
  rotated <- c(bits[16:32], bits[1:15])  # (crc >> 15) | (crc << 17)
  le_bytes((bits_value(rotated) + 0xa282ead8) %% 2^32, 4)
}
frame <- function(data) {
  len <- le_bytes(length(data), 8)
  c(len, masked_crc(len), data, masked_crc(data))
}
varint <- function(v) {
  out <- raw()
  repeat {
    if (v < 128) return(c(out, as.raw(v)))
    out <- c(out, as.raw(v %% 128 + 128))
    v <- v %/% 128
  }
}
ld <- function(field, bytes) c(varint(field * 8 + 2), varint(length(bytes)), bytes)
entry <- function(key, feature) ld(1, c(ld(1, charToRaw(key)), ld(2, feature)))
example <- function(...) ld(1, c(...))
write_records <- function(path, ...) writeBin(do.call(c, lapply(list(...), frame)), path)
float_bytes <- function(x) writeBin(x, raw(), size = 4, endian = "little")

test_that("the R CRC-32C helper matches the standard check value", {
  expect_equal(bits_value(crc32c_bits(charToRaw("123456789"))), 0xE3069283)
})

test_that("a record built by hand from the documented encoding equals what write_tfrecord() writes", {
  path <- local_test_file(fileext = ".tfrecord")
  write_tfrecord(data.frame(x = 1.5, n = 3L, s = "ab"), path)
  # x: Feature{float_list (2) = FloatList{value (1), packed: 1.5f}}
  x <- as.raw(c(0x0a, 0x01, 0x78, 0x12, 0x08, 0x12, 0x06, 0x0a, 0x04, 0x00, 0x00, 0xc0, 0x3f))
  # n: Feature{int64_list (3) = Int64List{value (1), packed: 3}}
  n <- as.raw(c(0x0a, 0x01, 0x6e, 0x12, 0x05, 0x1a, 0x03, 0x0a, 0x01, 0x03))
  # s: Feature{bytes_list (1) = BytesList{value (1): "ab"}}
  s <- as.raw(c(0x0a, 0x01, 0x73, 0x12, 0x06, 0x0a, 0x04, 0x0a, 0x02, 0x61, 0x62))
  features <- c(as.raw(c(0x0a, 13)), x, as.raw(c(0x0a, 10)), n, as.raw(c(0x0a, 11)), s)
  data <- c(as.raw(c(0x0a, length(features))), features)
  record <- c(le_bytes(length(data), 8), masked_crc(le_bytes(length(data), 8)), data, masked_crc(data))
  expect_identical(readBin(path, "raw", 1000), record)
})

test_that("a data frame of every type with missing values round-trips", {
  path <- local_test_file(fileext = ".tfrecord")
  df <- data.frame(d = c(0.5, NA, -2.25), i = c(1L, 2L, NA), l = c(TRUE, NA, FALSE),
                   s = c("a", "é", NA), f = factor(c(NA, "lo", "hi"), levels = c("lo", "hi")))
  df$v <- list(c(1, 2, 3), numeric(), 4)
  df$w <- list("p", c("q", "r"), NULL)
  write_tfrecord(df, path)
  ds <- tfrecord_dataset(path, list(
    d = fixed_len_feature(1, "float32", default_value = 99),
    i = fixed_len_feature(1, "int64", default_value = -1),
    l = fixed_len_feature(1, "int64", default_value = 7),
    s = fixed_len_feature(1, "string", default_value = "?"),
    f = var_len_feature("string"),
    v = var_len_feature("float32"),
    w = var_len_feature("string")))
  got <- dataset_collect(ds)
  expect_s3_class(got, "data.frame")
  expect_equal(nrow(got), 3L)
  expect_identical(got$d, c(0.5, 99, -2.25))
  expect_identical(got$i, c(1L, 2L, -1L))
  expect_identical(got$l, c(1L, 7L, 0L))
  expect_identical(got$s, c("a", "é", "?"))
  expect_identical(got$f, list(character(), "lo", "hi"))
  expect_identical(got$v, list(c(1, 2, 3), numeric(), 4))
  expect_identical(got$w, list("p", c("q", "r"), character()))
  # float32: values are rounded to single precision
  write_tfrecord(data.frame(d = 0.1), path)
  got <- dataset_collect(tfrecord_dataset(path, list(d = fixed_len_feature(1, "float32"))))
  expect_equal(got$d, 0.1, tolerance = 1e-7)
  expect_false(identical(got$d, 0.1))
})

test_that("unpacked repeated floats and int64s are decoded", {
  path <- local_test_file(fileext = ".tfrecord")
  floats <- c(as.raw(0x0d), float_bytes(1.25), as.raw(0x0d), float_bytes(-3))  # field 1, fixed32, twice
  ints <- c(as.raw(0x08), varint(5), as.raw(0x08), varint(300))               # field 1, varint, twice
  write_records(path,
                example(entry("x", ld(2, floats)), entry("k", ld(3, ints))),
                # a packed one after, and a feature the spec does not name
                example(entry("k", ld(3, ld(1, c(varint(7), varint(8))))),
                        entry("skip", ld(1, ld(1, charToRaw("zz")))),
                        entry("x", ld(2, ld(1, float_bytes(c(0.5, 2)))))))
  got <- dataset_collect(tfrecord_dataset(path, list(x = fixed_len_feature(2, "float32"),
                                                     k = var_len_feature("int64"))))
  expect_identical(got$x, matrix(c(1.25, 0.5, -3, 2), 2, 2))
  expect_identical(got$k, list(c(5L, 300L), c(7L, 8L)))
  # int64 values outside R's integers are an error, negative ones read back
  write_records(path, example(entry("k", ld(3, ld(1, c(varint(2^31), varint(1)))))))
  expect_error(dataset_collect(tfrecord_dataset(path, list(k = var_len_feature("int64")))),
               class = "cppestimators_error",
               regexp = "feature 'k': the int64 value 2147483648 is outside R's integers (record 1", fixed = TRUE)
  write_tfrecord(data.frame(k = c(-1L, -2147483647L)), path)
  got <- dataset_collect(tfrecord_dataset(path, list(k = fixed_len_feature(1, "int64"))))
  expect_identical(got$k, c(-1L, -2147483647L))
})

test_that("fixed-length features take their default; a missing one without default is an error", {
  path <- local_test_file(fileext = ".tfrecord")
  write_tfrecord(data.frame(a = c(1, NA, 3), b = c("x", "y", NA)), path)
  got <- dataset_collect(tfrecord_dataset(path, list(
    a = fixed_len_feature(1, "float32", default_value = -1),
    b = fixed_len_feature(1, "string", default_value = "none"))))
  expect_identical(got$a, c(1, -1, 3))
  expect_identical(got$b, c("x", "y", "none"))
  ds <- tfrecord_dataset(path, list(a = fixed_len_feature(1, "float32"),
                                    b = fixed_len_feature(1, "string")))
  expect_error(dataset_collect(ds), class = "cppestimators_error",
               regexp = "feature 'a' is required but missing (no default_value) (record 2, at offset",
               fixed = TRUE)
  expect_error(dataset_collect(ds, n = 1), NA)
  expect_error(dataset_collect(tfrecord_dataset(path, list(b = fixed_len_feature(1, "string")))),
               class = "cppestimators_error",
               regexp = paste0(path, ": feature 'b' is required but missing"), fixed = TRUE)
  expect_error(fixed_len_feature(2, "float32", default_value = c(1, 2, 3)), class = "cppestimators_error",
               regexp = "`default_value` must be NULL, one value or 2 values", fixed = TRUE)
})

test_that("fixed-length features of several values read as matrix columns; wrong counts and kinds are errors", {
  path <- local_test_file(fileext = ".tfrecord")
  df <- data.frame(id = 1:3)
  df$m <- list(c(1, 2), c(3, 4), c(5, 6))
  df$s <- list(c("a", "b"), c("c", "d"), c("e", "f"))
  write_tfrecord(df, path)
  got <- dataset_collect(tfrecord_dataset(path, list(m = fixed_len_feature(2, "float32"),
                                                     s = fixed_len_feature(2, "string")),
                                          chunk_size = 2))
  expect_identical(got$m, matrix(c(1, 3, 5, 2, 4, 6), 3, 2))
  expect_identical(got$s, matrix(c("a", "c", "e", "b", "d", "f"), 3, 2))
  expect_error(dataset_collect(tfrecord_dataset(path, list(m = fixed_len_feature(3, "float32")))),
               class = "cppestimators_error", regexp = "feature 'm' has 2 values, the spec wants 3 (record 1",
               fixed = TRUE)
  expect_error(dataset_collect(tfrecord_dataset(path, list(id = fixed_len_feature(1, "float32")))),
               class = "cppestimators_error",
               regexp = "feature 'id' is a int64_list, the spec wants a float_list", fixed = TRUE)
})

test_that("several files are read in order, in chunks, up to n records", {
  dir <- local_test_dir()
  p1 <- file.path(dir, "a.tfrecord")
  p2 <- file.path(dir, "b.tfrecord")
  p3 <- file.path(dir, "empty.tfrecord")
  write_tfrecord(data.frame(x = 1:5), p1)
  write_tfrecord(data.frame(x = integer()), p3)
  write_tfrecord(data.frame(x = 6:7, y = c("u", "v")), p2)
  spec <- list(x = fixed_len_feature(1, "int64"))
  ds <- tfrecord_dataset(c(p1, p3, p2), spec, chunk_size = 3)
  expect_identical(dataset_collect(ds)$x, 1:7)
  expect_identical(dataset_collect(ds, n = 4)$x, 1:4)
  expect_identical(dataset_collect(ds, n = 0)$x, integer())
  expect_identical(dataset_collect(tfrecord_dataset(c(p2, p1), spec))$x, c(6:7, 1:5))
  expect_error(dataset_collect(tfrecord_dataset(c(p1, file.path(dir, "nope")), spec)),
               class = "cppestimators_error", regexp = "nope: cannot open", fixed = TRUE)
})

test_that("corrupt records are errors naming the file and the offset", {
  path <- local_test_file(fileext = ".tfrecord")
  write_tfrecord(data.frame(x = c(1, 2, 3)), path)
  bytes <- readBin(path, "raw", 1000)
  size <- length(bytes) / 3
  spec <- list(x = fixed_len_feature(1, "float32"))
  bad <- bytes
  bad[size + 14] <- xor(bad[size + 14], as.raw(1))  # the data of the second record
  writeBin(bad, path)
  expect_error(dataset_collect(tfrecord_dataset(path, spec)), class = "cppestimators_error",
               regexp = sprintf("%s: bad record CRC at offset %d", path, size), fixed = TRUE)
  bad <- bytes
  bad[2 * size + 9] <- xor(bad[2 * size + 9], as.raw(1))  # the length CRC of the third
  writeBin(bad, path)
  expect_error(dataset_collect(tfrecord_dataset(path, spec)), class = "cppestimators_error",
               regexp = sprintf("%s: bad length CRC at offset %d", path, 2 * size), fixed = TRUE)
  writeBin(bytes[seq_len(length(bytes) - 2)], path)
  expect_error(dataset_collect(tfrecord_dataset(path, spec)), class = "cppestimators_error",
               regexp = sprintf("%s: truncated record at offset %d", path, 2 * size), fixed = TRUE)
})

test_that("write_tfrecord() leaves no half-written file on error", {
  dir <- local_test_dir()
  path <- file.path(dir, "out.tfrecord")
  df <- data.frame(x = 1:2)
  df$v <- list(1, c(2, NA))
  expect_error(write_tfrecord(df, path), class = "cppestimators_error",
               regexp = "column 'v', row 2: a list element holds a missing value", fixed = TRUE)
  expect_identical(list.files(dir, all.files = TRUE, no.. = TRUE), character())
  write_tfrecord(data.frame(x = 1:2), path)
  before <- readBin(path, "raw", 1000)
  expect_error(write_tfrecord(df, path), class = "cppestimators_error")
  expect_identical(readBin(path, "raw", 1000), before)
  expect_identical(list.files(dir, all.files = TRUE, no.. = TRUE), "out.tfrecord")
  expect_error(write_tfrecord(data.frame(d = Sys.Date()), path), class = "cppestimators_error",
               regexp = "Column 'd' must be numeric, integer, logical, character, a factor or a list, not Date",
               fixed = TRUE)
  expect_error(write_tfrecord(list(x = 1), path), class = "cppestimators_error",
               regexp = "`data` must be a data frame", fixed = TRUE)
  m <- data.frame(x = 1:2)
  m$m <- matrix(1:4, 2)
  expect_error(write_tfrecord(m, path), class = "cppestimators_error", regexp = "Column 'm' must be")
})

test_that("tfrecord_dataset() is lazy and prints its files and spec", {
  ds <- tfrecord_dataset(c("a.tfrecord", "b.tfrecord"),
                         list(x = fixed_len_feature(1, "float32", default_value = 0),
                              g = var_len_feature("string")), chunk_size = 10)
  expect_s3_class(ds, c("cppestimators_tfrecord_dataset", "cppestimators_dataset"))
  expect_identical(printed(print(ds)), c(
    "<tfrecord dataset> 2 files, 2 features, chunks of 10 records",
    "  a.tfrecord", "  b.tfrecord",
    "  x: FixedLenFeature(shape=(1,), dtype=tf.float32, default_value=(0,))",
    "  g: VarLenFeature(dtype=tf.string)"))
  expect_error(tfrecord_dataset("a", list(x = 1)), class = "cppestimators_error",
               regexp = "`features` must be a named list of fixed_len_feature()", fixed = TRUE)
  expect_error(dataset_collect(list()), class = "cppestimators_error", regexp = "`dataset` must be a dataset")
})

test_that("parse specs built from feature columns equal TensorFlow's for each column kind", {
  num <- column_numeric("n", shape = c(2, 3), default_value = 0)
  voc <- column_categorical_with_vocabulary_list("v", vocabulary_list = c("a", "b"))
  voc_int <- column_categorical_with_vocabulary_list("vi", vocabulary_list = c(1L, 2L))
  ident <- column_categorical_with_identity("id", num_buckets = 4)
  hash <- column_categorical_with_hash_bucket("h", hash_bucket_size = 10)
  hash_int <- column_categorical_with_hash_bucket("hi", hash_bucket_size = 10, dtype = "int64")
  buck <- column_bucketized(column_numeric("b"), boundaries = c(0, 1))
  cross <- column_crossed(list("raw", voc), hash_bucket_size = 5)
  emb <- column_embedding(ident, dimension = 2)
  ind <- column_indicator(hash)
  wtd <- column_categorical_weighted(column_categorical_with_identity("wid", num_buckets = 3), "wts")
  spec <- make_parse_example_spec(feature_columns(num, voc_int, buck, cross, emb, ind, hash_int, wtd))
  expect_s3_class(spec, "cppestimators_parse_spec")
  expect_identical(unclass(spec), list(
    n = fixed_len_feature(c(2, 3), "float32", default_value = rep(0, 6)),
    vi = var_len_feature("int64"),
    b = fixed_len_feature(1, "float32"),
    raw = var_len_feature("string"),
    v = var_len_feature("string"),
    id = var_len_feature("int64"),
    h = var_len_feature("string"),
    hi = var_len_feature("int64"),
    wid = var_len_feature("int64"),
    wts = var_len_feature("float32")))
  expect_identical(format(spec$n), "FixedLenFeature(shape=(2, 3), dtype=tf.float32, default_value=(0, 0, 0, 0, 0, 0))")
  expect_identical(format(spec$b), "FixedLenFeature(shape=(1,), dtype=tf.float32, default_value=None)")

  cls <- classifier_parse_example_spec(feature_columns(column_numeric("x"), voc), label_key = "y",
                                       weight_column = "w")
  expect_identical(unclass(cls), list(x = fixed_len_feature(1, "float32"), v = var_len_feature("string"),
                                      y = fixed_len_feature(1, "int64"), w = fixed_len_feature(1, "float32")))
  reg <- regressor_parse_example_spec(list(column_numeric("x")), label_key = "y", label_dimension = 2,
                                      label_default = 0, weight_column = column_numeric("w", dtype = "float64"))
  expect_identical(unclass(reg), list(x = fixed_len_feature(1, "float32"),
                                      y = fixed_len_feature(2, "float32", default_value = c(0, 0)),
                                      w = fixed_len_feature(1, "float64")))
  expect_error(classifier_parse_example_spec(list(column_numeric("x")), label_key = "x"),
               class = "cppestimators_error",
               regexp = "label should not be already in the feature columns. Given: x", fixed = TRUE)
  clash <- list(column_numeric("x"), column_categorical_with_identity("x", num_buckets = 2))
  expect_error(make_parse_example_spec(clash),
               class = "cppestimators_error",
               regexp = "feature_columns contain different parse_spec for key x. Given FixedLenFeature", fixed = TRUE)
  expect_error(make_parse_example_spec(list("x")), class = "cppestimators_error",
               regexp = "All feature_columns must be _FeatureColumn instances", fixed = TRUE)
})

test_that("a spec from feature columns reads what write_tfrecord() wrote", {
  path <- local_test_file(fileext = ".tfrecord")
  write_tfrecord(data.frame(x = c(1, 2), g = c("a", "b"), y = c(0L, 1L)), path)
  cols <- feature_columns(column_numeric("x"),
                          column_categorical_with_vocabulary_list("g", vocabulary_list = c("a", "b")))
  got <- dataset_collect(tfrecord_dataset(path, classifier_parse_example_spec(cols, "y")))
  expect_identical(got$x, c(1, 2))
  expect_identical(got$g, list("a", "b"))
  expect_identical(got$y, c(0L, 1L))
})

test_that("tfrecord_dataset() without `features` says that the parse spec must be given, and how", {
  path <- tempfile(fileext = ".tfrecord")
  write_tfrecord(data.frame(x = c(0.5, 1.5), label = c(0L, 1L)), path)
  expect_error(tfrecord_dataset(path), class = "cppestimators_missing_argument",
               regexp = paste0("tfrecord_dataset\\(\\) needs `features`, the parse spec of the records .*",
                               "fixed_len_feature\\(\\) and var_len_feature\\(\\).*make_parse_example_spec\\(\\), ",
                               "classifier_parse_example_spec\\(\\) or regressor_parse_example_spec\\(\\)"))
  # as the message says
  fcs <- feature_columns(column_numeric("x"))
  ds <- tfrecord_dataset(path, classifier_parse_example_spec(fcs, label_key = "label"))
  expect_equal(dataset_collect(ds)$x, c(0.5, 1.5))
})

test_that("parse spec helpers take the tf object's dtypes", {
  expect_identical(fixed_len_feature(2, tf$float32, default_value = 0),
                   fixed_len_feature(2, "float32", default_value = 0))
  expect_identical(var_len_feature(tf$int64), var_len_feature("int64"))
  spec <- classifier_parse_example_spec(feature_columns(column_numeric("x")), "y", label_dtype = tf$int32)
  expect_equal(spec$y$dtype, "int32")
  spec <- regressor_parse_example_spec(feature_columns(column_numeric("x")), "y", label_dtype = tf$float64)
  expect_equal(spec$y$dtype, "float64")
  expect_error(regressor_parse_example_spec(feature_columns(column_numeric("x")), "y", label_dtype = tf$bool),
               "`label_dtype` must be one of .* not tf\\$bool", class = "cppestimators_dtype_error")
})
