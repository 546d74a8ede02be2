# The model_dir lock's queue (R/model_dir.R, lock_model_dir()): processes
# waiting for the lock take it in the order they came, and a holder that
# calls train() again at once queues behind them. Nothing here depends on
# time or on the machine's load: the processes wait for each other's files
# (with deadlines far beyond any load), not for a while.

lock_of <- function(dir) file.path(dir, ".cppestimators.lock")
queue_of <- function(dir) file.path(dir, ".cppestimators.lock.queue")
# a ticket's name: "<arrival, ns since 1970, 20 digits>-<pid>-<host>"
ticket <- function(pid, host = cppestimators:::hostname(), arrival = 1) sprintf("%020.0f-%d-%s", arrival, pid, host)
put_ticket <- function(dir, name) {
  dir.create(queue_of(dir), recursive = TRUE, showWarnings = FALSE)
  file.create(file.path(queue_of(dir), name))
}
no_such_pid <- 2^22 + 12345  # beyond Linux's largest process id
# Waits for `cond()` (a file's arrival); FALSE when it does not hold within `secs`.
wait_for <- function(cond, secs = 120) {
  deadline <- Sys.time() + secs
  while (!cond() && Sys.time() < deadline) Sys.sleep(0.01)
  cond()
}

test_that("a ticket of a process of this host that no longer exists is removed, and training goes on", {
  dir <- tempfile()
  est <- x_regressor(model_dir = dir)
  quietly(train(est, x_input(), steps = 1))
  put_ticket(dir, ticket(no_such_pid))
  quietly(train(est, x_input(), steps = 1))
  expect_equal(variable_value(est, "global_step")[[1]], 2)
  expect_false(dir.exists(queue_of(dir)))  # the queue goes with its last ticket
  expect_false(file.exists(lock_of(dir)))
  unlink(dir, recursive = TRUE)
})

test_that("a newcomer defers to a live ticket older than its own, even when the lock is free", {
  dir <- tempfile()
  est <- x_regressor(model_dir = dir)
  quietly(train(est, x_input(), steps = 1))
  other <- ticket(12, "some-other-host")
  put_ticket(dir, other)
  at_once <- x_regressor(model_dir = dir, config = run_config(lock_timeout_secs = 0))
  expect_error(quietly(train(at_once, x_input(), steps = 1)), class = "cppestimators_model_dir_busy",
               regexp = "being trained by process 12 on host 'some-other-host' \\(first in line for the lock\\)")
  expect_false(file.exists(lock_of(dir)))  # not taken
  expect_identical(list.files(queue_of(dir)), other)  # another host's ticket is kept; none of this call is left
  # a live process of this host (this one) is waited for too, until the timeout; the waiter's ticket goes with it
  unlink(queue_of(dir), recursive = TRUE)
  mine <- ticket(Sys.getpid())
  put_ticket(dir, mine)
  waiting <- x_regressor(model_dir = dir, config = run_config(lock_timeout_secs = 0.2))
  expect_error(quietly(train(waiting, x_input(), steps = 1)), class = "cppestimators_model_dir_busy",
               regexp = sprintf("process %d on host .* still after waiting", Sys.getpid()))
  expect_identical(list.files(queue_of(dir)), mine)
  expect_equal(variable_value(est, "global_step")[[1]], 1)  # nothing trained
  # once that ticket is gone, training goes on
  unlink(queue_of(dir), recursive = TRUE)
  quietly(train(at_once, x_input(), steps = 1))
  expect_equal(variable_value(at_once, "global_step")[[1]], 2)
  unlink(dir, recursive = TRUE)
})

test_that("a held lock with lock_timeout_secs = 0 fails at once and leaves no ticket; the directory form is a lock", {
  dir <- tempfile()
  est <- x_regressor(model_dir = dir)
  quietly(train(est, x_input(), steps = 1))
  # the directory form of earlier versions, held by another host
  dir.create(lock_of(dir))
  writeLines("12 some-other-host", file.path(lock_of(dir), "owner"))
  at_once <- x_regressor(model_dir = dir, config = run_config(lock_timeout_secs = 0))
  err <- expect_error(quietly(train(at_once, x_input(), steps = 1)), class = "cppestimators_model_dir_busy",
                      regexp = "being trained by process 12 on host 'some-other-host'")
  expect_false(grepl("still after waiting", conditionMessage(err), fixed = TRUE))  # at once
  expect_false(dir.exists(queue_of(dir)))
  # waiting, then giving up, removes the waiter's ticket
  waiting <- x_regressor(model_dir = dir, config = run_config(lock_timeout_secs = 0.2))
  expect_error(quietly(train(waiting, x_input(), steps = 1)), class = "cppestimators_model_dir_busy",
               regexp = "some-other-host'.*still after waiting")
  expect_false(dir.exists(queue_of(dir)))
  expect_true(dir.exists(lock_of(dir)))  # not removed
  # the directory form of a process of this host that no longer exists is taken over
  writeLines(sprintf("%d %s", no_such_pid, cppestimators:::hostname()), file.path(lock_of(dir), "owner"))
  quietly(train(at_once, x_input(), steps = 1))
  expect_equal(variable_value(at_once, "global_step")[[1]], 2)
  expect_false(file.exists(lock_of(dir)))
  unlink(dir, recursive = TRUE)
})

test_that("[slow] a holder that takes the lock again at once gets it only after the process waiting for it", {
  skip_on_cran()  # spawns R processes
  skip_if_not_installed("callr")
  dir <- tempfile("fair-")
  dir.create(dir)
  signals <- tempfile("signals-")
  dir.create(signals)
  libs <- .libPaths()
  holder <- callr::r_bg(function(dir, signals, libs) {
    .libPaths(libs)
    lock_model_dir <- utils::getFromNamespace("lock_model_dir", "cppestimators")
    queue <- file.path(dir, ".cppestimators.lock.queue")
    unlock <- lock_model_dir(dir, 0)
    file.create(file.path(signals, "held"))
    # holds the lock until the other process waits for it (its ticket)
    deadline <- Sys.time() + 120
    while (!length(list.files(queue)) && Sys.time() < deadline) Sys.sleep(0.01)
    saw <- list.files(queue)
    unlock()
    again <- tryCatch({
      lock_model_dir(dir, 0)()
      "took it"
    }, cppestimators_model_dir_busy = function(e) "busy")
    # waiting: the lock comes after the other process's training
    unlock <- lock_model_dir(dir, 120)
    after <- list.files(dir, pattern = "^model\\.ckpt-[0-9]+\\.ckpt$")
    unlock()
    list(saw = saw, again = again, after = after)
  }, list(dir = dir, signals = signals, libs = libs))
  on.exit(holder$kill(), add = TRUE)
  expect_true(wait_for(function() file.exists(file.path(signals, "held")) || !holder$is_alive()))
  est <- x_regressor(model_dir = dir, config = run_config(lock_timeout_secs = 120))
  quietly(train(est, x_input(), steps = 1))
  holder$wait(120000)
  res <- holder$get_result()
  expect_match(res$saw, sprintf("^[0-9]{20}-%d-", Sys.getpid()))  # this process's ticket
  expect_identical(res$again, "busy")
  expect_true("model.ckpt-1.ckpt" %in% res$after)  # this process's checkpoint was there when the holder came back
  expect_false(dir.exists(queue_of(dir)))
  expect_false(file.exists(lock_of(dir)))
  unlink(c(dir, signals), recursive = TRUE)
})

test_that("[slow] an interrupted wait removes its ticket", {
  skip_on_cran()  # spawns R processes
  skip_if_not_installed("callr")
  dir <- tempfile("interrupted-")
  dir.create(dir)
  file.symlink("12 some-other-host\n1.000\n", lock_of(dir))
  libs <- .libPaths()
  waiter <- callr::r_bg(function(dir, libs) {
    .libPaths(libs)
    lock_model_dir <- utils::getFromNamespace("lock_model_dir", "cppestimators")
    tryCatch({
      lock_model_dir(dir, 600)
      "took it"
    }, interrupt = function(e) "interrupted")
  }, list(dir = dir, libs = libs))
  on.exit(waiter$kill(), add = TRUE)
  expect_true(wait_for(function() length(list.files(queue_of(dir))) > 0 || !waiter$is_alive()))
  expect_match(list.files(queue_of(dir)), sprintf("^[0-9]{20}-%d-", waiter$get_pid()))
  waiter$interrupt()
  waiter$wait(120000)
  expect_identical(waiter$get_result(), "interrupted")
  expect_false(dir.exists(queue_of(dir)))
  expect_identical(Sys.readlink(lock_of(dir)), "12 some-other-host\n1.000\n")  # another host's lock stays
  unlink(dir, recursive = TRUE)
})
