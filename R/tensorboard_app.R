# The native tensorboard()'s HTTP application (for httpuv): the page and
# its files from inst/tensorboard, and the JSON endpoints
#   /data/runs              the runs: name, directory, tags
#   /data/scalars?since=N   the scalars after the client's cursor N (the
#                           server's sequence number: the count of scalars
#                           it has), with the new cursor
#   /data/status            the store's counters (polls, records and bytes
#                           read by the last poll and in total); with
#                           ?poll=1, after reading what is new (the
#                           background server's $poll())
# Data requests poll the event files when a poll is due.

tensorboard_static <- c(
  "index.html" = "text/html; charset=utf-8",
  "dashboard.js" = "application/javascript; charset=utf-8",
  "dashboard.css" = "text/css; charset=utf-8"
)

tensorboard_app <- function(store) {
  www <- system.file("tensorboard", package = "cppestimators")
  list(call = function(req) {
    tryCatch(tensorboard_route(store, www, req), error = function(e) {
      http_response(500L, json_object(list(error = json_str(conditionMessage(e)))), "application/json")
    })
  })
}

http_response <- function(status, body, type) {
  list(status = status, body = body,
       headers = list("Content-Type" = type, "Cache-Control" = "no-store",
                      "X-Content-Type-Options" = "nosniff"))
}

json_response <- function(body) http_response(200L, body, "application/json; charset=utf-8")

tensorboard_route <- function(store, www, req) {
  path <- req$PATH_INFO %||% "/"
  if (!identical(req$REQUEST_METHOD, "GET") && !identical(req$REQUEST_METHOD, "HEAD")) {
    return(http_response(405L, "Only GET requests are served.", "text/plain"))
  }
  if (path == "/") path <- "/index.html"
  file <- sub("^/", "", path)
  if (file %in% names(tensorboard_static)) {
    body <- paste(readLines(file.path(www, file), warn = FALSE, encoding = "UTF-8"), collapse = "\n")
    return(http_response(200L, body, tensorboard_static[[file]]))
  }
  if (startsWith(path, "/data/")) {
    query <- parse_query(req$QUERY_STRING %||% "")
    tensorboard_poll_quietly(store, force = identical(path, "/data/status") && identical(query$poll, "1"))
    body <- switch(path,
      "/data/runs" = runs_json(store),
      "/data/scalars" = scalars_json(store, query$since),
      "/data/status" = status_json(store),
      NULL)
    if (!is.null(body)) return(json_response(body))
  }
  http_response(404L, paste0("Not found: ", path), "text/plain")
}

# A due poll; an error (a corrupt file) is kept for /data/status instead of
# failing the request, and cleared by the next poll that succeeds.
tensorboard_poll_quietly <- function(store, force = FALSE) {
  tryCatch({
    if (poll_scalar_store(store, force = force)) store$error <- NULL
  }, error = function(e) store$error <- conditionMessage(e))
}

parse_query <- function(q) {
  q <- sub("^\\?", "", q)
  if (!nzchar(q)) return(list())
  kv <- strsplit(strsplit(q, "&", fixed = TRUE)[[1]], "=", fixed = TRUE)
  keys <- vapply(kv, function(p) utils::URLdecode(p[1]), "")
  vals <- vapply(kv, function(p) if (length(p) > 1L) utils::URLdecode(p[2]) else "", "")
  stats::setNames(as.list(vals), keys)
}

runs_json <- function(s) {
  tags <- vapply(s$runs, function(r) json_array(json_str(sort(unique(s$tag[s$run == r]), method = "radix"))), "")
  runs <- vapply(seq_along(s$runs), function(i) {
    json_object(list(name = json_str(s$runs[[i]]), dir = json_str(s$run_dirs[[i]]), tags = tags[[i]]))
  }, "")
  json_object(list(runs = json_array(runs), cursor = json_num(length(s$step))))
}

scalars_json <- function(s, since) {
  n <- length(s$step)
  since <- suppressWarnings(as.numeric(since %||% "0"))
  reset <- is.na(since) || since < 0 || since > n
  if (reset) since <- 0
  since <- floor(since)
  json_object(list(since = json_num(since), cursor = json_num(n), reset = json_scalar(reset),
                   runs = json_array(json_str(s$runs)), scalars = json_columns(scalar_store_rows(s, since))))
}

status_json <- function(s) {
  json_object(lapply(scalar_store_status(s), json_scalar))
}
