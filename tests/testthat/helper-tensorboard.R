# Helpers of the tensorboard() tests. httpuv answers requests only while
# this R process services it, so clients (curl, chromium) run as child
# processes while the test loops over httpuv::service().

# A new empty directory (under the session's temporary directory).
tb_tempdir <- function() {
  d <- tempfile("tb-")
  dir.create(d)
  normalizePath(d, winslash = "/")
}

# Waits for a child process while serving requests; kills it after `timeout`.
serve_while <- function(p, timeout = 60) {
  deadline <- Sys.time() + timeout
  while (p$is_alive() && Sys.time() < deadline) httpuv::service(10)
  if (p$is_alive()) p$kill()
  invisible(p)
}

# GET `url` with curl: list(status, type, body).
http_get <- function(url, timeout = 20) {
  out <- tempfile()
  on.exit(unlink(out))
  p <- processx::process$new("curl", c("-s", "--max-time", timeout, "-o", out,
                                       "-w", "%{http_code} %{content_type}", url),
                             stdout = "|", stderr = "|")
  serve_while(p, timeout + 5)
  p$wait(1000)
  info <- strsplit(p$read_all_output(), " ", fixed = TRUE)[[1]]
  body <- if (file.exists(out)) paste(readLines(out, warn = FALSE, encoding = "UTF-8"), collapse = "\n") else ""
  list(status = as.integer(info[1]), type = paste(info[-1], collapse = " "), body = body)
}

tb_json <- function(tb, path) {
  res <- http_get(paste0(tb$url, path))
  if (!identical(res$status, 200L)) stop("GET ", path, ": HTTP ", res$status, ": ", res$body)
  jsonlite::fromJSON(res$body, simplifyVector = TRUE)
}

# The scalars of /data/scalars as a data frame sorted like read_summaries().
tb_scalars <- function(tb, since = 0) {
  j <- tb_json(tb, paste0("data/scalars?since=", since))
  df <- as.data.frame(j$scalars, stringsAsFactors = FALSE)
  if (!nrow(df)) df <- data.frame(run = character(), tag = character(), step = numeric(),
                                  value = numeric(), wall_time = numeric())
  df$step <- as.numeric(df$step)
  df <- df[order(df$run, df$wall_time, df$step, method = "radix"), , drop = FALSE]
  rownames(df) <- NULL
  attr(df, "cursor") <- j$cursor
  attr(df, "reset") <- j$reset
  df
}

# Trains a regressor over `x` in `dir` for `steps` steps (summaries every
# step) and evaluates it, in this process.
train_x_in <- function(dir, steps = 10, eval_name = NULL, evaluate = TRUE) {
  est <- x_regressor(model_dir = dir, config = run_config(save_summary_steps = 1))
  quietly(train(est, input_fn = x_input(), steps = steps))
  if (evaluate) quietly(evaluate(est, input_fn = x_input(num_epochs = 1), name = eval_name))
  est
}

# The same in a child process, sleeping `sleep` seconds per step so that
# the training lasts a while; returns the callr process. With `gate` (a
# directory), the test steers it by files there, not by time: once "hold"
# exists the training holds after its step (writing "held") until "go"
# exists; once "stop" exists it stops after its step.
train_x_in_background <- function(dir, steps = 60, sleep = 0.1, gate = NULL) {
  callr::r_bg(function(dir, steps, sleep, gate) {
    library(cppestimators)
    est <- linear_regressor(feature_columns(column_numeric("x")), model_dir = dir,
                            config = run_config(save_summary_steps = 1))
    data <- data.frame(x = 1:8, y = 2 * (1:8) + 1)
    at <- function(f) file.exists(file.path(gate, f))
    slow <- session_run_hook(after_run = function(context, values) {
      Sys.sleep(sleep)
      if (is.null(gate)) return(invisible())
      if (at("hold") && !at("held")) {
        file.create(file.path(gate, "held"))
        while (!at("go")) Sys.sleep(0.01)
      }
      if (at("stop")) context$request_stop()
    })
    train(est, input_fn = input_fn(data, response = "y", batch_size = 1L, num_epochs = NULL, shuffle = FALSE),
          steps = steps, hooks = list(slow))
    evaluate(est, input_fn = input_fn(data, response = "y", batch_size = 8L, num_epochs = 1, shuffle = FALSE))
    invisible(NULL)
  }, args = list(dir = dir, steps = steps, sleep = sleep, gate = gate), stdout = tempfile(), stderr = tempfile())
}

# Serves requests until `cond()` holds (or `timeout`); returns cond().
serve_until <- function(cond, timeout = 60) {
  deadline <- Sys.time() + timeout
  while (!cond() && Sys.time() < deadline) httpuv::service(20)
  cond()
}

# The DOM chromium renders for `url` after the page's scripts ran for
# `budget` ms of virtual time, parsed with xml2.
chromium_dom <- function(url, budget = 3000) {
  out <- tempfile(fileext = ".html")
  p <- processx::process$new("chromium", c("--headless", "--no-sandbox", "--disable-gpu",
                                           paste0("--user-data-dir=", tempfile("chromium-")),
                                           paste0("--virtual-time-budget=", budget), "--dump-dom", url),
                             stdout = out, stderr = tempfile())
  serve_while(p, 300)  # a hang's guard: the page ends with its budget of virtual time
  xml2::read_html(out)
}

chromium_screenshot <- function(url, file, budget = 3000) {
  p <- processx::process$new("chromium", c("--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                                           paste0("--user-data-dir=", tempfile("chromium-")),
                                           paste0("--virtual-time-budget=", budget),
                                           paste0("--screenshot=", file), "--window-size=1280,900", url),
                             stdout = tempfile(), stderr = tempfile())
  serve_while(p, 90)
  invisible(file)
}

# The series the page drew: one row per smoothed path (tag, run, points,
# last step, last smoothed value).
dom_series <- function(dom) {
  paths <- xml2::xml_find_all(dom, "//div[@data-tag]//*[local-name()='path' and contains(@class, 'smoothed')]")
  tag <- vapply(paths, function(p) xml2::xml_attr(xml2::xml_find_first(p, "ancestor::div[@data-tag]"), "data-tag"), "")
  data.frame(tag = tag, run = xml2::xml_attr(paths, "data-run"),
             points = as.integer(xml2::xml_attr(paths, "data-points")),
             last_step = as.numeric(xml2::xml_attr(paths, "data-last-step")),
             last_smoothed = as.numeric(xml2::xml_attr(paths, "data-last-smoothed")),
             stringsAsFactors = FALSE)
}

# TensorBoard's smoothing (debiased exponential moving average), in R.
tb_smooth <- function(v, w) {
  last <- 0
  out <- numeric(length(v))
  for (i in seq_along(v)) {
    last <- last * w + (1 - w) * v[i]
    out[i] <- last / (1 - w^i)
  }
  out
}
