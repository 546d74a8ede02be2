# The transforms of a streaming dataset, with tfdatasets' names and
# arguments: each checks its arguments and appends an op to `dataset$ops`
# (add_op(): list(kind = , ...), read by glue_stream.cpp's
# pipeline_from_r()), so that they chain with the pipe. Nothing is read
# until the dataset is used.

# `dataset` as given, or an error if it is not a streaming dataset.
check_dataset <- function(dataset) {
  if (!inherits(dataset, "cppestimators_dataset")) {
    abort(paste0("`dataset` must be a dataset such as text_line_dataset() or tfrecord_dataset() returns, not ",
                 describe(dataset), "."))
  }
  dataset
}

# An error if an argument without a default was not given.
check_given <- function(given, arg) {
  if (!given) abort(sprintf("`%s` is missing, with no default.", arg))
}

# `dataset` with the transform `kind` and its arguments appended: an op of
# class cppestimators_dataset_op_<kind> and cppestimators_dataset_op (the
# engine gets it without its classes, engine_pipeline()).
add_op <- function(dataset, kind, ...) {
  op <- structure(list(kind = kind, ...),
                  class = c(paste0("cppestimators_dataset_op_", kind), "cppestimators_dataset_op"))
  dataset$ops <- c(dataset$ops, list(op))
  dataset
}

# A count of rows (or batches) of skip, take and repeat: a whole number >= 0,
# or -1 (tf.data's "all of them") as `all`.
check_op_count <- function(count, all) {
  if (is.numeric(count) && length(count) == 1L && !is.na(count) && count == -1) return(all)
  check_whole(count, "count", min = 0, null_ok = FALSE, max = 2^53)
}

#' Shuffle the records of a dataset
#'
#' Shuffles the records as tf.data's shuffle buffer does: the first
#' `buffer_size` records fill a buffer, and each record given out is drawn
#' at random from the buffer, its place taken by the next record read. A
#' buffer at least as large as the dataset shuffles it uniformly; a smaller
#' one only moves each record within a window of about `buffer_size`
#' records (a buffer of 1 keeps the order). The buffer is held in memory.
#'
#' @param dataset A dataset, such as [text_line_dataset()] returns.
#' @param buffer_size The number of records in the buffer.
#' @param seed An integer seed; `NULL`: drawn from the session's seed
#'   (`run_config(tf_random_seed = )`), or from R's random numbers.
#' @param reshuffle_each_iteration Whether each pass over the dataset (each
#'   repetition of [dataset_repeat()], each epoch) has an order of its own
#'   (`TRUE`), or all the first pass's order (`FALSE`).
#' @return The dataset with the transform appended.
#' @family dataset transforms
#' @examples
#' path <- tempfile(fileext = ".csv")
#' writeLines(c("x,y", paste(1:10, (1:10) %% 2, sep = ",")), path)
#' ds <- text_line_dataset(path, csv_record_spec(path))
#' dataset_collect(dataset_shuffle(ds, buffer_size = 10, seed = 1))
#' @export
dataset_shuffle <- function(dataset, buffer_size, seed = NULL, reshuffle_each_iteration = TRUE) {
  check_dataset(dataset)
  check_given(!missing(buffer_size), "buffer_size")
  buffer_size <- check_whole(buffer_size, "buffer_size", min = 1, null_ok = FALSE, max = 2^53)
  seed <- check_whole(seed, "seed", min = -(2^31 - 1), null_ok = TRUE, max = 2^31 - 1)
  check_flag(reshuffle_each_iteration, "reshuffle_each_iteration")
  add_op(dataset, "shuffle", buffer_size = buffer_size, seed = seed %||% NA_real_,
         reshuffle_each_iteration = reshuffle_each_iteration)
}

#' Combine consecutive records of a dataset into batches
#'
#' Makes batches of `batch_size` records, in order; the last batch of each
#' pass over the records holds the ones left, unless `drop_remainder`. The
#' transforms applied after it ([dataset_take()], [dataset_skip()],
#' [dataset_repeat()]) count batches rather than records. Without it, the
#' batch size of training cuts the records into batches.
#'
#' @inheritParams dataset_shuffle
#' @param batch_size The number of records in a batch.
#' @param drop_remainder Whether to drop the last batch of a pass when it
#'   holds fewer than `batch_size` records.
#' @family dataset transforms
#' @examples
#' path <- tempfile(fileext = ".csv")
#' writeLines(c("x,y", paste(1:10, (1:10) %% 2, sep = ",")), path)
#' ds <- text_line_dataset(path, csv_record_spec(path))
#' # 3 batches of 3 records; the tenth record is dropped
#' dataset_collect(dataset_batch(ds, 3, drop_remainder = TRUE))
#' @export
dataset_batch <- function(dataset, batch_size, drop_remainder = FALSE) {
  check_dataset(dataset)
  check_given(!missing(batch_size), "batch_size")
  batch_size <- check_whole(batch_size, "batch_size", min = 1, null_ok = FALSE, max = 2^31 - 1)
  check_flag(drop_remainder, "drop_remainder")
  if (any(vapply(dataset$ops, inherits, NA, "cppestimators_dataset_op_batch"))) {
    abort("a dataset can be batched once: dataset_batch() is already applied")
  }
  add_op(dataset, "batch", batch_size = batch_size, drop_remainder = drop_remainder)
}

#' Repeat a dataset
#'
#' Reads the dataset `count` times in a row, as one pass; before
#' [dataset_batch()], batches cross the repetitions, after it each
#' repetition ends in its partial batch. A [dataset_shuffle()] before it
#' shuffles each repetition anew (with `reshuffle_each_iteration = TRUE`).
#'
#' @inheritParams dataset_shuffle
#' @param count The number of repetitions; `NULL` (or -1): forever, until
#'   training stops or a [dataset_take()] after it.
#' @family dataset transforms
#' @examples
#' path <- tempfile(fileext = ".csv")
#' writeLines(c("x,y", paste(1:10, (1:10) %% 2, sep = ",")), path)
#' ds <- text_line_dataset(path, csv_record_spec(path))
#' dataset_collect(dataset_repeat(ds, 2))
#' # a dataset repeated forever is read with a finite `n`
#' dataset_collect(dataset_repeat(ds), n = 25)
#' @export
dataset_repeat <- function(dataset, count = NULL) {
  check_dataset(dataset)
  count <- if (is.null(count)) Inf else check_op_count(count, all = Inf)
  add_op(dataset, "repeat", count = count)
}

#' Take the first records of a dataset
#'
#' Keeps the first `count` records of each pass over the dataset (after
#' [dataset_batch()]: the first `count` batches).
#'
#' @inheritParams dataset_shuffle
#' @param count The number of records (or batches) to keep; -1: all.
#' @family dataset transforms
#' @examples
#' path <- tempfile(fileext = ".csv")
#' writeLines(c("x,y", paste(1:10, (1:10) %% 2, sep = ",")), path)
#' ds <- text_line_dataset(path, csv_record_spec(path))
#' dataset_collect(dataset_take(ds, 3))
#' @export
dataset_take <- function(dataset, count) {
  check_dataset(dataset)
  check_given(!missing(count), "count")
  count <- check_op_count(count, all = Inf)
  add_op(dataset, "take", count = count)
}

#' Skip the first records of a dataset
#'
#' Drops the first `count` records of each pass over the dataset (after
#' [dataset_batch()]: the first `count` batches).
#'
#' @inheritParams dataset_shuffle
#' @param count The number of records (or batches) to drop; -1: all.
#' @family dataset transforms
#' @examples
#' path <- tempfile(fileext = ".csv")
#' writeLines(c("x,y", paste(1:10, (1:10) %% 2, sep = ",")), path)
#' ds <- text_line_dataset(path, csv_record_spec(path))
#' dataset_collect(dataset_skip(ds, 7))
#' @export
dataset_skip <- function(dataset, count) {
  check_dataset(dataset)
  check_given(!missing(count), "count")
  count <- check_op_count(count, all = 2^62)
  add_op(dataset, "skip", count = count)
}

#' Read one shard of a dataset
#'
#' tf.data's `shard()`: keeps the records whose position in each pass
#' (counted from 0) is `index` modulo `num_shards`, so that `num_shards`
#' processes reading the same files each train on a disjoint part of them.
#' Training across processes ([train()]'s `cluster`) applies it itself: each
#' worker of a socket cluster reads shard `worker - 1` of the workers,
#' each MPI rank shard `rank` of the ranks (a dataset given with its own
#' `dataset_shard()` is read as it is). Apply it to the records, before
#' [dataset_shuffle()] and [dataset_batch()], so that the shards stay
#' disjoint.
#'
#' @inheritParams dataset_shuffle
#' @param num_shards The number of shards (processes).
#' @param index Which shard this is, from 0 to `num_shards - 1`.
#' @family dataset transforms
#' @examples
#' path <- tempfile(fileext = ".csv")
#' writeLines(c("x,y", paste(1:10, (1:10) %% 2, sep = ",")), path)
#' ds <- text_line_dataset(path, csv_record_spec(path))
#' dataset_collect(dataset_shard(ds, num_shards = 3, index = 1))
#' @export
dataset_shard <- function(dataset, num_shards, index) {
  check_dataset(dataset)
  check_given(!missing(num_shards), "num_shards")
  check_given(!missing(index), "index")
  num_shards <- check_whole(num_shards, "num_shards", min = 1, null_ok = FALSE, max = 2^31 - 1)
  index <- check_whole(index, "index", min = 0, null_ok = FALSE, max = 2^31 - 1)
  if (index >= num_shards) {
    abort(sprintf("`index` must be less than `num_shards` (%s), not %s: shards count from 0.",
                  format(num_shards), format(index)))
  }
  add_op(dataset, "shard", num_shards = num_shards, index = index)
}

#' Read a dataset ahead
#'
#' Reads and parses the next chunks of records on a background thread
#' while the current ones are used, so that reading overlaps training. The
#' records are the same, in the same order. Wherever it is placed, it reads
#' the records ahead (before the batches are cut). A dataset whose records
#' come from R (a query run by R functions) is read on R's thread, without
#' reading ahead.
#'
#' @inheritParams dataset_shuffle
#' @param buffer_size The number of chunks read ahead (at least 1: while
#'   one chunk is used, the next is read).
#' @family dataset transforms
#' @examples
#' path <- tempfile(fileext = ".csv")
#' writeLines(c("x,y", paste(1:10, (1:10) %% 2, sep = ",")), path)
#' ds <- text_line_dataset(path, csv_record_spec(path))
#' dataset_collect(dataset_prefetch(dataset_batch(ds, 4), 2))
#' @export
dataset_prefetch <- function(dataset, buffer_size = 1) {
  check_dataset(dataset)
  buffer_size <- check_whole(buffer_size, "buffer_size", min = 1, null_ok = FALSE, max = 64)
  add_op(dataset, "prefetch", buffer_size = buffer_size)
}

# Whether reading the dataset never ends: a repeat forever that no take
# after it bounds (before a dataset_map() or dataset_filter(), or after it).
dataset_is_infinite <- function(dataset) {
  forever <- inherits(dataset, "cppestimators_mapped_dataset") && dataset_is_infinite(dataset$upstream)
  for (op in dataset$ops) {
    if (inherits(op, "cppestimators_dataset_op_repeat") && !is.finite(op$count)) forever <- TRUE
    if (inherits(op, "cppestimators_dataset_op_take") && is.finite(op$count)) forever <- FALSE
  }
  forever
}

# One line per transform, as the call that applied it.
format_dataset_ops <- function(ops) {
  vapply(ops, function(op) {
    sprintf("  %s dataset_%s(%s)", "|>", op$kind, paste(dataset_op_args(op), collapse = ", "))
  }, "")
}

# The arguments of the call that applied a transform, as text.
dataset_op_args <- function(op) UseMethod("dataset_op_args")

#' @export
dataset_op_args.default <- function(op) NULL

#' @export
dataset_op_args.cppestimators_dataset_op_shuffle <- function(op) {
  c(format(op$buffer_size), if (!is.na(op$seed)) paste("seed =", format(op$seed)),
    if (!op$reshuffle_each_iteration) "reshuffle_each_iteration = FALSE")
}

#' @export
dataset_op_args.cppestimators_dataset_op_batch <- function(op) {
  c(format(op$batch_size), if (op$drop_remainder) "drop_remainder = TRUE")
}

#' @export
dataset_op_args.cppestimators_dataset_op_repeat <- function(op) if (is.finite(op$count)) format(op$count)

#' @export
dataset_op_args.cppestimators_dataset_op_take <- function(op) {
  if (is.finite(op$count) && op$count < 2^62) format(op$count) else "-1"
}

#' @export
dataset_op_args.cppestimators_dataset_op_skip <- dataset_op_args.cppestimators_dataset_op_take

#' @export
dataset_op_args.cppestimators_dataset_op_prefetch <- function(op) format(op$buffer_size)

#' @export
dataset_op_args.cppestimators_dataset_op_shard <- function(op) {
  c(paste("num_shards =", format(op$num_shards)), paste("index =", format(op$index)))
}

print_dataset_ops <- function(x) {
  if (length(x$ops)) cat(format_dataset_ops(x$ops), sep = "\n")
  invisible(x)
}

# The dataset, read as shard `index` of `num_shards` (from 0), unless it is
# sharded already (dataset_shard() given by the user): the shard is taken
# first, before any shuffle or batch, so that the shards are disjoint.
shard_dataset <- function(dataset, num_shards, index) UseMethod("shard_dataset")

#' @export
shard_dataset.default <- function(dataset, num_shards, index) {
  if (any(vapply(dataset$ops, inherits, TRUE, "cppestimators_dataset_op_shard"))) return(dataset)
  ops <- dataset$ops
  dataset$ops <- list()
  dataset <- dataset_shard(dataset, num_shards, index)
  dataset$ops <- c(dataset$ops, ops)
  dataset
}
