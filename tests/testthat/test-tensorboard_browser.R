# The dashboard page in a real headless browser (Debian's chromium): its
# scripts fetch the scalars and draw the charts, while a model trains in
# another process. chromium --dump-dom gives the DOM after the page ran.

skip_on_cran()
skip_if_not(nzchar(Sys.which("chromium")), "no chromium")
skip_if_not_installed("httpuv")
skip_if_not_installed("processx")
skip_if_not_installed("callr")
skip_if_not_installed("xml2")

test_that("the page draws a chart per tag and a series per run, and follows a live training", {
  dir <- file.path(tb_tempdir(), "model")  # created by the training
  tb <- tensorboard(dir, launch_browser = FALSE, reload_interval = 0.25) |> suppressMessages()
  on.exit(tb$stop(), add = TRUE)
  # a training steered by files (not by time: the machine may be busy)
  gate <- tb_tempdir()
  trainer <- train_x_in_background(dir, steps = 1e6, sleep = 0.1, gate = gate)
  on.exit(if (trainer$is_alive()) trainer$kill(), add = TRUE)
  # the event file is flushed every few seconds: wait for the first scalars
  scalars <- function() {
    tb$poll()
    tb$status()$scalars
  }
  expect_true(serve_until(function() scalars() > 0, timeout = 300))
  # the training holds while the page loads the first time
  file.create(file.path(gate, "hold"))
  expect_true(serve_until(function() file.exists(file.path(gate, "held")), timeout = 300))
  expect_true(trainer$is_alive())
  seen <- scalars()

  first <- dom_series(chromium_dom(tb$url, budget = 2000))
  shot <- tempfile(fileext = ".png")
  chromium_screenshot(tb$url, shot)
  expect_gt(file.size(shot), 10000)

  # then goes on until more points are on disk, and stops
  file.create(file.path(gate, "go"))
  expect_true(serve_until(function() scalars() > seen, timeout = 300))
  file.create(file.path(gate, "stop"))
  serve_while(trainer, timeout = 300)
  expect_identical(trainer$get_exit_status(), 0L)
  dom <- chromium_dom(paste0(tb$url, "#smoothing=0.6&hover=loss"), budget = 3000)
  last <- dom_series(dom)
  want <- read_summaries(dir)

  # a chart per tag, with a series per run holding every point
  tags <- xml2::xml_attr(xml2::xml_find_all(dom, "//div[@data-tag]"), "data-tag")
  expect_setequal(tags, unique(want$tag))
  expect_setequal(unique(last$run), c(".", "eval"))
  counts <- aggregate(step ~ run + tag, data = want, FUN = length)
  got <- merge(counts, last, by = c("run", "tag"))
  expect_identical(nrow(got), nrow(counts))
  expect_identical(got$points, got$step)
  # the second load, after training, has more points than the first, taken
  # while it trained
  loss_points <- function(s) s$points[s$tag == "loss" & s$run == "."]
  expect_length(loss_points(first), 1L)
  expect_gt(loss_points(last), loss_points(first))
  expect_identical(loss_points(last), sum(want$run == "." & want$tag == "loss"))

  # smoothing: TensorBoard's debiased moving average of the raw values
  loss <- want[want$run == "." & want$tag == "loss", ]
  expect_equal(last$last_smoothed[last$tag == "loss" & last$run == "."],
               utils::tail(tb_smooth(loss$value, 0.6), 1), tolerance = 1e-6)
  expect_identical(last$last_step[last$tag == "loss" & last$run == "."], max(loss$step))

  # the status element counts the page's polls; a checkbox per run
  status <- xml2::xml_find_first(dom, "//*[@id='status']")
  expect_identical(xml2::xml_attr(status, "data-error"), NA_character_)  # no script error
  expect_gt(as.integer(xml2::xml_attr(status, "data-polls")), 1L)
  expect_identical(as.integer(xml2::xml_attr(status, "data-cursor")), nrow(want))
  # the tooltip of the mouse in the middle of the loss chart: the nearest
  # point of each run, with run, smoothed and raw values, step and time
  tip <- xml2::xml_find_first(dom, "//*[@id='tooltip']")
  expect_identical(xml2::xml_attr(tip, "hidden"), NA_character_)
  rows <- xml2::xml_find_all(tip, ".//tr[td]")
  expect_length(rows, 2L)
  cells <- lapply(rows, function(r) xml2::xml_text(xml2::xml_find_all(r, "td")))
  expect_setequal(vapply(cells, `[[`, "", 2), c(".", "eval"))
  header <- xml2::xml_text(xml2::xml_find_all(tip, ".//th"))
  expect_identical(header[-1], c("Run", "Smoothed", "Value", "Step", "Time", "Relative"))
  train_row <- cells[[which(vapply(cells, `[[`, "", 2) == ".")]]
  expect_true(as.numeric(train_row[5]) %in% loss$step)
  expect_true(xml2::xml_attr(tip, "data-run") %in% c(".", "eval"))
  boxes <- xml2::xml_attr(xml2::xml_find_all(dom, "//div[@id='runs']//input[@type='checkbox']"), "data-run")
  expect_identical(boxes, c(".", "eval"))
})

test_that("the page polls by itself and appends the new points", {
  dir <- file.path(tb_tempdir(), "model")
  tb <- tensorboard(dir, launch_browser = FALSE, reload_interval = 0.2) |> suppressMessages()
  on.exit(tb$stop(), add = TRUE)
  # a training that goes on until the page is done (stopped by a file, not
  # after a while: the machine may be busy)
  gate <- tb_tempdir()
  trainer <- train_x_in_background(dir, steps = 1e6, sleep = 0.1, gate = gate)
  on.exit(if (trainer$is_alive()) trainer$kill(), add = TRUE)
  expect_true(serve_until(function() {
    tb$poll()
    tb$status()$scalars > 0
  }, timeout = 300))
  # one load with a long budget of virtual time: the page keeps polling
  # (each request waits for the server, in real time) while the training
  # goes on and appends what the later polls bring
  dom <- chromium_dom(tb$url, budget = 120000)
  file.create(file.path(gate, "stop"))
  status <- xml2::xml_find_first(dom, "//*[@id='status']")
  expect_identical(xml2::xml_attr(status, "data-error"), NA_character_)
  expect_gt(as.integer(xml2::xml_attr(status, "data-polls")), 5L)
  expect_gt(as.integer(xml2::xml_attr(status, "data-points")),
            as.integer(xml2::xml_attr(status, "data-first-points")))
  serve_while(trainer, timeout = 300)

  # log scale and relative time, set from the address; no smoothing: the
  # last smoothed value is the last raw value
  dom <- chromium_dom(paste0(tb$url, "#x=relative&log=1&smoothing=0"), budget = 1500)
  body <- xml2::xml_find_first(dom, "//body")
  expect_identical(xml2::xml_attr(body, "data-x-type"), "relative")
  expect_identical(xml2::xml_attr(body, "data-log-y"), "true")
  s <- dom_series(dom)
  want <- read_summaries(dir)
  loss <- want[want$run == "." & want$tag == "loss", ]
  mine <- s$tag == "loss" & s$run == "."
  expect_setequal(s$run, c(".", "eval"))
  # a hidden run: its checkbox unchecked, its series not drawn
  hid <- chromium_dom(paste0(tb$url, "#hidden=eval"), budget = 1500)
  expect_identical(unique(dom_series(hid)$run), ".")
  box <- xml2::xml_find_first(hid, "//div[@id='runs']//input[@data-run='eval']")
  expect_identical(xml2::xml_attr(box, "data-checked"), "false")
  box <- xml2::xml_find_first(hid, "//div[@id='runs']//input[@data-run='.']")
  expect_identical(xml2::xml_attr(box, "data-checked"), "true")
  expect_identical(s$points[mine], nrow(loss))
  expect_equal(s$last_smoothed[mine], loss$value[nrow(loss)], tolerance = 1e-6)
})

test_that("a page opened before a train() in this session shows its points while it runs", {
  dir <- file.path(tb_tempdir(), "model")
  tb <- tensorboard(dir, launch_browser = FALSE, reload_interval = 0.2) |> suppressMessages()
  on.exit(tb$stop(), add = TRUE)
  expect_true(tb$background)
  est <- x_regressor(model_dir = dir, config = run_config(save_summary_steps = 1))
  quietly(train(est, x_input(num_epochs = NULL), steps = 5))  # the first points, on disk
  # the page, opened now; it polls every 0.2 s of virtual time, each poll
  # waiting for the server's answer in real time, until its budget is spent
  # (60 s of virtual time: about 300 polls and 10 s of real time here)
  out <- tempfile(fileext = ".html")
  page <- processx::process$new("chromium", c("--headless", "--no-sandbox", "--disable-gpu",
                                              paste0("--user-data-dir=", tempfile("chromium-")),
                                              "--virtual-time-budget=60000", "--dump-dom", tb$url),
                                stdout = out, stderr = tempfile())
  on.exit(if (page$is_alive()) page$kill(), add = TRUE)
  # a training in this session that goes on until the page is done (not for
  # a while: the machine may be busy), noting the step at which it was
  page_done <- NA_real_
  watch <- session_run_hook(after_run = function(context, values) {
    Sys.sleep(0.1)
    if (is.na(page_done) && !page$is_alive()) {
      page_done <<- context$session$run("global_step")
      context$request_stop()
    }
  })
  quietly(train(est, x_input(num_epochs = NULL), steps = 3000, hooks = list(watch)))  # 3000: a hang's guard
  page$wait(60000)
  expect_false(is.na(page_done))  # the page was done while the training ran
  expect_gt(page_done, 5)
  status <- xml2::xml_find_first(xml2::read_html(out), "//*[@id='status']")
  expect_identical(xml2::xml_attr(status, "data-error"), NA_character_)
  expect_gt(as.integer(xml2::xml_attr(status, "data-polls")), 5L)
  # its first poll found the 5 points of the first training (and the
  # evaluation-free run's other tags); later polls, during the second, more
  expect_gt(as.integer(xml2::xml_attr(status, "data-points")),
            as.integer(xml2::xml_attr(status, "data-first-points")))
})
