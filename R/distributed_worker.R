# A socket cluster's worker (R/distributed.R): the shards it keeps between
# calls and its part of each training, run inside the chief's calls.

# What a worker keeps between calls: its shards, by key (the newest few).
worker_state <- new.env(parent = emptyenv())
worker_keep_shards <- 4L

cluster_worker_has <- function(key) !is.null(worker_state$shards[[key]])

cluster_worker_store <- function(key, shard) {
  shards <- worker_state$shards %||% list()
  shards[[key]] <- shard
  if (length(shards) > worker_keep_shards) shards <- utils::tail(shards, worker_keep_shards)
  worker_state$shards <- shards
  invisible(TRUE)
}

# The rank of a socket cluster's worker: its part of the session, with the
# chief's connection. Runs inside the worker's call from the chief.
cluster_worker_train <- function(desc, rank, size, key, weight_key, batch_size, num_epochs, shuffle, seed,
                                 kernel, share) {
  con <- master_connection()
  with_last_frame(con, worker_train(con, desc, rank, size, key, weight_key, batch_size, num_epochs, shuffle,
                                    seed, kernel, share))
}

# Runs a worker's part, then tells the chief how it ended in a last frame
# ("done" with its result, or "error" with the message) before parallel's
# own reply.
with_last_frame <- function(con, expr) {
  res <- tryCatch(expr, error = function(e) {
    try(frame_write(con, list(cppe = "error", message = conditionMessage(e))), silent = TRUE)
    stop(e)
  })
  frame_write(con, list(cppe = "done", value = res))
  res
}

worker_train <- function(con, desc, rank, size, key, weight_key, batch_size, num_epochs, shuffle, seed,
                         kernel, share) {
  shard <- worker_state$shards[[key]]
  if (is.null(shard)) stop("this worker does not hold the shard it was asked to train on")
  if (batch_size == 0L) batch_size <- max(1L, NROW(shard$labels))  # its whole shard a batch
  ptr <- cpp_estimator_new(desc)
  coll <- cpp_r_collective(worker_collective(con, rank, size))
  ses <- cpp_session_new(ptr, shard$features, shard$labels, shard$weights, weight_key, "train",
                         as.integer(batch_size), num_epochs, shuffle, seed, shard_block(key, desc, ptr, shard),
                         engine_threads(), kernel, coll, FALSE, share)
  on.exit(cpp_session_close(ses), add = TRUE)
  r_session <- new_r_session(ses, "train")
  res <- cpp_session_run(ses, list(), r_session, new_run_context(ses, r_session), hostname())
  list(steps = res$steps, global_step = res$global_step)
}

# The dense features of a shard for the model's columns, as one float32
# block (what the chief's own sessions cache, R/feature_cache.R), built once
# per shard and set of columns and kept with the shard; none when the model
# has no dense columns or the block would pass the cache's budget.
shard_block <- function(key, desc, ptr, shard) {
  width <- cpp_estimator_dense_width(ptr)
  n <- if (length(shard$features)) NROW(shard$features[[1]]) else 0
  if (width == 0 || n == 0 || n * width * 4 > cache_budget()) return(NULL)
  id <- paste0(key, "-", rlang::hash(desc$model$feature_columns))
  blocks <- worker_state$blocks %||% list()
  if (is.null(blocks[[id]])) {
    kept <- names(worker_state$shards)
    blocks <- blocks[vapply(names(blocks), function(b) any(startsWith(b, kept)), TRUE)]  # of shards still kept
    blocks[[id]] <- cpp_dense_block(ptr, shard$features, engine_threads())
    worker_state$blocks <- blocks
  }
  blocks[[id]]
}

# The same over a streaming dataset: `args` as stream_session_args() gave
# them, with this worker's shard in the pipeline.
cluster_worker_stream <- function(desc, rank, size, args, seed, kernel, share) {
  con <- master_connection()
  with_last_frame(con, worker_stream(con, desc, rank, size, args, seed, kernel, share))
}

worker_stream <- function(con, desc, rank, size, args, seed, kernel, share) {
  ptr <- cpp_estimator_new(desc)
  coll <- cpp_r_collective(worker_collective(con, rank, size))
  ses <- cpp_stream_session_new(ptr, args$pipeline, args$features, args$response, args$has_vocabulary,
                                args$vocabulary, args$weight, "train", args$batch_size, seed, args$window,
                                engine_threads(), kernel, coll, FALSE, share)
  on.exit(cpp_session_close(ses), add = TRUE)
  r_session <- new_r_session(ses, "train")
  res <- cpp_session_run(ses, list(), r_session, new_run_context(ses, r_session), hostname())
  list(steps = res$steps, global_step = res$global_step)
}

# The connection of this socket-cluster worker to its chief: the node that
# parallel's worker loop (which parallelly's workers run too) reads its
# calls from, found among the frames of the call running now.
master_connection <- function() {
  for (f in rev(sys.frames())) {
    m <- get0("master", envir = f, inherits = FALSE)
    if (inherits(m, c("SOCK0node", "SOCKnode")) && inherits(m$con, "connection")) return(m$con)
  }
  stop("cppestimators: this process is not a socket cluster's worker running a call of its chief")
}

# A worker's ranks: each operation sends its part to the chief and reads
# the result; the chief's abort ends the call with an error.
worker_collective <- function(con, rank, size) {
  receive <- function() {
    msg <- frame_read(con)
    if (identical(msg$cppe, "abort")) stop(sprintf("the chief gave up: %s", msg$reason), call. = FALSE)
    msg
  }
  send <- function(bytes) frame_write(con, list(cppe = "part", bytes = bytes))
  list(
    rank = as.integer(rank), size = as.integer(size),
    allgather = function(bytes) {
      send(bytes)
      receive()$parts
    },
    broadcast = function(bytes, root) receive()$bytes,
    allcombine = function(bytes) {
      send(bytes)
      receive()$bytes
    },
    abort = function(reason) frame_write(con, list(cppe = "abort", reason = reason))
  )
}
