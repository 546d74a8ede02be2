#' Watch training in TensorBoard's scalar dashboard
#'
#' Serves a dashboard of the scalar summaries that [train()] and
#' [evaluate()] write to an estimator's `model_dir` (and its `eval` or
#' `eval_<name>` subdirectories), from R itself: a web server ('httpuv')
#' that reads the event files and a page that draws one chart per tag, with
#' a series per run. No 'Python' or 'TensorFlow' is needed. The page
#' follows training live: every `reload_interval` seconds it asks for what
#' is new, and the server reads only the bytes appended to the event files
#' since its last read (a record still being written is left for the next
#' read); new runs (such as a first evaluation's directory) appear as they
#' are created.
#'
#' The page has TensorBoard's controls: the smoothing slider (its debiased
#' exponential moving average, the raw series drawn faint behind the
#' smoothed one), the horizontal axis (step, relative time in hours since
#' a run's first record, or wall time), a logarithmic vertical axis,
#' checkboxes showing and hiding runs, and tooltips giving the nearest
#' point's run, step, value, smoothed value and time. Charts are grouped by
#' the tags' prefixes (the part before the first "/").
#'
#' The page's initial settings can be given in its address, e.g.
#' `paste0(tb$url, "#smoothing=0.9&x=relative&log=1&hidden=eval")` (`x`
#' is `step`, `relative` or `wall`; `hidden` lists runs to hide, separated
#' by commas).
#'
#' By default (`background = TRUE`) the native server runs in a background
#' R process (started with 'callr'), so the page answers and follows a
#' `train()` running in this session, in an R Markdown document or in an
#' `Rscript` script. It stops with `$stop()`, `tensorboard(action =
#' "stop")`, or when this R session ends, even when it is killed: the
#' server checks every second that its parent is alive. Where the
#' background process cannot start (no 'callr', or it fails), a message
#' says why and the dashboard is served from this session, as with
#' `background = FALSE`: that server answers only while R is idle at the
#' console (or while code calls `httpuv::service()`), so a `train()` call
#' holds the page's updates until it returns.
#'
#' @section HTTP API:
#' Besides the page (`/`, with `dashboard.js` and `dashboard.css`), the
#' native server answers JSON requests: `/data/runs` (each run's name,
#' directory and tags), `/data/scalars?since=N` (the scalars after the
#' client's cursor `N`, as columns `run`, `tag`, `step`, `value` and
#' `wall_time`, with the new `cursor`; `reset` is true when `N` is unknown
#' to the server and everything is sent) and `/data/status` (the counters
#' of `$status()`). Numbers have up to 17 significant digits; NaN and
#' infinite values are the strings `"NaN"`, `"Infinity"` and `"-Infinity"`,
#' as in TensorBoard's answers.
#'
#' @param log_dir Directories of event files: a path, a character vector of
#'   paths, an estimator (its `model_dir`) or a list of paths and
#'   estimators. With several, names give the runs' prefixes (the base
#'   names of the directories when unnamed). Every directory under them
#'   holding event files is a run, named by its path relative to its log
#'   directory as TensorBoard names runs: `"."` for the directory itself,
#'   `"eval"`, or `"<name>/eval"` with several log directories. Directories
#'   need not exist yet: they are watched until they do. Not used by
#'   `action = "stop"`.
#' @param action `"start"` a dashboard, or `"stop"` every dashboard this R
#'   session started.
#' @param host The address to listen on: `"127.0.0.1"` (this computer only)
#'   or, for example, `"0.0.0.0"` (every interface).
#' @param port The port: a whole number, or `NULL` (or `"auto"`) for a free
#'   one.
#' @param launch_browser Whether to open the dashboard in RStudio's viewer
#'   (the `viewer` option, when set) or the web browser.
#' @param reload_interval Seconds between reads of the event files (and
#'   between the page's requests for new data).
#' @param purge_orphaned_data Passed to the `tensorboard` program as
#'   `--purge_orphaned_data`; the native server never discards records.
#' @param program `"native"` serves the dashboard from R; `"tensorboard"`
#'   runs the `tensorboard` program found on the `PATH` (TensorBoard's own
#'   dashboards; it needs the 'processx' package), as
#'   `tensorboard --logdir <dir>` (`--logdir_spec name:dir,...` for several
#'   directories) `--host`, `--port`, `--reload_interval` and
#'   `--purge_orphaned_data`.
#' @param background For the native server: whether to serve from a
#'   background R process (the default) or from this R session.
#' @param ... Further command line flags for the `tensorboard` program, as
#'   `name = value` (`--name=value`); none for the native server.
#' @return For `action = "start"`, invisibly, an object of class
#'   `cppestimators_tensorboard` with `$url`, `$host`, `$port`, `$log_dir`,
#'   `$program` and the functions `$stop()` (stops the server or the
#'   program, freeing the port), `$running()` and, for the native server,
#'   `$background` (whether it runs in a background process, whose
#'   `$process` is a 'processx' process), `$poll()` (reads what is new
#'   now) and `$status()` (counters: polls,
#'   `last_records` and `last_bytes` read by the last poll,
#'   `total_records`, `total_bytes`, `scalars` held, files, runs). For
#'   `action = "stop"`, invisibly, the number of dashboards stopped.
#' @family summaries
#' @export
#' @examples
#' fcs <- feature_columns(column_numeric("drat"))
#' input <- input_fn(mtcars, response = "mpg", features = "drat", batch_size = 4L)
#' est <- linear_regressor(feature_columns = fcs,
#'                         config = run_config(save_summary_steps = 1))
#' train(est, input_fn = input, steps = 20)
#' evaluate(est, input_fn = input)
#' if (requireNamespace("httpuv", quietly = TRUE)) {
#'   tb <- tensorboard(est, launch_browser = FALSE)
#'   tb$url
#'   tb$poll()
#'   tb$status()$scalars
#'   tb$stop()
#' }
tensorboard <- function(log_dir, action = c("start", "stop"), host = "127.0.0.1", port = NULL,
                        launch_browser = interactive(), reload_interval = 5,
                        purge_orphaned_data = TRUE, program = c("native", "tensorboard"),
                        background = TRUE, ...) {
  action <- check_choice(action[1], "action", c("start", "stop"))
  if (action == "stop") return(invisible(stop_tensorboards()))
  if (missing(log_dir)) abort("`log_dir` is missing: give the directories (or estimators) to watch.")
  log_dirs <- tensorboard_log_dirs(log_dir)
  check_string(host, "host")
  port <- check_port(port)
  check_flag(launch_browser, "launch_browser")
  reload_interval <- check_number(reload_interval, "reload_interval", min = 0, exclusive_min = TRUE,
                                  must = "a positive number of seconds")
  check_flag(purge_orphaned_data, "purge_orphaned_data")
  program <- check_choice(program[1], "program", c("native", "tensorboard"))
  check_flag(background, "background")
  flags <- list(...)
  if (length(flags) && program == "native") {
    abort(sprintf(paste("`...` is for the flags of the `tensorboard` program (`program = \"tensorboard\"`);",
                        "the native server takes none, given: %s."),
                  paste(if (is.null(names(flags))) "unnamed" else names(flags), collapse = ", ")))
  }
  if (length(flags) && (is.null(names(flags)) || !all(nzchar(names(flags))))) {
    abort("`...`: every flag of the `tensorboard` program must be named (`name = value`).")
  }
  tb <- if (program == "native") {
    start_native_tensorboard(log_dirs, host, port, reload_interval, background)
  } else {
    start_tensorboard_program(log_dirs, host, port, reload_interval, purge_orphaned_data, flags)
  }
  register_tensorboard(tb)
  message("TensorBoard at ", tb$url, " (", tensorboard_log_dir_text(log_dirs), ")")
  if (launch_browser) open_in_browser(tb$url)
  invisible(tb)
}

check_port <- function(port) {
  if (is.null(port) || identical(port, "auto")) return(NULL)
  if (!is.numeric(port) || !is_single(port) || !is.finite(port) || port != floor(port) ||
      port < 1 || port > 65535) {
    abort(check_message(port, "port", "NULL, \"auto\" or a whole number from 1 to 65535"))
  }
  as.integer(port)
}

need_package <- function(pkg, what) {
  if (!requireNamespace(pkg, quietly = TRUE)) {
    abort(sprintf("%s needs the '%s' package: install.packages(\"%s\").", what, pkg, pkg),
          class = "cppestimators_missing_package")
  }
}

tensorboard_log_dir_text <- function(log_dirs) {
  nms <- names(log_dirs)
  paste(ifelse(nzchar(nms), paste0(nms, ":", log_dirs), log_dirs), collapse = ", ")
}

url_host <- function(host) {
  if (host %in% c("0.0.0.0", "::")) host <- "127.0.0.1"
  if (grepl(":", host, fixed = TRUE)) paste0("[", host, "]") else host
}

start_native_tensorboard <- function(log_dirs, host, port, reload_interval, background) {
  need_package("httpuv", "tensorboard()")
  if (background) {
    why <- if (!requireNamespace("callr", quietly = TRUE)) "the background server needs the 'callr' package"
    if (is.null(why)) {
      tb <- tryCatch(start_background_tensorboard(log_dirs, host, port, reload_interval),
                     cppestimators_tensorboard_background = function(e) {
                       why <<- conditionMessage(e)
                       NULL
                     })
      if (!is.null(tb)) return(tb)
    }
    message("tensorboard(): ", why, "; serving from this R session instead, which answers only while ",
            "R is idle (`background = FALSE` does so without trying).")
  }
  store <- new_scalar_store(log_dirs, reload_interval)
  tensorboard_poll_quietly(store)
  if (is.null(port)) port <- httpuv::randomPort(host = host)
  server <- tryCatch(httpuv::startServer(host, port, tensorboard_app(store), quiet = TRUE),
                     error = function(e) {
                       abort(sprintf("`port`: cannot serve on %s:%d (%s).", host, port, conditionMessage(e)))
                     })
  running <- TRUE
  stop_fn <- function() {
    if (running) {
      running <<- FALSE
      httpuv::stopServer(server)
    }
    invisible(NULL)
  }
  structure(list(
    url = sprintf("http://%s:%d/", url_host(host), port), host = host, port = port,
    log_dir = log_dirs, program = "native", reload_interval = reload_interval, background = FALSE,
    stop = stop_fn, running = function() running,
    poll = function() invisible(poll_scalar_store(store, force = TRUE)),
    status = function() scalar_store_status(store),
    store = store
  ), class = "cppestimators_tensorboard")
}

# The native server in a background R process (callr): it serves until
# killed, or until this process is gone. Waits until it listens; a failure
# to start is a cppestimators_tensorboard_background error with the child's
# own message.
start_background_tensorboard <- function(log_dirs, host, port, reload_interval) {
  failed <- function(what) {
    abort(paste("the background server", what), class = "cppestimators_tensorboard_background")
  }
  if (is.null(port)) port <- httpuv::randomPort(host = host)
  ready <- tempfile("tensorboard-ready-")
  log <- tempfile("tensorboard-", fileext = ".log")
  proc <- tryCatch(
    callr::r_bg(tensorboard_serve, package = TRUE, stdout = log, stderr = "2>&1",
                args = list(log_dirs = log_dirs, host = host, port = port, reload_interval = reload_interval,
                            ready = ready, parent = Sys.getpid(), libs = .libPaths())),
    error = function(e) failed(paste0("could not start (", conditionMessage(e), ")")))
  deadline <- Sys.time() + 30
  while (!file.exists(ready)) {
    if (!proc$is_alive() || Sys.time() > deadline) {
      if (proc$is_alive()) proc$kill()
      said <- if (file.exists(log)) trimws(paste(readLines(log, warn = FALSE), collapse = " ")) else ""
      failed(if (nzchar(said)) paste0("stopped: ", said) else "did not start within 30 s")
    }
    Sys.sleep(0.02)
  }
  unlink(ready)
  url <- sprintf("http://%s:%d/", url_host(host), port)
  structure(list(
    url = url, host = host, port = port, log_dir = log_dirs, program = "native",
    reload_interval = reload_interval, background = TRUE, process = proc,
    stop = function() {
      if (proc$is_alive()) {
        proc$kill()
        proc$wait(2000)
      }
      invisible(NULL)
    },
    running = function() proc$is_alive(),
    poll = function() invisible(tensorboard_get_status(url, poll = TRUE)),
    status = function() tensorboard_get_status(url)
  ), class = "cppestimators_tensorboard")
}

# The background process's body: the store and the server as in the session,
# serviced until the parent process is gone (checked every second).
tensorboard_serve <- function(log_dirs, host, port, reload_interval, ready, parent, libs) {
  .libPaths(libs)
  store <- new_scalar_store(log_dirs, reload_interval)
  tensorboard_poll_quietly(store)
  server <- tryCatch(httpuv::startServer(host, port, tensorboard_app(store), quiet = TRUE),
                     error = function(e) {
                       stop(sprintf("cannot serve on %s:%d (%s).", host, port, conditionMessage(e)), call. = FALSE)
                     })
  on.exit(httpuv::stopServer(server))
  writeLines("ready", ready)
  repeat {
    until <- Sys.time() + 1
    while (Sys.time() < until) httpuv::service(100)
    if (!process_alive(parent)) break
  }
}

# A background server's counters, from its /data/status (after a poll, with
# poll = TRUE), as the list `$status()` returns in the session.
tensorboard_get_status <- function(url, poll = FALSE) {
  con <- url(paste0(url, "data/status", if (poll) "?poll=1" else ""))
  on.exit(close(con))
  text <- tryCatch(paste(readLines(con, warn = FALSE), collapse = ""), error = function(e) {
    abort(sprintf("tensorboard(): the background server at %s did not answer (%s).", url, conditionMessage(e)))
  })
  parse_status_json(text)
}

# The flat object of status_json(): numbers, strings, booleans and null.
parse_status_json <- function(text) {
  m <- regmatches(text, gregexpr('"([^"]+)":("(\\\\.|[^"\\\\])*"|[^,}]+)', text, perl = TRUE))[[1]]
  keys <- sub('^"([^"]+)":.*$', "\\1", m)
  vals <- lapply(sub('^"[^"]+":', "", m), function(v) {
    if (v == "null") return(NULL)
    if (v %in% c("true", "false")) return(v == "true")
    if (startsWith(v, '"')) return(json_unquote(v))
    as.numeric(v)
  })
  stats::setNames(vals, keys)
}

json_unquote <- function(v) {
  v <- substr(v, 2L, nchar(v) - 1L)
  v <- gsub('\\\\"', '"', v)
  gsub("\\\\\\\\", "\\\\", v)
}

start_tensorboard_program <- function(log_dirs, host, port, reload_interval, purge, flags) {
  exe <- Sys.which("tensorboard")
  if (!nzchar(exe)) {
    abort(paste("`program = \"tensorboard\"`: no `tensorboard` program on the PATH",
                "(install it with `pip install tensorboard`, or use `program = \"native\"`)."))
  }
  need_package("processx", "`program = \"tensorboard\"`")
  if (is.null(port)) port <- httpuv_free_port(host)
  spec <- if (length(log_dirs) == 1L && !nzchar(names(log_dirs))) {
    c("--logdir", unname(log_dirs))
  } else {
    c("--logdir_spec", paste0(names(log_dirs), ":", log_dirs, collapse = ","))
  }
  extra <- NULL
  if (length(flags)) {
    extra <- paste0("--", names(flags), "=", vapply(flags, function(v) paste(format(v), collapse = ","), ""))
  }
  args <- c(spec, "--host", host, "--port", as.character(port),
            "--reload_interval", format(reload_interval),
            "--purge_orphaned_data", if (purge) "true" else "false", extra)
  proc <- processx::process$new(exe, args, stdout = "|", stderr = "|", cleanup = TRUE)
  structure(list(
    url = sprintf("http://%s:%d/", url_host(host), port), host = host, port = port,
    log_dir = log_dirs, program = "tensorboard", reload_interval = reload_interval,
    args = args, process = proc,
    stop = function() {
      if (proc$is_alive()) {
        proc$kill()
        proc$wait(2000)
      }
      invisible(NULL)
    },
    running = function() proc$is_alive()
  ), class = "cppestimators_tensorboard")
}

httpuv_free_port <- function(host) {
  if (requireNamespace("httpuv", quietly = TRUE)) return(httpuv::randomPort(host = host))
  6006L
}

open_in_browser <- function(url) {
  viewer <- getOption("viewer")
  if (is.function(viewer)) viewer(url) else utils::browseURL(url)
  invisible(url)
}

# The dashboards this session started, to stop them with action = "stop".
tensorboard_registry <- new.env(parent = emptyenv())

register_tensorboard <- function(tb) {
  tensorboard_registry$all <- c(Filter(function(x) x$running(), tensorboard_registry$all), list(tb))
}

stop_tensorboards <- function() {
  running <- Filter(function(x) x$running(), tensorboard_registry$all)
  for (tb in running) tb$stop()
  tensorboard_registry$all <- list()
  if (length(running)) {
    message(sprintf("Stopped %d TensorBoard%s.", length(running), if (length(running) == 1L) "" else "s"))
  }
  length(running)
}

#' @export
print.cppestimators_tensorboard <- function(x, ...) {
  state <- if (x$running()) "running" else "stopped"
  cat(sprintf("TensorBoard (%s, %s) at %s\n", if (x$program == "native") "native" else "tensorboard program",
              state, x$url))
  cat(sprintf("  log_dir: %s\n", tensorboard_log_dir_text(x$log_dir)))
  if (x$program == "native") {
    st <- x$status()
    cat(sprintf("  runs: %d, scalars: %d, polls: %d (every %s s)\n", as.integer(st$runs),
                as.integer(st$scalars), as.integer(st$polls), format(x$reload_interval)))
  }
  invisible(x)
}
