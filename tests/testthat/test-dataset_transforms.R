# The transforms of a streaming dataset (R/dataset_transforms.R) read
# through the engine with dataset_collect().

ids_csv <- function(n, extra = TRUE) {
  path <- tempfile(fileext = ".csv")
  lines <- if (extra) paste(seq_len(n), sprintf("r%d", seq_len(n)), seq_len(n) / 4, sep = ",") else seq_len(n)
  writeLines(c(if (extra) "id,label,v" else "id", lines), path)
  path
}

ids_dataset <- function(n = 10, ...) {
  path <- ids_csv(n, ...)
  text_line_dataset(path, csv_record_spec(path))
}

ids <- function(dataset, ...) dataset_collect(dataset, ...)$id

test_that("a shuffle is a permutation of the rows, whole rows, reproducible by seed", {
  ds <- ids_dataset(500)
  out <- dataset_collect(dataset_shuffle(ds, 100, seed = 42))
  expect_setequal(out$id, 1:500)
  expect_length(out$id, 500)
  expect_false(identical(out$id, 1:500))
  expect_identical(out$label, sprintf("r%d", out$id))
  expect_identical(out$v, out$id / 4)
  expect_identical(ids(dataset_shuffle(ds, 100, seed = 42)), out$id)
  expect_identical(ids(dataset_shuffle(ds, 100, seed = 42), chunk_size = 7), out$id)
  expect_false(identical(ids(dataset_shuffle(ds, 100, seed = 43)), out$id))
})

test_that("the shuffle buffer bounds how far a row moves ahead, as tf.data's", {
  ds <- ids_dataset(50)
  for (seed in 1:10) {
    out <- ids(dataset_shuffle(ds, buffer_size = 2, seed = seed))
    expect_true(out[1] %in% 1:2)
    # the k-th row out is one of the first k + 1 rows read
    expect_true(all(out <= seq_along(out) + 1))
    expect_setequal(out, 1:50)
  }
  expect_identical(ids(dataset_shuffle(ds, buffer_size = 1, seed = 3)), 1:50)
  full <- ids(dataset_shuffle(ds, buffer_size = 1000, seed = 3))
  expect_setequal(full, 1:50)
  expect_true(any(full[1:10] > 40))
})

test_that("repeated shuffles reshuffle each pass unless told not to", {
  ds <- ids_dataset(30)
  again <- ids(dataset_repeat(dataset_shuffle(ds, 30, seed = 5), 2))
  expect_setequal(again[1:30], 1:30)
  expect_setequal(again[31:60], 1:30)
  expect_false(identical(again[1:30], again[31:60]))
  expect_identical(ids(dataset_repeat(dataset_shuffle(ds, 30, seed = 5), 2)), again)
  same <- ids(dataset_repeat(dataset_shuffle(ds, 30, seed = 5, reshuffle_each_iteration = FALSE), 2))
  expect_identical(same[1:30], same[31:60])
  expect_identical(same[1:30], again[1:30])
})

test_that("without a seed, a shuffle follows R's seed", {
  ds <- dataset_shuffle(ids_dataset(100), 100)
  set.seed(1)
  a <- ids(ds)
  set.seed(1)
  expect_identical(ids(ds), a)
  expect_setequal(a, 1:100)
})

test_that("batching keeps the rows; drop_remainder drops the partial batch of each pass", {
  ds <- ids_dataset(10)
  expect_identical(ids(dataset_batch(ds, 3)), 1:10)
  expect_identical(ids(dataset_batch(ds, 3, drop_remainder = TRUE)), 1:9)
  expect_identical(ids(dataset_batch(ds, 20, drop_remainder = TRUE)), integer())
  expect_identical(ids(dataset_batch(dataset_repeat(ds, 2), 3, drop_remainder = TRUE)), c(1:10, 1:8))
})

test_that("a repeat before batching crosses the passes, after it repeats the batches", {
  ds <- ids_dataset(10)
  # before: 20 rows cut into batches of 3, the last of 2 dropped
  expect_identical(ids(dataset_batch(dataset_repeat(ds, 2), 3, drop_remainder = TRUE)), c(1:10, 1:8))
  # after: each pass ends in its batch of one row (dropped with drop_remainder)
  expect_identical(ids(dataset_repeat(dataset_batch(ds, 3), 2)), c(1:10, 1:10))
  expect_identical(ids(dataset_repeat(dataset_batch(ds, 3, drop_remainder = TRUE), 2)), c(1:9, 1:9))
  expect_identical(ids(dataset_repeat(ds, 3)), rep(1:10, 3))
  none <- dataset_collect(dataset_repeat(ds, 0))
  expect_identical(nrow(none), 0L)
  # no row, but the dataset's columns and types
  expect_identical(lapply(none, class), lapply(dataset_collect(ds), class))
  expect_identical(lapply(dataset_collect(dataset_take(ds, 0)), class), lapply(dataset_collect(ds), class))
})

test_that("take and skip count rows before batching and batches after it", {
  ds <- ids_dataset(10)
  expect_identical(ids(dataset_take(ds, 4)), 1:4)
  expect_identical(ids(dataset_skip(ds, 7)), 8:10)
  expect_identical(ids(dataset_take(ds, -1)), 1:10)
  expect_identical(ids(dataset_skip(ds, -1)), integer())
  expect_identical(ids(dataset_take(dataset_skip(ds, 2), 3)), 3:5)
  expect_identical(ids(dataset_take(dataset_batch(ds, 3), 2)), 1:6)
  expect_identical(ids(dataset_skip(dataset_batch(ds, 3), 2)), 7:10)
  expect_identical(ids(dataset_skip(dataset_batch(ds, 3), 4)), integer())
  expect_identical(ids(dataset_take(dataset_repeat(dataset_batch(ds, 4)), 5)), c(1:10, 1:8))
  expect_identical(ids(dataset_take(dataset_repeat(ds), 25)), c(1:10, 1:10, 1:5))
})

test_that("a dataset repeated forever needs a finite n", {
  ds <- dataset_repeat(ids_dataset(10))
  expect_error(dataset_collect(ds), class = "cppestimators_error", regexp = "repeats forever")
  expect_identical(ids(ds, n = 23), c(1:10, 1:10, 1:3))
  expect_identical(ids(dataset_repeat(ds, 2), n = 12), c(1:10, 1:2))
  expect_error(dataset_collect(dataset_batch(ds, 4)), class = "cppestimators_error", regexp = "finite `n`")
})

test_that("prefetching gives the same rows as reading directly", {
  ds <- ids_dataset(3000)
  plain <- dataset_collect(ds)
  expect_identical(dataset_collect(dataset_prefetch(ds)), plain)
  expect_identical(dataset_collect(dataset_prefetch(ds, 3), chunk_size = 128), plain)
  expect_identical(dataset_collect(dataset_prefetch(dataset_batch(ds, 7), 2), chunk_size = 100), plain)
  shuffled <- dataset_shuffle(ds, 500, seed = 9)
  expect_identical(dataset_collect(dataset_prefetch(shuffled, 2), chunk_size = 64),
                   dataset_collect(shuffled, chunk_size = 64))
  batches <- dataset_repeat(dataset_prefetch(dataset_batch(dataset_take(ds, 50), 7, drop_remainder = TRUE)), 2)
  expect_identical(ids(batches, chunk_size = 20), c(1:49, 1:49))
  twice <- dataset_repeat(dataset_prefetch(dataset_take(ds, 50)), 2)
  expect_identical(ids(twice, chunk_size = 16), c(1:50, 1:50))
  expect_identical(ids(dataset_take(dataset_prefetch(dataset_repeat(ds)), 10), chunk_size = 4), 1:10)
})

test_that("the transforms chain with the pipe and print one line each", {
  ds <- ids_dataset(10) |>
    dataset_shuffle(5, seed = 1) |>
    dataset_batch(2, drop_remainder = TRUE) |>
    dataset_repeat() |>
    dataset_take(3) |>
    dataset_prefetch(2)
  expect_length(ds$ops, 5)
  expect_identical(vapply(ds$ops, `[[`, "", "kind"), c("shuffle", "batch", "repeat", "take", "prefetch"))
  expect_length(ids(ds), 6)
  out <- capture.output(print(ds))
  expect_identical(utils::tail(out, 5), c(
    "  |> dataset_shuffle(5, seed = 1)",
    "  |> dataset_batch(2, drop_remainder = TRUE)",
    "  |> dataset_repeat()",
    "  |> dataset_take(3)",
    "  |> dataset_prefetch(2)"
  ))
  expect_match(out[1], "CSV dataset")
})

test_that("a shuffle after batching is refused", {
  ds <- dataset_shuffle(dataset_batch(ids_dataset(10), 2), 4)
  expect_error(dataset_collect(ds), class = "cppestimators_error",
               regexp = "dataset_shuffle() after dataset_batch() is not supported", fixed = TRUE)
})

test_that("the transforms check their arguments", {
  ds <- ids_dataset(5)
  err <- function(expr, message) {
    expect_error(expr, class = "cppestimators_error", regexp = message, fixed = TRUE)
  }
  err(dataset_shuffle(ds, 0), "`buffer_size` must be >= 1, given: 0.")
  err(dataset_shuffle(ds, "a"), "`buffer_size` must be a single whole number, not")
  err(dataset_shuffle(ds), "`buffer_size` is missing, with no default.")
  err(dataset_shuffle(ds, NULL), "`buffer_size` must not be NULL.")
  err(dataset_shuffle(ds, 10, seed = 1.5), "`seed` must be a single whole number")
  err(dataset_shuffle(ds, 10, reshuffle_each_iteration = NA), "`reshuffle_each_iteration` must be TRUE or FALSE")
  err(dataset_batch(ds, 0), "`batch_size` must be >= 1, given: 0.")
  err(dataset_batch(ds, 2, drop_remainder = "yes"), "`drop_remainder` must be TRUE or FALSE")
  err(dataset_batch(dataset_batch(ds, 2), 2), "a dataset can be batched once")
  err(dataset_repeat(ds, -2), "`count` must be >= 0, given: -2.")
  err(dataset_repeat(ds, 1.5), "`count` must be a single whole number")
  err(dataset_take(ds, NA), "`count` must be a single whole number")
  err(dataset_take(ds), "`count` is missing, with no default.")
  err(dataset_skip(ds, NULL), "`count` must not be NULL.")
  err(dataset_batch(ds), "`batch_size` is missing, with no default.")
  err(dataset_skip(ds, -3), "`count` must be >= 0, given: -3.")
  err(dataset_prefetch(ds, 0), "`buffer_size` must be >= 1, given: 0.")
  err(dataset_shuffle(data.frame(x = 1), 10), "`dataset` must be a dataset such as text_line_dataset()")
  err(dataset_batch(list(), 2), "`dataset` must be a dataset")
})

test_that("shuffling and prefetching keep TFRecord rows whole: matrices, lists and texts", {
  path <- tempfile(fileext = ".tfrecord")
  n <- 200
  df <- data.frame(id = seq_len(n), s = sprintf("t%d", seq_len(n)))
  df$m <- lapply(seq_len(n), function(i) c(i, -i) + 0.5)
  df$v <- lapply(seq_len(n), function(i) seq_len(i %% 4))
  df$w <- lapply(seq_len(n), function(i) rep(sprintf("w%d", i), i %% 3))
  write_tfrecord(df, path)
  ds <- tfrecord_dataset(path, list(id = fixed_len_feature(1, "int64"), s = fixed_len_feature(1, "string"),
                                    m = fixed_len_feature(2, "float32"), v = var_len_feature("int64"),
                                    w = var_len_feature("string")), chunk_size = 16L)
  plain <- dataset_collect(ds)
  out <- dataset_collect(dataset_prefetch(dataset_shuffle(ds, 50, seed = 2), 2), chunk_size = 32)
  expect_setequal(out$id, seq_len(n))
  expect_false(identical(out$id, plain$id))
  expect_identical(out, plain[out$id, , drop = FALSE], ignore_attr = "row.names")
  expect_identical(dataset_collect(dataset_prefetch(ds, 2), chunk_size = 10), plain)
})

test_that("dataset_map() runs R code on each batch: derived and changed columns", {
  ds <- ids_dataset(10)
  mapped <- dataset_map(ds, function(batch) transform(batch, id2 = id * 2, label = toupper(label)))
  expect_identical(cppestimators:::dataset_names(mapped), c("id", "label", "v", "id2"))
  out <- dataset_collect(mapped)
  expect_identical(out$id, 1:10)
  expect_equal(out$id2, 2 * (1:10))
  expect_identical(out$label, sprintf("R%d", 1:10))
  # a formula; columns may be dropped and reordered
  expect_identical(names(dataset_collect(dataset_map(ds, ~ list(v = .x$v, id = .x$id)))), c("v", "id"))
  # batched before the map: the function sees each batch, and the records are batched again by its size
  batched <- ds |> dataset_batch(3) |> dataset_map(function(b) data.frame(id = b$id, size = nrow(b), first = b$id[1]))
  out <- dataset_collect(batched)
  expect_identical(out$size, c(3L, 3L, 3L, 3L, 3L, 3L, 3L, 3L, 3L, 1L))
  expect_identical(out$first, rep(c(1L, 4L, 7L, 10L), c(3, 3, 3, 1)))
  expect_equal(cppestimators:::dataset_batch_size(batched), 3)
  # the transforms after it: a repeat reads the records (and runs the function) again
  expect_identical(ids(dataset_repeat(mapped, 2)), c(1:10, 1:10))
  expect_identical(ids(dataset_take(dataset_repeat(mapped), 12)), c(1:10, 1:2))
  expect_true(cppestimators:::dataset_is_infinite(dataset_map(dataset_repeat(ds), ~ .x)))
  expect_identical(ids(dataset_map(dataset_repeat(ds), ~ .x), n = 15), c(1:10, 1:5))
})

test_that("dataset_filter() keeps the records the predicate accepts", {
  ds <- ids_dataset(20)
  odd <- dataset_filter(ds, function(batch) batch$id %% 2 == 1)
  expect_identical(ids(odd), seq(1L, 19L, by = 2L))
  expect_identical(dataset_collect(odd)$label, sprintf("r%d", seq(1, 19, by = 2)))
  # NA drops the record; a formula; chained with a map and a batch
  expect_identical(ids(dataset_filter(ds, ~ ifelse(.x$id > 15, TRUE, NA))), 16:20)
  chained <- ds |> dataset_map(~ transform(.x, big = id > 10)) |> dataset_filter(~ .x$big) |> dataset_batch(4)
  expect_identical(ids(chained), 11:20)
  # a batch the predicate empties is skipped, not the end of the records
  expect_identical(ids(ds |> dataset_batch(5) |> dataset_filter(~ .x$id > 12)), 13:20)
  expect_identical(ids(dataset_filter(ds, ~ FALSE)), integer())
})

test_that("an estimator trains on mapped and filtered datasets as on the same data in memory", {
  n <- 60
  df <- data.frame(x = seq_len(n) / n, y = 3 * seq_len(n) / n + 1, keep = rep(c(TRUE, TRUE, FALSE), n / 3))
  path <- tempfile(fileext = ".csv")
  write.csv(df[c("x", "y", "keep")], path, row.names = FALSE)
  ds <- text_line_dataset(path, csv_record_spec(path))
  fcs <- feature_columns(column_numeric("x", "x2"))
  weights <- function(est) {
    unlist(lapply(c("x", "x2"), function(k) variable_value(est, paste0("linear/linear_model/", k, "/weights"))))
  }
  # a derived column
  streamed <- suppressMessages(linear_regressor(fcs, optimizer = "SGD"))
  mapped <- dataset_map(ds, function(b) transform(b, x2 = x^2))
  quietly(train(streamed, input_fn(mapped, features = c(x, x2), response = y, batch_size = 8L)))
  in_memory <- suppressMessages(linear_regressor(fcs, optimizer = "SGD"))
  quietly(train(in_memory, input_fn(transform(df, x2 = x^2), features = c(x, x2), response = "y", batch_size = 8L,
                                    shuffle = FALSE)))
  expect_equal(weights(streamed), weights(in_memory), tolerance = 1e-6)
  expect_equal(cppestimators:::cpp_estimator_global_step(cppestimators:::estimator_ptr(streamed)), ceiling(n / 8))
  # filtered records
  kept <- df[df$keep, ]
  streamed <- suppressMessages(linear_regressor(fcs, optimizer = "SGD"))
  filtered <- mapped |> dataset_filter(~ .x$keep)
  expect_equal(dataset_collect(filtered)$x, kept$x)
  quietly(train(streamed, input_fn(filtered, features = c(x, x2), response = y, batch_size = 8L)))
  in_memory <- suppressMessages(linear_regressor(fcs, optimizer = "SGD"))
  quietly(train(in_memory, input_fn(transform(kept, x2 = x^2), features = c(x, x2), response = "y", batch_size = 8L,
                                    shuffle = FALSE)))
  expect_equal(weights(streamed), weights(in_memory), tolerance = 1e-6)
  # evaluate() and predict() read them too
  expect_equal(quietly(evaluate(streamed, input_fn(filtered, features = c(x, x2), response = y)))$loss,
               quietly(evaluate(in_memory, transform(kept, x2 = x^2), response = "y"))$loss, tolerance = 1e-5)
  expect_equal(predict(streamed, input_fn(filtered, features = c(x, x2)))$predictions,
               predict(in_memory, transform(kept, x2 = x^2))$predictions, tolerance = 1e-6)
})

test_that("dataset_map() and dataset_filter() check their functions and results, naming them", {
  ds <- ids_dataset(10)
  expect_error(dataset_map(ds), "`map_func` is missing, with no default.", fixed = TRUE)
  expect_error(dataset_filter(ds, 3), "`predicate` must be a function or a one-sided formula, not numeric 3.",
               fixed = TRUE)
  expect_error(dataset_map(iris, identity), "`dataset` must be a dataset")
  expect_error(dataset_collect(dataset_map(ds, function(b) b[1:2, ])), class = "cppestimators_dataset_function_error",
               regexp = paste0("dataset_map\\(\\)'s `map_func` must return as many rows as it is given \\(10\\): ",
                               "column 'id' has 2"))
  expect_error(dataset_collect(dataset_map(ds, function(b) stop("no such thing"))),
               class = "cppestimators_dataset_function_error",
               regexp = "dataset_map\\(\\)'s `map_func` failed: no such thing")
  expect_error(dataset_collect(dataset_map(ds, function(b) list(m = cbind(b$id, b$id)))),
               class = "cppestimators_dataset_function_error", regexp = "column 'm' after .* is a matrix")
  expect_error(dataset_collect(dataset_filter(ds, function(b) b$id)), class = "cppestimators_dataset_function_error",
               regexp = "`predicate` must return a logical vector with a value per record \\(10\\)")
  # the columns of a later batch must be those of the first
  flip <- ds |> dataset_batch(5) |> dataset_map(function(b) if (b$id[1] == 1) b["id"] else b["v"])
  expect_error(dataset_collect(flip), class = "cppestimators_dataset_function_error",
               regexp = "returned the columns v for a batch where it returned id for the first one")
  # a map's error during training reaches train()
  bad <- dataset_map(dataset_batch(ds, 2), function(b) if (b$id[1] > 1) stop("later batch") else transform(b, y = id))
  est <- suppressMessages(linear_regressor(feature_columns(column_numeric("id"))))
  expect_error(quietly(train(est, input_fn(bad, features = id, response = y))),
               regexp = "`map_func` failed: later batch")
  # printed as the call that applied it
  lines <- utils::capture.output(print(dataset_batch(dataset_filter(ds, ~ .x$id > 2), 4)))
  expect_identical(utils::tail(lines, 2), c("  |> dataset_filter(~.x$id > 2)", "  |> dataset_batch(4)"))
})
