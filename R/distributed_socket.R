# Training across processes over a socket cluster (R/distributed.R): the
# chief's side (sending shards, combining rounds, releasing workers) and
# the workers' (training on their shard).

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
