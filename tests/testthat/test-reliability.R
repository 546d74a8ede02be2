# No silent wrong results, no lost work: bad values, mismatched models,
# concurrent trainings, stale temporaries.

test_that("infinite features and values beyond float32 are refused in train, evaluate and predict", {
  est <- x_regressor()
  quietly(train(est, x_input(), steps = 2))
  bad <- data.frame(x = c(1, 2, Inf, 4), y = 1:4)
  for (run in list(function(i) train(est, i, steps = 1), function(i) evaluate(est, i),
                   function(i) predict(est, input_fn(bad, features = "x")))) {
    expect_error(quietly(run(input_fn(bad, response = "y"))),
                 "feature 'x' contains infinite values \\(Inf\\), first at row 3")
  }
  huge <- data.frame(x = c(1, -1e39), y = 1:2)
  expect_error(quietly(predict(est, input_fn(huge, features = "x"))),
               "feature 'x' contains values beyond the float32 range \\(\\|x\\| > 3.4e38\\), first at row 2")
  # the response too, in evaluate() as in train()
  inf_y <- data.frame(x = 1:3, y = c(1, -Inf, 3))
  expect_error(quietly(evaluate(est, input_fn(inf_y, response = "y"))),
               "the response contains infinite values, first at row 2")
  expect_error(quietly(train(est, input_fn(inf_y, response = "y"), steps = 1)),
               "the response contains infinite values, first at row 2")
})

test_that("an estimator whose model differs from its model_dir's is refused, listing the differences", {
  dir <- tempfile()
  two <- suppressMessages(linear_regressor(feature_columns(column_numeric("drat", "wt")), model_dir = dir))
  quietly(train(two, input_fn(mtcars, response = "mpg", features = c("drat", "wt")), steps = 2))
  expect_true(file.exists(file.path(dir, "cppestimators_model.txt")))
  one <- suppressMessages(linear_regressor(feature_columns(column_numeric("drat")), model_dir = dir))
  err <- expect_error(quietly(predict(one, input_fn(mtcars, features = "drat"))),
                      "model_dir '.*' holds a different model than this linear_regressor")
  expect_match(conditionMessage(err), "in model_dir: +column: _NumericColumn\\(key='wt'")
  expect_error(variable_value(one), "holds a different model")
  dnn <- suppressMessages(dnn_regressor(hidden_units = 3, feature_columns(column_numeric("drat", "wt")),
                                        model_dir = dir))
  expect_error(quietly(train(dnn, input_fn(mtcars, response = "mpg", features = c("drat", "wt")), steps = 1)),
               "in model_dir: +model: linear")
  # the same model in a new object reads the checkpoint
  same <- suppressMessages(linear_regressor(feature_columns(column_numeric("drat", "wt")), model_dir = dir))
  expect_equal(variable_value(same, "global_step")[[1]], 1)  # 32 rows, one batch
})

test_that("load_estimator() refuses a model_dir that holds another model", {
  a <- x_regressor(model_dir = tempfile())
  quietly(train(a, x_input(), steps = 2))
  exported <- export_savedmodel(a, tempfile())
  other_dir <- tempfile()
  b <- suppressMessages(linear_regressor(feature_columns(column_numeric("drat")), model_dir = other_dir))
  quietly(train(b, input_fn(mtcars, response = "mpg", features = "drat"), steps = 3))
  before <- list.files(other_dir)
  expect_error(load_estimator(exported, model_dir = other_dir), "holds a different model")
  expect_equal(list.files(other_dir), before)
  expect_equal(variable_value(b, "global_step")[[1]], 1)
  # a new directory is fine
  loaded <- load_estimator(exported, model_dir = tempfile())
  expect_equal(variable_value(loaded, "global_step")[[1]], 2)
})

test_that("a second training of one model_dir is refused while the first runs; stale locks are taken over", {
  dir <- tempfile()
  est <- x_regressor(model_dir = dir)
  other <- x_regressor(model_dir = dir)
  seen <- NULL
  hook <- session_run_hook(after_run = function(context, values) {
    if (is.null(seen)) {
      seen <<- tryCatch({
        train(other, x_input(), steps = 1)
        "trained"
      }, error = function(e) conditionMessage(e))
    }
  })
  quietly(train(est, x_input(), steps = 2, hooks = list(hook)))
  expect_match(seen, sprintf("model_dir '%s' is being trained by process %d on host", dir, Sys.getpid()),
               fixed = TRUE)
  expect_false(dir.exists(file.path(dir, ".cppestimators.lock")))  # released at the end
  # a lock left by a process that no longer exists
  dir.create(file.path(dir, ".cppestimators.lock"))
  writeLines(sprintf("%d %s", 2^22 + 12345, cppestimators:::hostname()), file.path(dir, ".cppestimators.lock", "owner"))
  quietly(train(est, x_input(), steps = 1))
  expect_equal(variable_value(est, "global_step")[[1]], 3)
  # another host's lock is respected
  dir.create(file.path(dir, ".cppestimators.lock"))
  writeLines("12 some-other-host", file.path(dir, ".cppestimators.lock", "owner"))
  expect_error(quietly(train(est, x_input(), steps = 1)), "being trained by process 12 on host 'some-other-host'")
  unlink(file.path(dir, ".cppestimators.lock"), recursive = TRUE)
})

test_that("the lock is a link naming its process while train() runs; links of dead and other hosts' processes", {
  dir <- tempfile()
  est <- x_regressor(model_dir = dir)
  lock <- file.path(dir, ".cppestimators.lock")
  seen <- NULL
  hook <- session_run_hook(after_run = function(context, values) {
    if (is.null(seen)) seen <<- Sys.readlink(lock)
  })
  quietly(train(est, x_input(), steps = 1, hooks = list(hook)))
  expect_match(seen, sprintf("^%d %s\n[0-9]+\\.[0-9]{3}\n$", Sys.getpid(), cppestimators:::hostname()))
  gone <- function() !".cppestimators.lock" %in% list.files(dir, all.files = TRUE)
  expect_true(gone())  # released
  # a link left by a process that no longer exists is taken over
  file.symlink(sprintf("%d %s\n1.000\n", 2^22 + 12345, cppestimators:::hostname()), lock)
  quietly(train(est, x_input(), steps = 1))
  expect_equal(variable_value(est, "global_step")[[1]], 2)
  expect_true(gone())
  # another host's link is respected, and named
  file.symlink("12 some-other-host\n1.000\n", lock)
  at_once <- x_regressor(model_dir = dir, config = run_config(lock_timeout_secs = 0))
  expect_error(quietly(train(at_once, x_input(), steps = 1)), "being trained by process 12 on host 'some-other-host'",
               class = "cppestimators_model_dir_busy")
  expect_identical(Sys.readlink(lock), "12 some-other-host\n1.000\n")  # not removed
  unlink(lock)
  unlink(dir, recursive = TRUE)
})

test_that("temporary files of dead processes' saves are removed when training starts", {
  dir <- tempfile()
  est <- x_regressor(model_dir = dir)
  quietly(train(est, x_input(), steps = 1))
  dead <- file.path(dir, sprintf("model.ckpt-1.tmp-%d-0000abcd-0", 2^22 + 4321))
  mine <- file.path(dir, sprintf("model.ckpt-1.tmp-%d-0000abcd-0", Sys.getpid()))
  writeLines("partial", dead)
  writeLines("partial", mine)
  quietly(train(est, x_input(), steps = 1))
  expect_false(file.exists(dead))
  expect_true(file.exists(mine))  # this process is alive: not stale
})

test_that("ambiguous or out-of-range arguments are errors naming them", {
  df <- data.frame(x = 1:3, x = 4:6, y = 1:3, check.names = FALSE)
  expect_error(input_fn(df, response = "y", features = "x"), "more than one column named 'x'")
  expect_error(x_regressor(model_dir = NA_character_), "`model_dir` must be NULL or a non-empty string \\(not NA\\)")
  expect_error(run_config(model_dir = NA_character_),
               "model_dir should be non-empty \\(a string, not NA\\), not character NA")
  expect_error(run_config(keep_checkpoint_max = 2.5), "keep_checkpoint_max should be >= 0 and a whole number")
  expect_error(train(x_regressor(), x_input(), steps = 2^63), "`steps` must be <= ")
  expect_error(train(x_regressor(), x_input(), max_steps = 2^64), "`max_steps` must be <= ")
  expect_error(evaluate(x_regressor(), x_input(num_epochs = 1), steps = 2^63), "`steps` must be <= ")
  fac <- data.frame(x = factor(c("a", "b", "a")), y = 1:3)
  expect_error(quietly(train(x_regressor(), input_fn(fac, response = "y"), steps = 1)),
               "feature 'x' is a factor: column_numeric\\(\\) needs numbers")
})

test_that("an event file cut short is read up to its last whole record, with a warning", {
  dir <- tempfile()
  quietly(train(x_regressor(model_dir = dir, config = run_config(save_summary_steps = 1)), x_input(), steps = 4))
  f <- list.files(dir, pattern = "tfevents", full.names = TRUE)[1]
  whole <- read_summaries(dir)
  bytes <- readBin(f, "raw", file.size(f))
  writeBin(bytes[seq_len(length(bytes) - 7)], f)  # the last record loses its tail
  expect_warning(cut <- read_summaries(dir), "the last record, at offset [0-9]+, is incomplete")
  expect_lt(nrow(cut), nrow(whole))  # the last event's scalars are gone, the rest is intact
  expect_gt(nrow(cut), 0)
  expect_equal(cut, whole[seq_len(nrow(cut)), ], ignore_attr = TRUE)
  # a corrupt record in the middle stays an error naming the file and offset
  bytes[40] <- as.raw(bitwXor(as.integer(bytes[40]), 0xff))
  writeBin(bytes, f)
  expect_error(read_summaries(dir), "tfevents.*(bad record CRC|bad length CRC|malformed Event) at offset [0-9]+")
})

test_that("evaluation writers stay few however many estimators evaluate", {
  skip_on_os("windows")
  open_files <- function() length(list.files(sprintf("/proc/%d/fd", Sys.getpid())))
  skip_if(open_files() == 0, "no /proc")
  input <- x_input(num_epochs = 1)
  trained <- function() {
    est <- x_regressor(model_dir = tempfile())
    quietly(train(est, input, steps = 1))
    est
  }
  quietly(evaluate(trained(), input))
  before <- open_files()
  for (i in 1:40) quietly(evaluate(trained(), input))
  expect_lte(open_files() - before, 16)
})

test_that("sizes no machine holds are errors naming the argument, before allocating", {
  big <- input_fn(data.frame(x = 1:4, y = 1:4), response = "y", batch_size = 2e9, num_epochs = NULL)
  expect_error(quietly(train(x_regressor(), big, steps = 1)),
               "`batch_size` of 2000000000 rows would need [0-9]+ GiB of batch buffers")
  expect_error(linear_classifier(feature_columns(column_numeric("x")), n_classes = 1e9), "`n_classes` must be <= ")
})

test_that("the package's errors carry the class cppestimators_error", {
  expect_error(input_fn(data.frame(x = 1), response = "nope"), class = "cppestimators_error")
  expect_error(quietly(train(x_regressor(), input_fn(data.frame(x = c(1, Inf), y = 1:2), response = "y"), steps = 1)),
               class = "cppestimators_error")
  hook <- session_run_hook(after_run = function(context, values) stop("boom"))
  err <- expect_error(quietly(train(x_regressor(), x_input(), steps = 1, hooks = list(hook))),
                      class = "cppestimators_hook_error")
  expect_s3_class(err, "cppestimators_error")
  expect_equal(conditionMessage(err$parent), "boom")
})

test_that("engine errors outside sessions carry the class too", {
  dir <- tempfile()
  quietly(train(x_regressor(model_dir = dir, config = run_config(save_summary_steps = 1)), x_input(), steps = 2))
  f <- list.files(dir, pattern = "tfevents", full.names = TRUE)[1]
  bytes <- readBin(f, "raw", file.size(f))
  bytes[40] <- as.raw(bitwXor(as.integer(bytes[40]), 0xff))
  writeBin(bytes, f)
  expect_error(read_summaries(dir), class = "cppestimators_error")
  ck <- file.path(dir, "model.ckpt-2.ckpt")
  writeBin(charToRaw("not a checkpoint"), ck)
  expect_error(variable_value(x_regressor(model_dir = dir)), class = "cppestimators_error")
})

test_that("[slow] two processes racing short train() calls on one model_dir wait and lose no step", {
  skip_on_cran()  # spawns R processes
  skip_if_not_installed("callr")
  dir <- tempfile("race-")
  libs <- .libPaths()
  racer <- function(dir, calls, libs) {
    .libPaths(libs)
    library(cppestimators)
    options(cppestimators.progress = FALSE)
    est <- linear_regressor(feature_columns(column_numeric("drat")), model_dir = dir,
                            config = run_config(save_checkpoints_steps = 1, keep_checkpoint_max = 1,
                                                log_step_count_steps = NULL, save_summary_steps = 0))
    input <- input_fn(mtcars, features = "drat", response = "mpg", batch_size = 8, num_epochs = NULL)
    errors <- character()
    for (i in seq_len(calls)) {
      res <- tryCatch({
        suppressMessages(train(est, input, steps = 5))
        NULL
      }, error = conditionMessage)
      errors <- c(errors, res)
    }
    errors
  }
  procs <- lapply(1:2, function(i) callr::r_bg(racer, list(dir = dir, calls = 150, libs = libs)))
  for (p in procs) p$wait(timeout = 900000)
  errors <- unlist(lapply(procs, function(p) p$get_result()))
  expect_equal(errors, character())
  est <- linear_regressor(feature_columns(column_numeric("drat")), model_dir = dir)
  expect_equal(variable_value(est, "global_step")[[1]], 2 * 150 * 5)
  # a lock held by a live process makes a train() with lock_timeout_secs = 0 fail at once, naming it
  holder <- callr::r_bg(function(dir) {
    dir.create(file.path(dir, ".cppestimators.lock"))
    writeLines(sprintf("%d %s", Sys.getpid(), Sys.info()[["nodename"]]), file.path(dir, ".cppestimators.lock", "owner"))
    Sys.sleep(600)  # killed when the test ends
  }, list(dir = dir))
  on.exit(holder$kill(), add = TRUE)
  owner <- file.path(dir, ".cppestimators.lock", "owner")
  deadline <- Sys.time() + 120  # waits for the holder's lock, not for a while
  while (!(file.exists(owner) && length(readLines(owner, warn = FALSE))) && Sys.time() < deadline) Sys.sleep(0.01)
  expect_true(file.exists(owner))
  busy <- linear_regressor(feature_columns(column_numeric("drat")), model_dir = dir,
                           config = run_config(lock_timeout_secs = 0))
  expect_error(quietly(train(busy, input_fn(mtcars, features = "drat", response = "mpg"), steps = 1)),
               class = "cppestimators_model_dir_busy",
               regexp = sprintf("is being trained by process %d on host", holder$get_pid()))
  waiting <- linear_regressor(feature_columns(column_numeric("drat")), model_dir = dir,
                              config = run_config(lock_timeout_secs = 0.5))
  err <- expect_error(quietly(train(waiting, input_fn(mtcars, features = "drat", response = "mpg"), steps = 1)),
                      class = "cppestimators_model_dir_busy", regexp = "still after waiting [0-9.]+ s")
  # at least the timeout (a loaded machine may wake the waiter later)
  expect_gte(as.numeric(sub(".*still after waiting ([0-9.]+) s.*", "\\1", conditionMessage(err))), 0.5)
  expect_false(dir.exists(file.path(dir, ".cppestimators.lock.queue")))  # no ticket left
  expect_error(run_config(lock_timeout_secs = -1), "`lock_timeout_secs` must be a number of seconds >= 0",
               class = "cppestimators_error")
})

test_that("[slow] an interrupt during an in-memory evaluation or a large evaluation batch stops in order", {
  skip_on_cran()  # spawns R processes
  skip_if_not_installed("callr")
  libs <- .libPaths()
  run <- function(what, dir, libs) {
    .libPaths(libs)
    library(cppestimators)
    options(cppestimators.progress = FALSE)
    n <- 2e6
    set.seed(1)
    d <- data.frame(x1 = stats::runif(n), x2 = stats::runif(n), y = stats::runif(n))
    est <- dnn_regressor(c(64, 64), feature_columns(column_numeric("x1", "x2")), model_dir = dir)
    small <- input_fn(d[1:1000, ], features = c("x1", "x2"), response = "y", batch_size = 100, num_epochs = NULL)
    big <- input_fn(d, features = c("x1", "x2"), response = "y", batch_size = if (what == "batch") n else 1000)
    suppressMessages(train(est, small, steps = 5))
    # the parent interrupts once this file is there: within the tryCatch,
    # once the first evaluation has run (then every step evaluates)
    started <- function() cat("go\n", file = file.path(dir, "started"))
    res <- tryCatch({
      if (what == "batch") {
        for (i in 1:100) {
          suppressMessages(evaluate(est, big))
          if (i == 1) started()
        }
      } else {
        first <- session_run_hook(after_run = function(context, values) {
          if (!file.exists(file.path(dir, "started"))) started()
        })
        suppressMessages(train(est, small, steps = 1e6,
                               hooks = list(hook_in_memory_evaluator(est, big, every_n_iter = 1), first)))
      }
      "finished"
    }, interrupt = function(e) "interrupted")
    list(res = res, step = variable_value(est, "global_step")[[1]])
  }
  for (what in c("evaluator", "batch")) {
    dir <- tempfile("interrupt-")
    dir.create(dir)
    p <- callr::r_bg(run, list(what = what, dir = dir, libs = libs))
    deadline <- Sys.time() + 300  # waits for the child's file, not for a while
    while (!file.exists(file.path(dir, "started")) && Sys.time() < deadline && p$is_alive()) Sys.sleep(0.05)
    expect_true(file.exists(file.path(dir, "started")), label = what)
    p$interrupt()
    # the child stops (and exits) at the interrupt, not after its 100 evaluations or 1e6
    # steps; how soon (within a second, in the middle of an evaluation) is measured by
    # bench/interrupt.R
    p$wait(timeout = 300000)
    expect_false(p$is_alive(), label = what)
    out <- p$get_result()
    expect_equal(out$res, "interrupted", label = what)
    # model_dir is intact: its latest checkpoint restores
    est <- dnn_regressor(c(64, 64), feature_columns(column_numeric("x1", "x2")), model_dir = dir)
    expect_gte(variable_value(est, "global_step")[[1]], 5)
    if (what == "evaluator") expect_lte(variable_value(est, "global_step")[[1]], out$step)
  }
})
