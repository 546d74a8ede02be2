# Training across processes: one estimator trained by several R processes,
# each step a round in which every process's batch statistics are combined
# (the engine's session/step_exchange.h) and every process applies the
# same update. Two transports, both existing ones:
# - a socket cluster (parallel::makePSOCKcluster(), parallelly's
#   makeClusterPSOCK()): the session calling train() is the chief (rank 0);
#   it reads no rows, runs every hook and writes model_dir, while the
#   workers (ranks 1..W) train on disjoint shards of the data, sent once and
#   kept there. The rounds travel over the cluster's own connections, as R
#   serializes objects, the chief combining each round once;
# - MPI (Rmpi): every rank runs the same script; rank 0 is the chief and
#   trains on a shard too.
# Estimator objects never travel: the engine's description of the model
# (new_engine()'s list) does, and the chief's variables at the start of
# each train() (a broadcast inside the engine).

# ---- what `cluster` may be ----

# NULL (train in this process), a socket cluster, or "mpi"; anything else
# is an error naming the argument.
check_cluster <- function(cluster, arg = "cluster") {
  if (is.null(cluster) || is_socket_cluster(cluster) || identical(cluster, "mpi")) return(cluster)
  abort(sprintf(paste0("`%s` must be NULL, a socket cluster (parallel::makePSOCKcluster(), ",
                       "parallelly::makeClusterPSOCK()) or \"mpi\", not %s."), arg, describe(cluster)),
        class = "cppestimators_cluster_error")
}

is_socket_cluster <- function(x) {
  inherits(x, "cluster") && length(x) > 0L &&
    all(vapply(x, function(n) inherits(n, c("SOCKnode", "SOCK0node")) && inherits(n$con, "connection"), TRUE))
}

# How long the chief waits for a worker's answer before it gives up on it
# (options(cppestimators.cluster_timeout), seconds): 8 by default, so that
# with the second given to the other workers train() stops within 10.
cluster_timeout <- function() {
  t <- getOption("cppestimators.cluster_timeout", 8)
  check_number(t, "cppestimators.cluster_timeout", min = 0.1,
               must = "a number of seconds >= 0.1")
}

# ---- the chief's side of a socket cluster ----

# The description of worker i, for messages: its number and host.
worker_name <- function(cl, i) {
  host <- cl[[i]]$host %||% "localhost"
  sprintf("worker %d (%s)", i, host)
}

cluster_fail <- function(msg, class = NULL) {
  abort(msg, class = c(class, "cppestimators_cluster_error"))
}

# Sends `msg` to node i (as parallel does: R's serialization over the
# node's connection).
node_send <- function(cl, i, msg) {
  ok <- tryCatch({
    serialize(msg, cl[[i]]$con, xdr = FALSE)
    TRUE
  }, error = function(e) FALSE)
  if (!ok) cluster_fail(sprintf("%s cannot be reached: its connection is closed (did the process end?)",
                                worker_name(cl, i)), "cppestimators_cluster_lost")
  invisible()
}

# Whether `con` has something to read within `timeout` seconds (a wait cut
# short by a signal, a profiler's say, waits again for the rest).
readable_within <- function(con, timeout) {
  until <- Sys.time() + timeout
  repeat {
    left <- as.numeric(difftime(until, Sys.time(), units = "secs"))
    ready <- tryCatch(socketSelect(list(con), write = FALSE, timeout = max(0, left)), error = function(e) TRUE)
    if (isTRUE(ready)) return(TRUE)
    if (left <= 0) return(FALSE)
  }
}

# The next message from node i, waiting at most `timeout` seconds.
node_receive <- function(cl, i, timeout) {
  con <- cl[[i]]$con
  if (!readable_within(con, timeout)) {
    cluster_fail(sprintf("%s did not answer within %g seconds (options(cppestimators.cluster_timeout))",
                         worker_name(cl, i), timeout), "cppestimators_cluster_timeout")
  }
  msg <- tryCatch(unserialize(con), error = function(e) e)
  if (inherits(msg, "error")) {
    cluster_fail(sprintf("%s stopped: its connection closed (the process ended?)", worker_name(cl, i)),
                 "cppestimators_cluster_lost")
  }
  msg
}

# Runs fun(args) on node i the way parallel's clusterCall() does (an EXEC
# message the worker's loop answers with a VALUE message), without waiting.
node_start <- function(cl, i, fun, args) {
  node_send(cl, i, list(type = "EXEC", data = list(fun = fun, args = args, return = TRUE, tag = NULL),
                        tag = NULL))
}

# The VALUE a node sends when its call returns; messages of an unfinished
# round before it are skipped. An error on the worker is an error here.
node_value <- function(cl, i, timeout) {
  repeat {
    msg <- node_receive(cl, i, timeout)
    if (identical(msg$type, "VALUE")) break
  }
  if (!isTRUE(msg$success)) {
    cluster_fail(sprintf("%s failed: %s", worker_name(cl, i), paste(as.character(msg$value), collapse = "")),
                 "cppestimators_cluster_worker_error")
  }
  msg$value
}

# The messages of a training's rounds, between the chief and a worker
# inside the worker's call: R's serialization of the message, written in
# one piece, so that the connection's TCP stack sends it at once rather
# than holding its tail back (serialize() to the connection writes it in
# pieces, and Nagle's algorithm against delayed acknowledgements then costs
# 40 ms a round: R's socket connections do not set TCP_NODELAY).
frame_write <- function(con, msg) {
  writeBin(serialize(msg, NULL, xdr = FALSE), con)
  invisible()
}

# The next message of `con` (blocking; R's own framing).
frame_read <- function(con) unserialize(con)

# The next frame from node i, waiting at most `timeout` seconds.
node_frame <- function(cl, i, timeout) {
  con <- cl[[i]]$con
  if (!readable_within(con, timeout)) {
    cluster_fail(sprintf("%s did not answer within %g seconds (options(cppestimators.cluster_timeout))",
                         worker_name(cl, i), timeout), "cppestimators_cluster_timeout")
  }
  msg <- tryCatch(frame_read(con), error = function(e) e)
  if (inherits(msg, "error")) {
    cluster_fail(sprintf("%s stopped: its connection closed (the process ended?)", worker_name(cl, i)),
                 "cppestimators_cluster_lost")
  }
  msg
}

node_frame_send <- function(cl, i, msg, serialized = FALSE) {
  ok <- tryCatch({
    if (serialized) writeBin(msg, cl[[i]]$con) else frame_write(cl[[i]]$con, msg)
    TRUE
  }, error = function(e) FALSE)
  if (!ok) cluster_fail(sprintf("%s cannot be reached: its connection is closed (did the process end?)",
                                worker_name(cl, i)), "cppestimators_cluster_lost")
  invisible()
}

# Every worker has this package, at this version: checked before anything
# else is sent (the function asked runs in the worker's base environment,
# so a worker without the package can answer).
check_cluster_workers <- function(cl, timeout = cluster_timeout()) {
  ask <- function(wanted) {
    v <- tryCatch(as.character(utils::packageVersion("cppestimators")), error = function(e) NA_character_)
    # the version asked for must load too (its own dependencies found)
    loads <- ""
    if (identical(v, wanted)) {
      loads <- tryCatch({
        loadNamespace("cppestimators")
        ""
      }, error = function(e) conditionMessage(e))
    }
    list(version = v, loads = loads, pid = Sys.getpid(), host = Sys.info()[["nodename"]])
  }
  environment(ask) <- baseenv()
  mine <- as.character(utils::packageVersion("cppestimators"))
  for (i in seq_along(cl)) node_start(cl, i, ask, list(mine))
  answers <- lapply(seq_along(cl), function(i) node_value(cl, i, timeout))
  for (i in seq_along(cl)) {
    v <- answers[[i]]$version
    if (is.na(v)) {
      cluster_fail(sprintf(paste("%s does not have the cppestimators package installed (this session has %s);",
                                 "install it there first."), worker_name(cl, i), mine),
                   "cppestimators_cluster_version")
    }
    if (!identical(v, mine)) {
      cluster_fail(sprintf(paste("%s has cppestimators %s, this session %s: every process of a training",
                                 "must run the same version."), worker_name(cl, i), v, mine),
                   "cppestimators_cluster_version")
    }
    if (nzchar(answers[[i]]$loads)) {
      cluster_fail(sprintf("%s cannot load the cppestimators package (%s): %s", worker_name(cl, i), v,
                           answers[[i]]$loads), "cppestimators_cluster_version")
    }
  }
  invisible(answers)
}

# Rows of `data` (a session's features, labels, weights) for shard r of w:
# rows r, r + w, r + 2w, ... (1-based r), so that each shard sees every part
# of a sorted table.
take_shard <- function(data, r, w) {
  n <- if (length(data$features)) NROW(data$features[[1]]) else NROW(data$labels)
  take_rows(data, if (n >= r) seq.int(r, n, by = w) else integer())
}

take_rows <- function(data, rows) {
  take <- function(x) {
    if (is.null(x)) return(NULL)
    if (length(dim(x)) == 2L) x[rows, , drop = FALSE] else x[rows]
  }
  data$features <- lapply(data$features, take)
  data$labels <- take(data$labels)
  data$weights <- take(data$weights)
  data
}

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

# The shards of `data` on the workers, sent only to workers that do not
# hold them yet (a new cluster, or other data): the key names the data.
send_shards <- function(cl, data, timeout) {
  w <- length(cl)
  key <- paste0(rlang::hash(list(data$features, data$labels, data$weights)), "-", w)
  for (i in seq_len(w)) node_start(cl, i, cluster_worker_has, list(key))
  has <- vapply(seq_len(w), function(i) isTRUE(node_value(cl, i, timeout)), TRUE)
  for (i in which(!has)) {
    shard <- take_shard(data, i, w)
    node_start(cl, i, cluster_worker_store, list(key, shard[c("features", "labels", "weights")]))
  }
  for (i in which(!has)) node_value(cl, i, max(timeout, 60))
  key
}

# The chief's ranks: itself (0, reading no rows) and the workers 1..W. The
# operations follow the engine's order on every rank: the chief takes each
# worker's part, combines or gathers, and sends every worker the result.
chief_collective <- function(cl, timeout) {
  w <- length(cl)
  state <- new.env(parent = emptyenv())
  state$failed <- NULL
  # Once a round failed, the engine is unwinding that error and asks only
  # for its last round (a stop): answered here, without the workers, and
  # without a second R error, which would replace the first on its way out.
  failed <- function() !is.null(state$failed)
  fail_on <- function(expr) {
    tryCatch(expr, error = function(e) {
      state$failed <- conditionMessage(e)
      # a worker that died or did not answer is not waited for again
      if (inherits(e, c("cppestimators_cluster_lost", "cppestimators_cluster_timeout")) && !is.null(state$current)) {
        state$phase[state$current] <- "lost"
      }
      abort(e)
    })
  }
  parts_of <- function(mine) {
    parts <- vector("list", w + 1L)
    parts[[1L]] <- mine
    for (i in seq_len(w)) {
      state$current <- i
      msg <- node_frame(cl, i, timeout)
      if (!identical(msg$cppe, "part")) {
        state$phase[i] <- if (msg$cppe %in% c("done", "error")) "finished" else "training"
        cluster_fail(sprintf("%s gave up: %s", worker_name(cl, i), msg$reason %||% msg$message %||% "its call ended"),
                     "cppestimators_cluster_worker_error")
      }
      parts[[i + 1L]] <- msg$bytes
    }
    state$current <- NULL
    parts
  }
  send_all <- function(msg) {
    bytes <- serialize(msg, NULL, xdr = FALSE)  # once, for every worker
    for (i in seq_len(w)) node_frame_send(cl, i, bytes, serialized = TRUE)
  }
  # per worker: "training" (its call sends frames), "finished" (its last
  # frame read, parallel's reply to the call pending), "drained", or "lost"
  state$phase <- rep("training", w)
  list(
    rank = 0L, size = w + 1L, state = state,
    allgather = function(bytes) {
      fail_on({
        if (failed()) return(c(list(bytes), rep(list(raw()), w)))
        parts <- parts_of(bytes)
        send_all(list(type = "cppe", cppe = "parts", parts = parts))
        parts
      })
    },
    broadcast = function(bytes, root) {
      fail_on({
        if (failed()) return(bytes)
        send_all(list(type = "cppe", cppe = "bytes", bytes = bytes))
        bytes
      })
    },
    allcombine = function(bytes) {
      fail_on({
        if (failed()) return(cpp_round_combine(list(bytes)))
        combined <- cpp_round_combine(parts_of(bytes))
        send_all(list(type = "cppe", cppe = "bytes", bytes = combined))
        combined
      })
    },
    abort = function(reason) {
      if (is.null(state$failed)) state$failed <- reason
      invisible()
    }
  )
}

# Reads what worker i still sends of its call (its last frame, then
# parallel's reply) within `timeout` seconds, so that the cluster stays in
# step for later calls; returns the last frame (NULL if it was read before).
drain_worker <- function(cl, coll, i, timeout) {
  st <- coll$state
  last <- NULL
  while (st$phase[i] == "training") {
    msg <- node_frame(cl, i, timeout)
    if (isTRUE(msg$cppe %in% c("done", "error"))) {
      st$phase[i] <- "finished"
      last <- msg
    }
  }
  if (st$phase[i] == "finished") {
    node_value_any(cl, i, timeout)
    st$phase[i] <- "drained"
  }
  last
}

# parallel's reply to a call, whatever it holds.
node_value_any <- function(cl, i, timeout) {
  repeat {
    msg <- node_receive(cl, i, timeout)
    if (identical(msg$type, "VALUE")) return(msg)
  }
}

# Tells every worker still training that the chief gave up, and waits a
# little (a second in all) for each to return from its call, so that the
# cluster stays usable; workers that do not answer are left (make a new
# cluster).
release_workers <- function(cl, coll, reason) {
  st <- coll$state
  live <- which(st$phase %in% c("training", "finished"))
  for (i in live[st$phase[live] == "training"]) {
    # (a `type` parallel's worker loop ignores, should the call have ended already)
    tryCatch(node_frame_send(cl, i, list(type = "cppe", cppe = "abort", reason = reason)), error = function(e) NULL)
  }
  until <- Sys.time() + 1
  for (i in live) {
    left <- as.numeric(difftime(until, Sys.time(), units = "secs"))
    ok <- left > 0 && !inherits(tryCatch(drain_worker(cl, coll, i, left), error = function(e) e), "error")
    if (!ok) st$phase[i] <- "lost"
  }
  invisible()
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

# The dataset, read as shard `index` of `num_shards` (from 0), unless it is
# sharded already (dataset_shard() given by the user): the shard is taken
# first, before any shuffle or batch, so that the shards are disjoint.
shard_dataset <- function(dataset, num_shards, index) {
  if (any(vapply(dataset$ops, inherits, TRUE, "cppestimators_dataset_op_shard"))) return(dataset)
  # the records before a dataset_map() or dataset_filter() (which keep each
  # record's own result): each process runs R code on its shard only
  if (inherits(dataset, "cppestimators_mapped_dataset")) {
    dataset$upstream <- shard_dataset(dataset$upstream, num_shards, index)
    return(dataset)
  }
  ops <- dataset$ops
  dataset$ops <- list()
  dataset <- dataset_shard(dataset, num_shards, index)
  dataset$ops <- c(dataset$ops, ops)
  dataset
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

# The chief's part of a train() on a socket cluster (run_session_impl()
# calls it with the session's resolved data): checks the workers, sends
# the shards they lack, starts their sessions and returns the chief's:
# its data (none), collective, and finish()/fail() for after the run.
socket_training <- function(cl, object, data, seed, kernel, hooks) {
  share <- wants_losses(hooks)
  timeout <- cluster_timeout()
  check_cluster_workers(cl, timeout)
  w <- length(cl)
  desc <- engine_description(object)
  coll <- chief_collective(cl, timeout)
  if (isTRUE(data$stream)) {
    # each worker reads its shard of the files itself; the chief reads one
    # row, for the columns
    args <- stream_session_args(object, data$input, "train")
    for (i in seq_len(w)) {
      mine <- args
      mine$pipeline <- engine_pipeline(shard_dataset(args$dataset, w, i - 1L))
      mine$dataset <- NULL
      node_start(cl, i, cluster_worker_stream, list(desc, i, w + 1L, mine, rank_seed(seed, i), kernel, share))
    }
    chief <- data
    chief$input$dataset <- dataset_take(data$input$dataset, 0)
  } else {
    key <- send_shards(cl, data, timeout)
    for (i in seq_len(w)) {
      node_start(cl, i, cluster_worker_train, list(
        desc, i, w + 1L, key, object$spec$weight_column$name %||% "",
        if (isTRUE(data$whole_batches)) 0L else data$batch_size, data$num_epochs,
        isTRUE(data$shuffle), rank_seed(seed, i), kernel, share))
    }
    chief <- take_rows(data, integer())
  }
  list(
    data = chief, collective = cpp_r_collective(coll), observer = TRUE, share_losses = share,
    finish = function() {
      for (i in seq_len(w)) {
        last <- drain_worker(cl, coll, i, timeout)
        if (identical(last$cppe, "error")) {
          cluster_fail(sprintf("%s failed: %s", worker_name(cl, i), last$message),
                       "cppestimators_cluster_worker_error")
        }
      }
    },
    fail = function(e) release_workers(cl, coll, conditionMessage(e))
  )
}

# Whether the rounds carry the batches' per-example losses to the chief:
# only for hooks that can fetch them (those running R code: R closures,
# the logging hook's formatter).
wants_losses <- function(hooks) any(vapply(hooks, function(h) isTRUE(hook_trait(h, "runs_r_code")), TRUE))

# Shuffling seeds differ by rank (the same seed would give every worker the
# same order of its rows).
rank_seed <- function(seed, rank) (seed + 7919 * rank) %% 2^31

# ---- MPI ----

# Rmpi's function `name`. (Looked up when called rather than written as
# Rmpi::name: R CMD check loads the namespaces of `::` references to check
# them, and loading Rmpi starts MPI in the checking process.)
rmpi <- function(name) getExportedValue("Rmpi", name)

# This process's rank and the job's size under MPI (Rmpi).
mpi_world <- function() {
  if (!requireNamespace("Rmpi", quietly = TRUE)) {
    cluster_fail("`cluster = \"mpi\"` needs the Rmpi package (Debian: r-cran-rmpi), which is not installed.")
  }
  list(rank = as.integer(rmpi("mpi.comm.rank")(0)), size = as.integer(rmpi("mpi.comm.size")(0)))
}

# Every rank's bytes end to end, with each rank's count: their lengths,
# then the bytes (MPI_Allgatherv).
mpi_gathered <- function(bytes, size) {
  counts <- rmpi("mpi.allgather")(length(bytes), type = 1, rdata = integer(size), comm = 0)
  all <- rmpi("mpi.allgatherv")(bytes, type = 4, rdata = raw(sum(counts)), rcounts = counts, comm = 0)
  list(all = all, counts = as.integer(counts))
}

# Every rank gathers every rank's part and combines them itself (the same
# combination on every rank, in rank order).
mpi_collective <- function(world) {
  list(
    rank = world$rank, size = world$size,
    allgather = function(bytes) {
      g <- mpi_gathered(bytes, world$size)
      cpp_split_parts(g$all, g$counts)
    },
    allcombine = function(bytes) {
      g <- mpi_gathered(bytes, world$size)
      cpp_round_combine_flat(g$all, g$counts)
    },
    broadcast = function(bytes, root) {
      n <- rmpi("mpi.bcast")(if (world$rank == root) length(bytes) else 0L, type = 1, rank = root, comm = 0)
      if (n == 0L) return(raw())
      rmpi("mpi.bcast")(if (world$rank == root) bytes else raw(n), type = 4, rank = root, comm = 0)
    },
    abort = function(reason) {
      # MPI's collectives cannot be left by one rank: the job ends
      message(sprintf("cppestimators: rank %d gives up training: %s", world$rank, reason))
      rmpi("mpi.abort")(comm = 0)
    }
  )
}

# The part of an MPI rank: its shard of the data (rank r reads rows r + 1,
# r + 1 + size, ... of a data frame, shard r of a dataset), its collective.
mpi_training <- function(world, data, seed, share) {
  if (isTRUE(data$stream)) {
    data$input$dataset <- shard_dataset(data$input$dataset, world$size, world$rank)
  } else {
    data <- take_shard(data, world$rank + 1L, world$size)
    if (isTRUE(data$whole_batches)) data$batch_size <- max(1L, NROW(data$labels))  # its whole shard a batch
  }
  list(data = data, seed = rank_seed(seed, world$rank), share_losses = share,
       collective = cpp_r_collective(mpi_collective(world)), observer = FALSE,
       finish = function() invisible(), fail = function(e) invisible())
}

# train() on an MPI rank other than 0: once the chief says it trains
# (mpi_go()), the same session on its shard, no hooks, no model_dir (the
# chief writes it).
mpi_worker_train <- function(object, input_fn, world) {
  go <- mpi_go(world, NA)
  if (go == 0L) return(invisible(new_history(NULL)))
  ptr <- estimator_ptr(object)
  run_session(object, input_fn, "train", list(), ptr = ptr,
              distributed = function(data, seed, kernel, hooks) mpi_training(world, data, seed, go == 2L))
  invisible(new_history(NULL))
}

# Whether this train() call trains: the chief's decision (`go`: 0 no, after
# its checks, the model_dir lock and max_steps; 1 yes; 2 yes, its hooks
# reading per-example losses), broadcast to every rank.
mpi_go <- function(world, go) {
  as.integer(rmpi("mpi.bcast")(if (world$rank == 0L) as.integer(go) else 0L, type = 1, rank = 0, comm = 0))
}
