# tensorboard(): arguments, the incremental reading of event files, the JSON
# endpoints of the native server (fetched with curl in a child process while
# this process serves), stopping, and the tensorboard program.

tb_err <- function(expr, regexp) {
  expect_error(expr, class = "cppestimators_error", regexp = regexp)
}

test_that("tensorboard() checks its arguments, naming them", {
  dir <- tb_tempdir()
  tb_err(tensorboard(), "`log_dir` is missing")
  tb_err(tensorboard(1), "`log_dir` must be a directory")
  tb_err(tensorboard(character()), "`log_dir` must be a directory")
  tb_err(tensorboard(NA_character_), "`log_dir` must be a directory")
  tb_err(tensorboard(list(dir, 3)), "`log_dir` must be a directory")
  tb_err(tensorboard(c(a = dir, a = tempdir())), "names of the directories .* must be unique")
  tb_err(tensorboard(dir, action = "go"), "`action` must be one of \"start\" or \"stop\"")
  tb_err(tensorboard(dir, host = 1), "`host` must be a non-empty string")
  tb_err(tensorboard(dir, port = 0), "`port` must be NULL, \"auto\" or a whole number from 1 to 65535")
  tb_err(tensorboard(dir, port = 1.5), "`port` must be")
  tb_err(tensorboard(dir, port = "x"), "`port` must be")
  tb_err(tensorboard(dir, launch_browser = NA), "`launch_browser` must be TRUE or FALSE")
  tb_err(tensorboard(dir, reload_interval = 0), "`reload_interval` must be a positive number of seconds")
  tb_err(tensorboard(dir, reload_interval = "5"), "`reload_interval` must be")
  tb_err(tensorboard(dir, purge_orphaned_data = "yes"), "`purge_orphaned_data` must be TRUE or FALSE")
  tb_err(tensorboard(dir, program = "python"), "`program` must be one of \"native\" or \"tensorboard\"")
  tb_err(tensorboard(dir, launch_browser = FALSE, samples_per_plugin = 5),
         "`...` is for the flags of the `tensorboard` program")
  tb_err(cppestimators:::need_package("surely.not.a.package", "tensorboard()"),
         "tensorboard\\(\\) needs the 'surely.not.a.package' package")
})

test_that("runs are named as TensorBoard names them", {
  a <- tb_tempdir()
  b <- tb_tempdir()
  dirs <- cppestimators:::tensorboard_log_dirs(a)
  expect_identical(names(dirs), "")
  run_names <- cppestimators:::tensorboard_run_names
  expect_identical(run_names("", c("events.out.tfevents.1.h", "eval/events.out.tfevents.2.h")), c(".", "eval"))
  expect_identical(run_names("wide", c("events.out.tfevents.1.h", "eval_test/e")), c("wide/.", "wide/eval_test"))
  dirs <- cppestimators:::tensorboard_log_dirs(list(first = a, b))
  expect_identical(names(dirs), c("first", basename(b)))
  expect_identical(unname(dirs), normalizePath(c(a, b), winslash = "/"))
})

test_that("the JSON writer encodes numbers, NaN, infinities and strings", {
  json_num <- cppestimators:::json_num
  json_str <- cppestimators:::json_str
  expect_identical(json_num(c(NaN, Inf, -Inf, NA, 3, -2, 0.5)),
                   c("\"NaN\"", "\"Infinity\"", "\"-Infinity\"", "null", "3", "-2", "0.5"))
  x <- c(0.1, 1 / 3, 1e-300, 123456789.123, 1.7976931348623157e308, 1776000000.123456)
  expect_identical(jsonlite::fromJSON(paste0("[", paste(json_num(x), collapse = ","), "]")), x)
  s <- c("plain", "quote \" and \\ backslash", "line\nbreak\ttab", "ctrl \001 char", "caf\u00e9")
  expect_identical(jsonlite::fromJSON(paste0("[", paste(json_str(s), collapse = ","), "]")), s)
  obj <- cppestimators:::json_columns(data.frame(a = c(1, NaN), b = c("x", "y")))
  expect_identical(obj, "{\"a\":[1,\"NaN\"],\"b\":[\"x\",\"y\"]}")
})

skip_if_not_installed("httpuv")
skip_if_not_installed("jsonlite")
skip_if_not_installed("processx")
skip_if_not(nzchar(Sys.which("curl")), "no curl")

test_that("the server's scalars are those read_summaries() reads", {
  dir <- tb_tempdir()
  est <- train_x_in(dir, steps = 12)
  tb <- tensorboard(est, launch_browser = FALSE, background = FALSE, reload_interval = 60) |> suppressMessages()
  on.exit(tb$stop(), add = TRUE)
  expect_match(tb$url, "^http://127\\.0\\.0\\.1:[0-9]+/$")
  got <- tb_scalars(tb)
  want <- read_summaries(est)
  expect_setequal(unique(got$run), c(".", "eval"))
  expect_identical(got$run, want$run)
  expect_identical(got$tag, want$tag)
  expect_identical(got$step, want$step)
  expect_identical(got$value, want$value)
  expect_identical(got$wall_time, want$wall_time)
  expect_identical(attr(got, "cursor"), nrow(want))
  runs <- tb_json(tb, "data/runs")$runs
  expect_setequal(runs$name, c(".", "eval"))
  expect_setequal(runs$tags[[which(runs$name == ".")]], unique(want$tag[want$run == "."]))
  expect_setequal(runs$tags[[which(runs$name == "eval")]], unique(want$tag[want$run == "eval"]))
  status <- tb_json(tb, "data/status")
  expect_identical(status$scalars, nrow(want))
  expect_identical(status$runs, 2L)
  expect_identical(status$reload_interval, 60L)
})

test_that("a poll reads only the records written since the last one, and since= returns only them", {
  dir <- tb_tempdir()
  est <- train_x_in(dir, steps = 10, evaluate = FALSE)
  tb <- tensorboard(dir, launch_browser = FALSE, background = FALSE, reload_interval = 60) |> suppressMessages()
  on.exit(tb$stop(), add = TRUE)
  files <- function() list.files(dir, pattern = "^events", recursive = TRUE, full.names = TRUE)
  records <- function() sum(vapply(files(), function(f) cppestimators:::cpp_read_events_from(f, 0)$records, 0))
  bytes <- function() sum(file.size(files()))
  first <- tb$status()
  expect_identical(first$polls, 1)
  expect_identical(first$total_records, records())
  expect_identical(first$total_bytes, bytes())
  before <- read_summaries(dir)
  cursor <- tb_json(tb, "data/status")$scalars
  expect_identical(cursor, nrow(before))

  # nothing new: a poll reads nothing and since=cursor returns nothing
  tb$poll()
  expect_identical(tb$status()$last_records, 0)
  expect_identical(tb$status()$last_bytes, 0)
  expect_identical(nrow(tb_scalars(tb, since = cursor)), 0L)

  records_before <- records()
  bytes_before <- bytes()
  quietly(train(est, input_fn = x_input(), steps = 5))
  quietly(evaluate(est, input_fn = x_input(num_epochs = 1)))
  tb$poll()
  st <- tb$status()
  expect_identical(st$last_records, records() - records_before)
  expect_identical(st$last_bytes, bytes() - bytes_before)
  expect_identical(st$total_bytes, bytes())
  expect_gt(st$last_records, 0)

  after <- read_summaries(dir)
  new <- tb_scalars(tb, since = cursor)
  expect_identical(attr(new, "cursor"), nrow(after))
  expect_identical(nrow(new), nrow(after) - nrow(before))
  expect_true(all(new$step[new$run == "."] > 10))
  expect_setequal(new$run, c(".", "eval"))
  key <- function(d) paste(d$run, d$tag, d$step, d$value)
  expect_setequal(key(new), setdiff(key(after), key(before[, names(before) != "run"] |> transform(run = "."))))
  # a cursor the server does not know (ahead of it) resets the client
  again <- tb_scalars(tb, since = 10^6)
  expect_true(attr(again, "reset"))
  expect_identical(nrow(again), nrow(after))
})

test_that("a record still being written is read by the poll after it is complete", {
  src <- tb_tempdir()
  train_x_in(src, steps = 6, evaluate = FALSE)
  file <- list.files(src, pattern = "^events", full.names = TRUE)
  bytes <- readBin(file, "raw", file.size(file))
  dir <- tb_tempdir()
  part <- file.path(dir, basename(file))
  whole <- cppestimators:::cpp_read_events_from(file, 0)
  for (cut in c(7L, 20L)) {  # in the last record's data, then in its header
    writeBin(bytes[seq_len(length(bytes) - cut)], part)
    got <- cppestimators:::cpp_read_events_from(part, 0)
    expect_identical(got$records, whole$records - 1)
    expect_lt(got$offset, length(bytes) - cut)
  }
  tb <- tensorboard(dir, launch_browser = FALSE, background = FALSE, reload_interval = 60) |> suppressMessages()
  on.exit(tb$stop(), add = TRUE)
  expect_identical(tb$status()$total_records, whole$records - 1)
  held <- tb$status()$scalars
  con <- file(part, "ab")
  writeBin(bytes[seq.int(length(bytes) - 20L + 1L, length(bytes))], con)
  close(con)
  tb$poll()
  expect_identical(tb$status()$last_records, 1)
  expect_identical(tb$status()$total_records, whole$records)
  expect_identical(tb$status()$total_bytes, as.numeric(length(bytes)))
  got <- tb_scalars(tb)
  expect_identical(got$value, read_summaries(src)$value)
  expect_gt(nrow(got), held)
  # a bad CRC is an error naming the file and offset; the page's requests
  # get it in /data/status
  bad <- bytes
  bad[length(bytes) - 2L] <- xor(bad[length(bytes) - 2L], as.raw(1))
  writeBin(bad, part)
  expect_error(cppestimators:::cpp_read_events_from(part, 0), "bad record CRC at offset [0-9]+")
})

test_that("new run directories appear as runs; several log directories are prefixed", {
  a <- tb_tempdir()
  b <- tb_tempdir()
  est_a <- train_x_in(a, steps = 4, evaluate = FALSE)
  train_x_in(b, steps = 3, evaluate = FALSE)
  tb <- tensorboard(list(wide = a, deep = b), launch_browser = FALSE, background = FALSE,
                    reload_interval = 0.01) |> suppressMessages()
  on.exit(tb$stop(), add = TRUE)
  expect_setequal(tb_json(tb, "data/runs")$runs$name, c("wide/.", "deep/."))
  quietly(evaluate(est_a, input_fn = x_input(num_epochs = 1), name = "holdout"))
  Sys.sleep(0.05)
  runs <- tb_json(tb, "data/runs")$runs  # a data request polls when due
  expect_setequal(runs$name, c("wide/.", "deep/.", "wide/eval_holdout"))
  expect_setequal(runs$tags[[which(runs$name == "wide/eval_holdout")]],
                  unique(read_summaries(file.path(a, "eval_holdout"))$tag))
  sc <- tb_scalars(tb)
  expect_identical(sum(sc$run == "deep/."), nrow(read_summaries(b)))
})

test_that("the page and its files are served; unknown paths are 404", {
  dir <- tb_tempdir()
  tb <- tensorboard(dir, launch_browser = FALSE, background = FALSE) |> suppressMessages()
  on.exit(tb$stop(), add = TRUE)
  page <- http_get(tb$url)
  expect_identical(page$status, 200L)
  expect_match(page$type, "text/html")
  expect_match(page$body, "<script src=\"dashboard.js\">", fixed = TRUE)
  js <- http_get(paste0(tb$url, "dashboard.js"))
  expect_identical(js$status, 200L)
  expect_match(js$type, "javascript")
  expect_match(http_get(paste0(tb$url, "dashboard.css"))$type, "text/css")
  expect_identical(http_get(paste0(tb$url, "nothing/here"))$status, 404L)
  expect_identical(http_get(paste0(tb$url, "../DESCRIPTION"))$status, 404L)
  # no runs yet: an empty answer
  empty <- tb_scalars(tb)
  expect_identical(nrow(empty), 0L)
  expect_identical(tb_json(tb, "data/runs")$cursor, 0L)
})

test_that("$stop() frees the port; action = \"stop\" stops every server started", {
  dir <- tb_tempdir()
  tb <- tensorboard(dir, launch_browser = FALSE, background = FALSE, port = "auto") |> suppressMessages()
  expect_output(print(tb), "TensorBoard \\(native, running\\) at http://127.0.0.1:[0-9]+/")
  expect_identical(http_get(paste0(tb$url, "data/status"))$status, 200L)
  port <- tb$port
  tb$stop()
  expect_false(tb$running())
  expect_output(print(tb), "stopped")
  expect_identical(http_get(paste0(tb$url, "data/status"), timeout = 3)$status, 0L)  # refused
  again <- tensorboard(dir, launch_browser = FALSE, background = FALSE, port = port) |> suppressMessages()
  expect_identical(again$port, port)
  tb_err(tensorboard(dir, launch_browser = FALSE, background = FALSE, port = port) |> suppressMessages(),
         sprintf("`port`: cannot serve on 127.0.0.1:%d", port))
  other <- tensorboard(dir, launch_browser = FALSE, background = FALSE) |> suppressMessages()
  expect_message(n <- tensorboard(action = "stop"), "Stopped 2 TensorBoards")
  expect_identical(n, 2L)
  expect_false(again$running())
  expect_false(other$running())
  expect_identical(tensorboard(action = "stop"), 0L)
})

test_that("the URL goes to stderr and to the viewer when launch_browser = TRUE", {
  dir <- tb_tempdir()
  seen <- NULL
  old <- options(viewer = function(url) seen <<- url)
  on.exit(options(old), add = TRUE)
  expect_message(tb <- tensorboard(dir, launch_browser = TRUE, background = FALSE), "TensorBoard at http://127.0.0.1:")
  on.exit(tb$stop(), add = TRUE)
  expect_identical(seen, tb$url)
  # nothing on stdout
  expect_identical(utils::capture.output(suppressMessages(
    tensorboard(dir, launch_browser = FALSE, background = FALSE)$stop())),
                   character())
})

test_that("program = \"tensorboard\" runs the program on the PATH, or says it is missing", {
  dir <- tb_tempdir()
  bin <- tb_tempdir()
  old_path <- Sys.getenv("PATH")
  Sys.setenv(PATH = bin)
  on.exit(Sys.setenv(PATH = old_path), add = TRUE)
  tb_err(tensorboard(dir, program = "tensorboard", launch_browser = FALSE),
         "`program = \"tensorboard\"`: no `tensorboard` program on the PATH")
  skip_on_os("windows")
  args_file <- file.path(bin, "args.txt")
  writeLines(c("#!/bin/sh", sprintf("echo \"$@\" > '%s'", args_file), "exec /bin/sleep 30"),
             file.path(bin, "tensorboard"))
  Sys.chmod(file.path(bin, "tensorboard"), "0755")
  tb <- tensorboard(list(a = dir, b = bin), program = "tensorboard", port = 6123, reload_interval = 2,
                    launch_browser = FALSE, samples_per_plugin = "scalars=500") |> suppressMessages()
  on.exit(tb$stop(), add = TRUE)
  expect_s3_class(tb, "cppestimators_tensorboard")
  expect_identical(tb$url, "http://127.0.0.1:6123/")
  expect_true(serve_until(function() file.exists(args_file) && length(readLines(args_file)) > 0L, 10))
  args <- readLines(args_file)
  expect_match(args, sprintf("--logdir_spec a:%s,b:%s", normalizePath(dir), normalizePath(bin)), fixed = TRUE)
  expect_match(args, "--host 127.0.0.1 --port 6123 --reload_interval 2 --purge_orphaned_data true", fixed = TRUE)
  expect_match(args, "--samples_per_plugin=scalars=500", fixed = TRUE)
  expect_true(tb$running())
  tb$stop()
  expect_false(tb$running())
})

test_that("the background server answers within 1 s while train() runs in this session", {
  skip_on_cran()  # starts R processes
  skip_if_not_installed("callr")
  skip_if_not(nzchar(Sys.which("curl")), "no curl")
  dir <- file.path(tb_tempdir(), "model")
  tb <- tensorboard(dir, launch_browser = FALSE, reload_interval = 0.2) |> suppressMessages()
  on.exit(tb$stop(), add = TRUE)
  expect_true(tb$background)
  expect_true(tb$running())
  server <- tb$process$get_pid()
  # a client asking for /data/status every 0.4 s, 20 times, each request's
  # start time, HTTP status and duration on a line
  log <- tempfile()
  client <- processx::process$new("sh", c("-c", sprintf(paste(
    "for i in $(seq 20); do t=$(date +%%s.%%N);",
    "r=$(curl -s -o /dev/null --max-time 5 -w '%%{http_code} %%{time_total}' '%sdata/status');",
    "echo \"$t $r\" >> '%s'; sleep 0.4; done"), tb$url, log)))
  on.exit(if (client$is_alive()) client$kill(), add = TRUE)
  slow <- session_run_hook(after_run = function(context, values) Sys.sleep(0.1))
  est <- x_regressor(model_dir = dir, config = run_config(save_summary_steps = 1))
  started <- as.numeric(Sys.time())
  quietly(train(est, x_input(num_epochs = NULL), steps = 120, hooks = list(slow)))
  ended <- as.numeric(Sys.time())
  client$wait(30000)
  got <- utils::read.table(log, col.names = c("at", "status", "seconds"))
  during <- got[got$at > started & got$at + got$seconds < ended, ]
  expect_gte(ended - started, 10)
  # answered while the training ran (a server in the training session would
  # answer only after it): requests that started and ended within it, all
  # answered (curl gives up after 5 s); how fast is not a test's business
  # on a shared machine
  expect_gte(nrow(during), 15)
  expect_true(all(during$status == 200))
  # what the training wrote, read by the server through $poll()
  tb$poll()
  expect_equal(tb$status()$scalars, nrow(read_summaries(dir)))
  tb$stop()
  expect_false(tb$running())
  expect_false(cppestimators:::process_alive(server))
})

test_that("action = \"stop\" and a killed parent leave no background server", {
  skip_on_cran()  # starts R processes
  skip_if_not_installed("callr")
  dir <- tb_tempdir()
  tb <- tensorboard(dir, launch_browser = FALSE) |> suppressMessages()
  server <- tb$process$get_pid()
  expect_true(cppestimators:::process_alive(server))
  expect_message(tensorboard(action = "stop"), "Stopped 1 TensorBoard")
  expect_false(cppestimators:::process_alive(server))

  # an R session that starts a dashboard, then is killed
  pid_file <- tempfile()
  parent <- callr::r_bg(function(dir, pid_file, libs) {
    .libPaths(libs)
    tb <- suppressMessages(cppestimators::tensorboard(dir, launch_browser = FALSE))
    writeLines(format(tb$process$get_pid()), pid_file)
    Sys.sleep(3600)  # killed below
  }, list(dir = dir, pid_file = pid_file, libs = .libPaths()))
  on.exit(parent$kill(), add = TRUE)
  deadline <- Sys.time() + 300  # waits for the file, not for a while
  while (!(file.exists(pid_file) && length(readLines(pid_file, warn = FALSE))) && Sys.time() < deadline) {
    Sys.sleep(0.05)
  }
  server <- as.integer(readLines(pid_file))
  expect_true(cppestimators:::process_alive(server))
  parent$kill()
  deadline <- Sys.time() + 300  # the server looks for its parent every second; a deadline for a hang only
  while (cppestimators:::process_alive(server) && Sys.time() < deadline) Sys.sleep(0.1)
  expect_false(cppestimators:::process_alive(server))
})

test_that("without a background process the dashboard is served from the session, saying why", {
  skip_on_cran()  # starts an R process
  skip_if_not_installed("callr")
  dir <- tb_tempdir()
  busy <- tensorboard(dir, launch_browser = FALSE, background = FALSE) |> suppressMessages()
  on.exit(busy$stop(), add = TRUE)
  # the port is taken: the background server cannot listen, and says so
  msgs <- character()
  tb <- withCallingHandlers(tensorboard(dir, launch_browser = FALSE, port = busy$port),
                            message = function(m) {
                              msgs <<- c(msgs, conditionMessage(m))
                              invokeRestart("muffleMessage")
                            }) |> tryCatch(error = function(e) e)
  expect_true(any(grepl("the background server stopped: .*cannot serve on 127.0.0.1", msgs)))
  expect_true(any(grepl("serving from this R session instead", msgs)))
  # ... and the in-session server cannot take the port either
  expect_s3_class(tb, "cppestimators_error")
  expect_match(conditionMessage(tb), "`port`: cannot serve on 127.0.0.1")
})
