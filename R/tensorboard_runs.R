# The scalars behind the native tensorboard(): a store that follows the
# event files under a set of log directories, reading on each poll only the
# bytes written since the previous one.
#
# The store is an environment holding, per event file, the byte offset read
# so far and the file's run; and the records read, as columns (run, tag,
# step, value, wall_time) in the order they were read. A record's sequence
# number is its row: a client that has the first `cursor` rows asks for the
# rows after it.

event_file_pattern <- "^events\\.out\\.tfevents\\."

# `log_dir` as a named character vector of directories: estimators become
# their model_dir; names are the run prefixes (none for a single unnamed
# directory, the directories' base names made unique for several unnamed).
tensorboard_log_dirs <- function(log_dir) {
  bad <- "`log_dir` must be a directory, a character vector of directories or a list of directories and estimators."
  if (inherits(log_dir, "tf_estimator")) log_dir <- list(log_dir)
  if (is.list(log_dir)) {
    if (length(log_dir) == 0L) abort(bad)
    nms <- names(log_dir)
    log_dir <- vapply(log_dir, function(d) {
      if (inherits(d, "tf_estimator")) return(model_dir(d))
      if (!is.character(d) || length(d) != 1L || is.na(d) || !nzchar(d)) abort(bad)
      d
    }, "")
    names(log_dir) <- nms
  }
  if (!is.character(log_dir) || length(log_dir) == 0L || anyNA(log_dir) || !all(nzchar(log_dir))) {
    abort(bad)
  }
  nms <- names(log_dir)
  if (is.null(nms)) nms <- rep("", length(log_dir))
  nms[is.na(nms)] <- ""
  if (length(log_dir) > 1L) {
    unnamed <- !nzchar(nms)
    nms[unnamed] <- basename(log_dir[unnamed])
    if (anyDuplicated(nms)) abort("`log_dir`: the names of the directories (the run prefixes) must be unique.")
  }
  if (any(grepl("[:,]", nms))) abort("`log_dir`: names must not contain ':' or ','.")
  out <- normalizePath(unname(log_dir), winslash = "/", mustWork = FALSE)
  names(out) <- nms
  out
}

# The runs of event files: their directories relative to their log
# directory ("." for the log directory itself), prefixed with the log
# directory's name ("<name>/eval"), as TensorBoard names them.
tensorboard_run_names <- function(prefix, rel_files) {
  rel <- dirname(rel_files)
  if (nzchar(prefix)) paste0(prefix, "/", rel) else rel
}

new_scalar_store <- function(log_dirs, reload_interval) {
  s <- new.env(parent = emptyenv())
  s$log_dirs <- log_dirs
  s$reload_interval <- reload_interval
  s$offsets <- numeric()      # named by the file's path
  s$file_runs <- character()  # named by the file's path
  s$runs <- character()       # the runs seen so far, in the order they appeared
  s$run_dirs <- character()
  s$run <- character()
  s$tag <- character()
  s$step <- numeric()
  s$value <- numeric()
  s$wall_time <- numeric()
  s$polls <- 0
  s$last_poll <- -Inf
  s$last_records <- 0
  s$last_bytes <- 0
  s$last_scalars <- 0
  s$total_records <- 0
  s$total_bytes <- 0
  s$error <- NULL
  s
}

now_seconds <- function() as.numeric(Sys.time())

# Reads what is new in the event files when a poll is due (at most one per
# reload_interval) or `force`d. Returns whether it polled.
poll_scalar_store <- function(s, force = FALSE) {
  now <- now_seconds()
  if (!force && now - s$last_poll < s$reload_interval) return(FALSE)
  s$last_poll <- now
  s$polls <- s$polls + 1
  files <- list_event_files(s$log_dirs)
  new_files <- setdiff(files$path, names(s$offsets))
  if (length(new_files)) {
    i <- match(new_files, files$path)
    s$offsets[new_files] <- 0
    s$file_runs[new_files] <- files$run[i]
    fresh <- !files$run[i] %in% s$runs
    s$runs <- c(s$runs, unique(files$run[i][fresh]))
    s$run_dirs <- c(s$run_dirs, files$dir[i][fresh][!duplicated(files$run[i][fresh])])
  }
  paths <- names(s$offsets)
  chunks <- lapply(paths, function(p) {
    if (!file.exists(p)) return(NULL)
    if (file.size(p) <= s$offsets[[p]]) return(NULL)
    with_error_class(cpp_read_events_from(p, s$offsets[[p]]))
  })
  got <- !vapply(chunks, is.null, TRUE)
  chunks <- chunks[got]
  paths <- paths[got]
  if (length(chunks)) {
    s$offsets[paths] <- vapply(chunks, `[[`, 0, "offset")
    counts <- vapply(chunks, function(ch) length(ch$step), 0L)
    s$last_records <- sum(vapply(chunks, `[[`, 0, "records"))
    s$last_bytes <- sum(vapply(chunks, `[[`, 0, "bytes"))
    s$last_scalars <- sum(counts)
    s$run <- c(s$run, rep(unname(s$file_runs[paths]), counts))
    s$tag <- c(s$tag, unlist(lapply(chunks, `[[`, "tag"), use.names = FALSE))
    s$step <- c(s$step, unlist(lapply(chunks, `[[`, "step"), use.names = FALSE))
    s$value <- c(s$value, unlist(lapply(chunks, `[[`, "value"), use.names = FALSE))
    s$wall_time <- c(s$wall_time, unlist(lapply(chunks, `[[`, "wall_time"), use.names = FALSE))
  } else {
    s$last_records <- 0
    s$last_bytes <- 0
    s$last_scalars <- 0
  }
  s$total_records <- s$total_records + s$last_records
  s$total_bytes <- s$total_bytes + s$last_bytes
  TRUE
}

# Every event file under the log directories: path, run and the run's
# directory, sorted as read_summaries() reads them.
list_event_files <- function(log_dirs) {
  parts <- lapply(seq_along(log_dirs), function(i) {
    d <- log_dirs[[i]]
    if (!dir.exists(d)) return(NULL)
    rel <- sort(list.files(d, pattern = event_file_pattern, recursive = TRUE), method = "radix")
    if (!length(rel)) return(NULL)
    data.frame(path = file.path(d, rel), run = tensorboard_run_names(names(log_dirs)[[i]], rel),
               dir = file.path(d, dirname(rel)), stringsAsFactors = FALSE)
  })
  out <- do.call(rbind, parts)
  if (is.null(out)) out <- data.frame(path = character(), run = character(), dir = character())
  out
}

# The store's counters (what the last poll and all polls read).
scalar_store_status <- function(s) {
  list(polls = s$polls, last_records = s$last_records, last_bytes = s$last_bytes,
       last_scalars = s$last_scalars, total_records = s$total_records,
       total_bytes = s$total_bytes, scalars = length(s$step), files = length(s$offsets),
       runs = length(s$runs), reload_interval = s$reload_interval, error = s$error)
}

# The store's scalars after row `since`, as a data frame.
scalar_store_rows <- function(s, since = 0) {
  n <- length(s$step)
  i <- if (since < n) seq.int(since + 1, n) else integer()
  data.frame(run = s$run[i], tag = s$tag[i], step = s$step[i], value = s$value[i],
             wall_time = s$wall_time[i], stringsAsFactors = FALSE)
}
