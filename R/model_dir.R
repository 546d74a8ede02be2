#' Model directory and checkpoints of an estimator
#'
#' `model_dir()` is the directory holding the estimator's checkpoints and
#' summaries. `latest_checkpoint()` is the path of the newest checkpoint file
#' listed by the directory's `checkpoint` index, or `NULL` when there is none.
#'
#' @param object An estimator, or (for `latest_checkpoint()`) a directory path.
#' @param ... Unused.
#' @return A path, or `NULL`.
#' @family estimators
#' @export
#' @examples
#' fcs <- feature_columns(column_numeric("drat"))
#' est <- linear_regressor(feature_columns = fcs, model_dir = tempfile())
#' input <- input_fn(mtcars, response = "mpg", features = "drat", batch_size = 8L)
#' train(est, input_fn = input, steps = 2)
#' model_dir(est)
#' basename(latest_checkpoint(est))
model_dir <- function(object, ...) {
  UseMethod("model_dir")
}

#' @rdname model_dir
#' @export
model_dir.tf_estimator <- function(object, ...) {
  check_dots(dots_names(...), "model_dir", character())
  object$spec$model_dir
}

#' @rdname model_dir
#' @export
latest_checkpoint <- function(object) {
  dir <- if (inherits(object, "tf_estimator")) model_dir(object) else object
  check_string(dir, "object", message = "`object` must be an estimator or a directory path.")
  path <- cpp_latest_checkpoint(path.expand(dir))
  if (nzchar(path)) path else NULL
}

# Before a session: bring the engine state up to date with model_dir. A
# checkpoint this object did not write or read itself (another estimator
# object or process trained into the same directory) is restored.
# Never while this object's engine is inside a session (a hook reading the
# estimator must not rewind the training in progress).
sync_from_model_dir <- function(object, ptr) with_error_class(sync_model_dir_impl(object, ptr))

sync_model_dir_impl <- function(object, ptr) {
  st <- object$state
  if (isTRUE(st$busy)) return(invisible())
  dir <- object$spec$model_dir
  path <- cpp_latest_checkpoint(dir)
  if (!nzchar(path)) return(invisible())
  check_model_dir(object)
  # another process's training may rotate the checkpoint the index named
  # away between the two reads: then the index names a newer one
  for (attempt in 1:20) {
    stamp <- checkpoint_stamp(path)
    if (identical(stamp, st$synced)) return(invisible())
    restored <- tryCatch({
      cpp_estimator_restore(ptr, path)
      TRUE
    }, error = function(e) {
      newer <- cpp_latest_checkpoint(dir)
      if (attempt == 20 || file.exists(path) || !nzchar(newer)) stop(e)
      path <<- newer
      FALSE
    })
    if (restored) break
  }
  st$synced <- stamp
  invisible()
}

# After a session that may have saved: remember the checkpoint it wrote.
note_synced <- function(object) {
  path <- cpp_latest_checkpoint(object$spec$model_dir)
  object$state$synced <- if (nzchar(path)) checkpoint_stamp(path) else NULL
}

checkpoint_stamp <- function(path) {
  info <- file.info(path, extra_cols = FALSE)
  paste(path, info$size, as.numeric(info$mtime))
}

# What defines an estimator's model (kind and its structure, head, columns),
# as lines of text; stored in model_dir by train() so that an estimator whose
# model differs is refused instead of restoring part of another model.
model_file <- "cppestimators_model.txt"
structural_fields <- c("hidden_units", "activation_fn", "linear_columns", "dnn_columns", "n_trees", "max_depth")

model_description <- function(object) {
  memo(object, "model_description", object$spec, describe_model)
}

# The description's lines and, as one string, the file writeLines() makes of
# them (compared with the file's bytes by check_model_dir()).
model_description_text <- function(object) {
  memo(object, "model_description_text", object$spec, function(spec) {
    paste0(paste0(unname(model_description(object)), "\n"), collapse = "")
  })
}

describe_model <- function(spec) model_record_lines(estimator_model(spec), spec)

# The lines of the record of a model (a method per model kind, in its file,
# where it differs).
model_record_lines <- function(model, spec) UseMethod("model_record_lines")

#' @export
model_record_lines.default <- function(model, spec) {
  cols <- spec$feature_columns
  cols <- cols[order(vapply(cols, function(c) c$name, ""), method = "radix")]
  fields <- intersect(structural_fields, names(model))
  c(sprintf("model: %s", model$kind),
    vapply(fields, function(f) sprintf("%s: %s", f, paste(format(unlist(model[[f]])), collapse = ", ")), ""),
    sprintf("head: %s, %d", head_label(spec$head, spec$head_args), as.integer(spec$head_n)),
    optimizer_line(spec, model),
    if (!is.null(spec$label_vocabulary)) sprintf("label_vocabulary: %s", paste(spec$label_vocabulary, collapse = ", ")),
    vapply(cols, function(c) paste("column:", column_repr(c)), ""))
}

# The kind of the optimizer (of each part, for a wide and deep model): its
# set of slot variables, which a checkpoint holds; not its learning rate,
# which may change from one train() to the next as in TensorFlow. Boosted
# trees have no optimizer variables; a custom estimator's are checked
# against the checkpoint's when restored.
optimizer_line <- function(spec, model) {
  if (!model_trait(model, "optimizer_in_record")) return(NULL)
  opts <- spec$optimizers %||% list(spec$optimizer)
  kinds <- vapply(opts, function(o) as.character(o$name %||% "")[1], "")
  if (length(kinds) > 1L && !is.null(names(opts))) kinds <- paste(names(opts), kinds)
  sprintf("optimizer: %s", paste(kinds, collapse = ", "))
}

# Whether a line of a stored model description is one that records written
# by earlier versions may lack (then it is not compared).
optional_fields <- "optimizer"

# What differs between the stored description and this estimator's, in at
# most `max` fields (a column's fields are keyed by its name), as lines
# for a message: each field's stored and new text, shortened.
model_differences <- function(theirs, mine, max = 3L) {
  key <- function(l) {
    k <- regmatches(l, regexpr("^column: [A-Za-z_]*\\((key|name|categorical_column)=[^,)]*", l))
    out <- sub(":.*$", "", l)
    out[grepl("^column: [A-Za-z_]*\\((key|name|categorical_column)=", l)] <- k
    out
  }
  short <- function(l) if (nchar(l) > 100L) paste0(substr(l, 1L, 97L), "...") else l
  kt <- key(theirs)
  km <- key(mine)
  keys <- unique(c(kt[!theirs %in% mine], km[!mine %in% theirs]))
  lines <- unlist(lapply(utils::head(keys, max), function(k) {
    a <- theirs[kt == k & !theirs %in% mine]
    b <- mine[km == k & !mine %in% theirs]
    c(paste0("  in model_dir:  ", if (length(a)) short(a[1]) else paste0("(no ", sub("^column: ", "", k), ")")),
      paste0("  in this one:   ", if (length(b)) short(b[1]) else paste0("(no ", sub("^column: ", "", k), ")")))
  }))
  more <- length(keys) - max
  c(lines, if (more > 0L) sprintf("  ... and %d more field%s that differ.", more, if (more > 1L) "s" else ""))
}

# Refuses an estimator whose model differs from the one in its model_dir;
# with `write`, records the model when the directory has none yet.
check_model_dir <- function(object, write = FALSE, dir = object$spec$model_dir) {
  if (is.null(dir)) return(invisible())
  path <- file.path(dir, model_file)
  stamp <- cpp_file_stamp(path)
  size <- stamp[1]
  if (!is.na(size)) {
    # the file as this estimator writes it: nothing to compare line by line;
    # a file of the same size and time as at this estimator's last check of
    # the same description is not read again
    text <- model_description_text(object)
    cache <- call_cache(object)
    seen <- cache$model_file
    if (!is.null(seen) && identical(seen$path, path) && identical(seen$stamp, stamp) &&
        identical(seen$text, text)) return(invisible())
    if (size == nchar(text, type = "bytes") &&
        identical(readChar(path, size, useBytes = TRUE), text)) {
      cache$model_file <- list(path = path, stamp = stamp, text = text)
      return(invisible())
    }
  }
  mine <- unname(model_description(object))
  if (file.exists(path)) {
    theirs <- readLines(path, warn = FALSE)
    # a record written before a field existed is read without it
    field <- sub(":.*$", "", mine)
    absent <- field %in% optional_fields & !field %in% sub(":.*$", "", theirs)
    if (any(absent)) mine <- mine[!absent]
    if (!identical(theirs, mine)) {
      abort(sprintf(paste0("model_dir '%s' holds a different model than this %s():\n%s\n",
                           "To start afresh, use another model_dir (or empty this one: unlink(\"%s\", ",
                           "recursive = TRUE)).\nTo continue the stored model, build the estimator with its ",
                           "columns and settings (columns from\nfeature_columns_from_data() standardize with ",
                           "the data's statistics: keep and reuse the first ones)."),
                    dir, object$spec$name, paste(model_differences(theirs, mine), collapse = "\n"), dir),
            class = "cppestimators_model_mismatch")
    }
    cache <- call_cache(object)
    cache$model_file <- list(path = path, stamp = stamp, text = model_description_text(object))
  } else if (write) {
    dir.create(dir, recursive = TRUE, showWarnings = FALSE)
    tmp <- tempfile(pattern = ".model-", tmpdir = dir)
    writeLines(mine, tmp)
    if (!file.rename(tmp, path)) {
      unlink(tmp)
      abort(sprintf("cannot write '%s'.", path))
    }
  }
  invisible()
}

# An advisory lock on model_dir for the duration of a train(): a symbolic
# link (created atomically) whose target is the owner's process id and host
# (a directory holding an "owner" file of those lines, as earlier versions
# made it, is a lock too). A lock held by a live process is waited for, up
# to `timeout` seconds (run_config()'s lock_timeout_secs; 0 fails at once);
# a lock left by a process of this host that no longer exists is taken
# over. Returns a function that releases it.
#
# The lock is fair: processes waiting for it take it in the order they came.
# A process that finds it held (or finds others waiting) puts a ticket in a
# queue beside it (src/glue_lock.cpp: "<lock>.queue/<arrival>-<pid>-<host>")
# and may take it only when no live ticket older than its own is left; so a
# holder that calls train() in a loop, back within microseconds of its
# release, finds the waiter's ticket and queues behind it instead of taking
# the lock again. The first in line looks every millisecond (the lock changes
# hands within about one holder's call), the others less often. A ticket is
# removed when its process takes the lock or gives up (the timeout, an error,
# an interrupt), and a ticket of a process of this host that no longer exists
# by whoever sees it; another host's ticket is respected, as its lock is.
# Uncontended, taking the lock costs two system calls: a look at the queue
# (absent) and the link.
lock_model_dir <- function(dir, timeout = 10) {
  lock <- file.path(dir, ".cppestimators.lock")
  reason <- if (dir.exists(dir)) NULL else create_dir_reason(dir)
  if (!dir.exists(dir)) {
    abort(sprintf("cannot create model_dir '%s'%s.", dir, reason), class = "cppestimators_file_error")
  }
  queue <- paste0(lock, ".queue")
  me <- sprintf("%d %s", Sys.getpid(), hostname())
  start <- Sys.time()
  pause <- 0.002
  vanished <- 0L
  ticket <- NA_character_
  on.exit(if (!is.na(ticket)) cpp_lock_dequeue(queue, ticket))
  seen <- NA_character_  # the holder last found alive, and the looks since
  looks <- 0L
  repeat {
    ahead <- live_tickets(queue, cpp_lock_queue(queue, ticket))
    if (!length(ahead)) {
      # a link naming the owner (its process and host; the time in seconds
      # since 1970), made in the engine (src/glue_lock.cpp): one system call,
      # where a directory and its owner file cost ~0.4 ms
      reason <- cpp_lock_take(lock, paste0(me, "\n", sprintf("%.3f", unclass(Sys.time())), "\n"))
      if (is.na(reason)) {
        if (!is.na(ticket)) cpp_lock_dequeue(queue, ticket)
        ticket <- NA_character_
        return(function() cpp_lock_release(lock))
      }
      if (!cpp_lock_exists(lock)) {
        # released between the two looks (the system says only that it existed): try again
        if (!nzchar(reason) && (vanished <- vanished + 1L) <= 1000L) next
        abort(sprintf("cannot create the lock '%s'%s: is model_dir writable?", lock, reason),
              class = "cppestimators_file_error")
      }
    }
    owner <- cpp_lock_owner(lock)
    parts <- strsplit(if (is.na(owner)) "" else owner, " ", fixed = TRUE)[[1]]
    pid <- suppressWarnings(as.integer(parts[1]))
    host <- paste(parts[-1], collapse = " ")
    # (a look at a process costs ~0.2 ms: the same holder is looked at again every 32 looks)
    looks <- looks + 1L
    if (!length(ahead) && !is.na(pid) && identical(host, hostname()) &&
        (!identical(owner, seen) || looks %% 32L == 0L)) {
      if (!process_alive(pid)) {
        cpp_lock_release(lock)  # left by a process that no longer exists
        next
      }
      seen <- owner
    }
    waited <- as.numeric(difftime(Sys.time(), start, units = "secs"))
    if (waited >= timeout) {
      holder <- if (!is.na(pid)) {
        sprintf("process %d on host '%s'", pid, host)
      } else if (length(ahead)) {
        first <- ticket_owner(ahead[1])
        sprintf("process %d on host '%s' (first in line for the lock)", first$pid, first$host)
      } else {
        "another process"
      }
      abort(sprintf(paste("model_dir '%s' is being trained by %s (lock %s)%s: two trainings of one model_dir",
                          "would overwrite each other's checkpoints. Wait for it to finish, raise",
                          "run_config(lock_timeout_secs =), or use another model_dir."),
                    dir, holder, lock,
                    if (timeout > 0) sprintf(", still after waiting %s s", format(signif(waited, 2))) else ""),
            class = "cppestimators_model_dir_busy")
    }
    if (is.na(ticket)) ticket <- cpp_lock_enqueue(queue, sprintf("%d-%s", Sys.getpid(), hostname()))
    # the first in line looks again within a millisecond: the holder of a
    # short train() releases it within milliseconds
    at_head <- !length(ahead)
    Sys.sleep(min(if (at_head) 0.001 else pause, timeout - waited))
    if (!at_head) pause <- min(pause * 2, 0.05)
  }
}

# The owners (process id and host) of lock queue tickets ("<arrival>-<pid>-<host>").
ticket_owner <- function(tickets) {
  list(pid = suppressWarnings(as.integer(sub("^[0-9]+-([0-9]+)-.*$", "\\1", tickets))),
       host = sub("^[0-9]+-[0-9]+-", "", tickets))
}

# The tickets (of `queue`) whose process may be alive: a ticket of a process
# of this host that no longer exists is removed.
live_tickets <- function(queue, tickets) {
  if (!length(tickets)) return(tickets)
  who <- ticket_owner(tickets)
  here <- hostname()
  keep <- vapply(seq_along(tickets), function(i) {
    if (is.na(who$pid[i]) || !identical(who$host[i], here) || process_alive(who$pid[i])) return(TRUE)
    cpp_lock_dequeue(queue, tickets[i])
    FALSE
  }, TRUE)
  tickets[keep]
}

# Creates a directory; NULL when it was created, else ": <the OS's reason>"
# (or "" when R gave none), without R's warning.
create_dir_reason <- function(path, recursive = TRUE) {
  reason <- ""
  ok <- withCallingHandlers(
    dir.create(path, recursive = recursive, showWarnings = TRUE),
    warning = function(w) {
      msg <- conditionMessage(w)
      if (grepl("reason '", msg, fixed = TRUE)) reason <<- paste0(": ", sub(".*reason '(.*)'.*", "\\1", msg))
      invokeRestart("muffleWarning")
    }
  )
  if (ok) NULL else reason
}

# Whether a process with this id runs: 'ps' (installed with 'processx' and
# 'callr') tells a zombie (a process that ended and waits for its parent to
# read its status) from a running one; signal 0 tests that the id exists.
process_alive <- function(pid) {
  if (identical(as.integer(pid), Sys.getpid())) return(TRUE)
  if (requireNamespace("ps", quietly = TRUE)) {
    return(tryCatch({
      h <- ps::ps_handle(as.integer(pid))
      ps::ps_is_running(h) && !identical(ps::ps_status(h), "zombie")
    }, error = function(e) FALSE))
  }
  isTRUE(tools::pskill(pid, 0L))
}

# Temporary files of interrupted saves ("<file>.tmp-<pid>-...") whose process
# no longer exists on this host: removed when training takes the lock.
remove_stale_temporaries <- function(dir) {
  files <- cpp_save_temporaries(dir)  # list.files(dir, "\\.tmp-[0-9]+-", full.names = TRUE, all.files = TRUE)
  for (f in files) {
    pid <- as.integer(sub(".*\\.tmp-([0-9]+)-.*", "\\1", basename(f)))
    if (!is.na(pid) && !process_alive(pid)) unlink(f)
  }
}

# A hook_global_step_waiter() waits for another process's training of the
# same model_dir: train() waits here, before taking the lock, and returns the
# hooks with those it waited for set to start at once.
wait_for_global_step <- function(hooks, ptr, dir) {
  lapply(hooks, function(h) hook_wait(h, ptr, dir))
}
