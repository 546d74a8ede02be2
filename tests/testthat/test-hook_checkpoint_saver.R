ckpt_steps <- function(dir) {
  f <- list.files(dir, pattern = "^model\\.ckpt-[0-9]+\\.ckpt$")
  sort(as.numeric(sub("^model\\.ckpt-([0-9]+)\\.ckpt$", "\\1", f)))
}

test_that("save_steps = 2 over 5 steps saves at creation, 2, 4 and at the end", {
  dir <- tempfile()
  events <- character()
  listener <- checkpoint_saver_listener(
    begin = function() events <<- c(events, "begin"),
    before_save = function(session, global_step) events <<- c(events, paste0("before:", global_step)),
    after_save = function(session, global_step) {
      events <<- c(events, paste0("after:", global_step))
      FALSE
    },
    end = function(session, global_step) events <<- c(events, paste0("end:", global_step)))
  quietly(train(x_regressor(), x_input(), steps = 5,
                hooks = list(hook_checkpoint_saver(dir, save_steps = 2, listeners = list(listener)))))
  expect_equal(ckpt_steps(dir), c(0, 2, 4, 5))
  expect_equal(events, c("begin", "before:0", "after:0", "before:2", "after:2", "before:4",
                         "after:4", "before:5", "after:5", "end:5"))
  idx <- readLines(file.path(dir, "checkpoint"))
  expect_equal(idx[1], 'model_checkpoint_path: "model.ckpt-5"')
  expect_equal(idx[-1], sprintf('all_model_checkpoint_paths: "model.ckpt-%d"', c(0, 2, 4, 5)))
})

test_that("no second save at the end when the last step was just saved", {
  dir <- tempfile()
  n <- 0
  listener <- checkpoint_saver_listener(after_save = function(session, global_step) {
    n <<- n + 1
    FALSE
  })
  quietly(train(x_regressor(), x_input(), steps = 4,
                hooks = list(hook_checkpoint_saver(dir, save_steps = 2, listeners = listener))))
  expect_equal(ckpt_steps(dir), c(0, 2, 4))
  expect_equal(n, 3)
})

test_that("an after_save returning TRUE stops training after that step", {
  dir <- tempfile()
  listener <- checkpoint_saver_listener(after_save = function(session, global_step) global_step >= 3)
  msgs <- messages_of(h <- train(x_regressor(), x_input(), steps = 10,
                                 hooks = list(hook_checkpoint_saver(dir, save_steps = 1, listeners = listener))))
  expect_equal(max(wide(h)$steps), 3)
  expect_true(any(grepl("A CheckpointSaverListener requested that training be stopped", msgs)))
})

test_that("a saver of model_dir replaces the default one; one of another directory runs beside it", {
  model <- tempfile()
  other <- tempfile()
  est <- x_regressor(model_dir = model)
  quietly(train(est, x_input(), steps = 2, hooks = list(hook_checkpoint_saver(other, save_steps = 1))))
  expect_equal(ckpt_steps(other), c(0, 1, 2))
  # model_dir keeps its own saver: a new train() on it resumes from step 2
  expect_equal(ckpt_steps(model), c(0, 2))
  again <- x_regressor(model_dir = model)
  h <- quietly(train(again, x_input(), steps = 1, hooks = list(hook_history_saver(1))))
  expect_equal(max(wide(h)$steps), 3)
  # a saver of model_dir itself (spelt with a trailing slash) is the only one there
  own <- tempfile()
  quietly(train(x_regressor(model_dir = own), x_input(), steps = 3,
                hooks = list(hook_checkpoint_saver(paste0(own, "/"), save_steps = 1,
                                                   checkpoint_basename = "mine.ckpt"))))
  expect_setequal(sub("-.*", "", list.files(own, pattern = "ckpt")), "mine.ckpt")
})

test_that("train(saving_listeners =) attaches to the default saver", {
  saved <- c()
  l <- checkpoint_saver_listener(after_save = function(session, global_step) {
    saved <<- c(saved, global_step)
    FALSE
  })
  quietly(train(x_regressor(model_dir = tempfile()), x_input(), steps = 2, saving_listeners = list(l)))
  expect_equal(saved, c(0, 2))
  cfg <- run_config(save_checkpoints_steps = NULL, save_checkpoints_secs = NULL)
  no_ckpt <- x_regressor(config = cfg)
  expect_error(train(no_ckpt, x_input(), steps = 1, saving_listeners = list(l)),
               "There should be a CheckpointSaverHook to use saving_listeners")
  expect_error(train(no_ckpt, x_input(), steps = 1, saving_listeners = list(1)),
               "saving_listeners must be a list of CheckpointSaverListener")
})

test_that("the default saver follows run_config() and keep_checkpoint_max", {
  dir <- tempfile()
  cfg <- run_config(save_checkpoints_steps = 1, keep_checkpoint_max = 3)
  est <- x_regressor(model_dir = dir, config = cfg)
  quietly(train(est, x_input(), steps = 6))
  expect_equal(ckpt_steps(dir), c(4, 5, 6))
  expect_equal(length(readLines(file.path(dir, "checkpoint"))), 4)
})

test_that("hook_checkpoint_saver() validates its arguments", {
  expect_error(hook_checkpoint_saver(tempfile()), "exactly one of `save_secs` and `save_steps` must be given")
  expect_error(hook_checkpoint_saver(tempfile(), save_secs = 1, save_steps = 1), "exactly one of")
  expect_error(hook_checkpoint_saver(tempfile(), save_steps = 0), "`save_steps` must be >= 1")
  expect_error(hook_checkpoint_saver(tempfile(), save_secs = 1.5), "`save_secs` must be a single whole number")
  expect_error(hook_checkpoint_saver(tempfile(), save_steps = 1, saver = 1, scaffold = 1),
               "You cannot provide both saver and scaffold.", fixed = TRUE)
  expect_error(hook_checkpoint_saver(tempfile(), save_steps = 1, saver = 1), "not supported")
  expect_error(hook_checkpoint_saver("", save_steps = 1), "`checkpoint_dir` must be a directory path")
  expect_error(hook_checkpoint_saver(tempfile(), save_steps = 1, listeners = list(2)),
               "saving_listeners must be a list of CheckpointSaverListener")
  expect_error(checkpoint_saver_listener(after_save = 1), "`after_save` must be a function or NULL")
})

test_that("the saver's log lines (snapshot)", {
  dir <- file.path(tempdir(), "snapshot-checkpoints")
  unlink(dir, recursive = TRUE)
  mask <- function(x) gsub(normalizePath(tempdir(), mustWork = FALSE), "<tmp>", x, fixed = TRUE)
  expect_snapshot(
    invisible(train(x_regressor(), x_input(), steps = 3,
                    hooks = list(hook_checkpoint_saver(dir, save_steps = 2)))),
    transform = mask)
})
