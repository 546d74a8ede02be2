test_that("hook_progress_bar() prints the seed's final line once, 80 wide", {
  expect_length(printed(train(drat_regressor(), mtcars_input(), steps = 2)), 0)  # nothing on stdout
  out <- bar_lines(train(drat_regressor(), mtcars_input(), steps = 2, hooks = list(hook_progress_bar())))
  expect_length(out, 1)
  expect_match(out, "^Training 2/2 \\[=+\\] - ETA:  0s - loss: [0-9]+\\.[0-9]{2}$")
  expect_equal(nchar(out), 80)
})

test_that("the progress bar reports input that ran out before `steps`", {
  est <- drat_regressor()
  expect_message(out <- utils::capture.output(invisible(utils::capture.output(train(est, mtcars_input(), steps = 10))),
                                              type = "message"),
                 "Training completed after 4 steps but 10 steps was specified", fixed = TRUE)
  expect_match(out, "^Training 4/10 \\[=+\\.+\\] - ETA: ")
  # a double `steps` that ran fully gives no message (numbers are compared, not types)
  expect_silent(utils::capture.output(train(drat_regressor(), mtcars_input(), steps = 4)))
})

test_that("without steps the progress bar is a spinner with the step count", {
  out <- bar_lines(train(drat_regressor(), mtcars_input()))
  expect_match(out, "^\\[-\\] Training -- loss: [0-9]+\\.[0-9]{2}, step: 4$")
  est <- drat_regressor()
  quietly(train(est, mtcars_input(), steps = 1))
  ev_out <- bar_lines(evaluate(est, mtcars_input(), steps = 3))
  expect_match(ev_out[1], "^Evaluating 3/3 \\[=+\\] - ETA:  0s - loss: ")
})

test_that("hook_history_saver() records every n iterations plus the last one", {
  h <- quietly(train(drat_regressor(), mtcars_input(), steps = 4,
                     hooks = list(hook_history_saver(every_n_step = 2))))
  df <- wide(h)
  expect_equal(names(df), c("mean_losses", "total_losses", "steps"))
  expect_equal(df$steps, c(2, 4))
  expect_equal(df$total_losses, 8 * df$mean_losses, tolerance = 1e-6)
  h3 <- quietly(train(drat_regressor(), mtcars_input(), steps = 4, hooks = list(hook_history_saver(3))))
  expect_equal(wide(h3)$steps, c(3, 4))
  h10 <- quietly(train(drat_regressor(), mtcars_input(batch_size = 1L, num_epochs = NULL), steps = 25))
  expect_equal(wide(h10)$steps, c(10, 20, 25))
  h1 <- quietly(train(drat_regressor(), mtcars_input(), steps = 1))
  expect_equal(wide(h1)$steps, 1)
  expect_error(hook_history_saver(0), "`every_n_step` must be >= 1")
})

test_that("history losses equal the per-example losses the step computed", {
  pe <- list()
  hook <- session_run_hook(
    before_run = function(context) session_run_args(losses = context$session$graph$get_collection("losses")),
    after_run = function(context, values) pe[[length(pe) + 1]] <<- values$results$losses
  )
  h <- quietly(train(drat_regressor(), mtcars_input(), steps = 2, hooks = list(hook, hook_history_saver(1))))
  df <- wide(h)
  expect_length(pe[[1]], 3)
  expect_length(pe[[1]][[1]], 8)
  expect_equal(sum(pe[[1]][[1]]), pe[[1]][[3]], tolerance = 1e-4)
  expect_equal(df$mean_losses, vapply(pe, function(l) mean(l[[1]]), 0), tolerance = 1e-5)
  expect_equal(df$total_losses, vapply(pe, function(l) l[[2]], 0), tolerance = 1e-3)
})

test_that("train() adds one history saver and one progress bar unless given", {
  out <- bar_lines(train(drat_regressor(), mtcars_input(), steps = 2, hooks = list(hook_progress_bar())))
  expect_length(out, 1)
  h <- quietly(train(drat_regressor(), mtcars_input(batch_size = 1L), steps = 12))
  expect_equal(wide(h)$steps, c(10, 12))
})

test_that("custom hooks get every callback in order with the documented arguments", {
  calls <- character()
  args <- list()
  hook <- session_run_hook(
    begin = function() calls <<- c(calls, "begin"),
    after_create_session = function(session, coord) {
      args$session <<- session
      calls <<- c(calls, "after_create_session")
    },
    before_run = function(context) {
      calls <<- c(calls, "before_run")
      NULL
    },
    after_run = function(context, values) {
      args$values <<- values
      calls <<- c(calls, "after_run")
    },
    end = function(session) calls <<- c(calls, "end")
  )
  quietly(train(drat_regressor(), mtcars_input(), steps = 2, hooks = list(hook)))
  expect_equal(calls, c("begin", "after_create_session", "before_run", "after_run", "before_run",
                        "after_run", "end"))
  # classed (print(), inherits()), without the object bit that would make
  # every `$` on it an S3 dispatch
  expect_true(inherits(args$session, "cppestimators_session"))
  expect_output(print(args$session), "<session>")
  expect_null(args$values$results)
  expect_s3_class(hook, "EstimatorSessionRunHook")
  expect_error(session_run_hook(after_run = "x"), "`after_run` must be a function or NULL")
})

test_that("fetched values have the shape of the fetches; global_step is post-update", {
  got <- list()
  hook <- session_run_hook(
    before_run = function(context) {
      session_run_args(step = "global_step", both = list(loss = "loss", gs = "global_step:0"),
                       w = "linear/linear_model/drat/weights")
    },
    after_run = function(context, values) got[[length(got) + 1]] <<- values$results
  )
  quietly(train(drat_regressor(), mtcars_input(), steps = 3, hooks = list(hook)))
  expect_equal(vapply(got, function(r) r$step, 0), c(1, 2, 3))
  expect_named(got[[1]]$both, c("loss", "gs"))
  expect_equal(got[[3]]$both$gs, 3)
  expect_true(is.matrix(got[[1]]$w))
  expect_equal(dim(got[[1]]$w), c(1, 1))
  bad <- session_run_hook(before_run = function(context) session_run_args(x = "no_such_tensor"),
                          after_run = function(context, values) NULL)
  expect_error(quietly(train(drat_regressor(), mtcars_input(), steps = 1, hooks = list(bad))),
               "unknown tensor 'no_such_tensor'")
  expect_error(session_run_args(x = 1), "session_run_args\\(\\) takes tensor handles")
  no_after <- session_run_hook(before_run = function(context) session_run_args(x = list("loss", "nope")))
  expect_error(quietly(train(drat_regressor(), mtcars_input(), steps = 1, hooks = list(no_after))),
               "`before_run` of hook 1 \\(EstimatorSessionRunHook\\) failed: unknown tensor 'nope'")
})

test_that("context$session$run() evaluates tensors outside the step", {
  seen <- NULL
  hook <- session_run_hook(after_run = function(context, values) {
    seen <<- context$session$run(list(step = "global_step", loss = "loss"))
  })
  quietly(train(drat_regressor(), mtcars_input(), steps = 2, hooks = list(hook)))
  expect_equal(seen$step, 2)
  expect_true(is.numeric(seen$loss) && seen$loss > 0)
})

test_that("request_stop() in after_run stops after that step", {
  hook <- session_run_hook(after_run = function(context, values) {
    step <- context$session$run("global_step")
    if (step == 2) context$request_stop()
  })
  h <- quietly(train(drat_regressor(), mtcars_input(num_epochs = NULL), steps = 10,
                     hooks = list(hook, hook_history_saver(1))))
  expect_equal(wide(h)$steps, c(1, 2))
})

test_that("a stop requested in before_run lets the step finish for every hook", {
  calls <- character()
  stopper <- session_run_hook(before_run = function(context) {
    context$request_stop()
    NULL
  })
  watcher <- session_run_hook(after_run = function(context, values) {
    calls <<- c(calls, paste0("after_run stop_requested=", context$stop_requested))
  }, end = function(session) calls <<- c(calls, "end"))
  h <- quietly(train(drat_regressor(), mtcars_input(), steps = 4, hooks = list(stopper, watcher)))
  expect_equal(calls, c("after_run stop_requested=TRUE", "end"))
  expect_equal(max(wide(h)$steps), 1)
})

test_that("an R error in after_run reaches the caller naming the hook and phase", {
  ended <- FALSE
  ok_hook <- session_run_hook(end = function(session) ended <<- TRUE)
  failing <- session_run_hook(after_run = function(context, values) {
    if (context$session$run("global_step") == 2) stop("boom")
  })
  est <- drat_regressor()
  err <- tryCatch(quietly(train(est, mtcars_input(), steps = 4, hooks = list(ok_hook, failing))),
                  error = function(e) e)
  expect_identical(class(err), c("cppestimators_hook_error", "cppestimators_error", "error", "condition"))
  expect_equal(conditionMessage(err), "`after_run` of hook 2 (EstimatorSessionRunHook) failed: boom")
  expect_equal(conditionMessage(err$parent), "boom")
  expect_equal(err$hook, 2L)
  expect_equal(err$phase, "after_run")
  expect_false(ended)
  # the model keeps the last completed step and trains on afterwards
  expect_output(print(est), "global step: +2")
  h <- quietly(train(est, mtcars_input(), steps = 2))
  expect_equal(max(wide(h)$steps), 4)
})

test_that("errors in other phases name them too", {
  for (phase in c("begin", "after_create_session", "before_run", "end")) {
    f <- switch(phase,
      begin = function() stop("bad begin"),
      after_create_session = function(session, coord) stop("bad acs"),
      before_run = function(context) stop("bad before"),
      end = function(session) stop("bad end"))
    args <- stats::setNames(list(f), phase)
    hook <- do.call(session_run_hook, args)
    expect_error(quietly(train(drat_regressor(), mtcars_input(), steps = 1, hooks = list(hook))),
                 sprintf("`%s` of hook 1 (EstimatorSessionRunHook) failed", phase), fixed = TRUE)
  }
})

test_that("before_run must return NULL or session_run_args()", {
  hook <- session_run_hook(before_run = function(context) 42)
  expect_error(quietly(train(drat_regressor(), mtcars_input(), steps = 1, hooks = list(hook))),
               paste("`before_run` of hook 1 (EstimatorSessionRunHook) failed: `before_run` must return NULL",
                     "or session_run_args(), not an object of class 'numeric'"),
               fixed = TRUE)
})

test_that("end of input skips that step's after_run and still calls end()", {
  calls <- character()
  hook <- session_run_hook(
    before_run = function(context) {
      calls <<- c(calls, "b")
      NULL
    },
    after_run = function(context, values) calls <<- c(calls, "a"),
    end = function(session) calls <<- c(calls, "end"))
  quietly(train(drat_regressor(), mtcars_input(batch_size = 16L), hooks = list(hook)))
  expect_equal(calls, c("b", "a", "b", "a", "b", "end"))
})

test_that("built-in and R hooks run in list order", {
  seq <- character()
  mk <- function(tag) {
    session_run_hook(
      begin = function() seq <<- c(seq, paste0(tag, ":begin")),
      after_run = function(context, values) seq <<- c(seq, paste0(tag, ":after_run")),
      end = function(session) seq <<- c(seq, paste0(tag, ":end")))
  }
  quietly(train(drat_regressor(), mtcars_input(), steps = 2,
                hooks = list(mk("A"), hook_progress_bar(), mk("B"), hook_history_saver(1))))
  expect_equal(seq, c("A:begin", "B:begin", "A:after_run", "B:after_run", "A:after_run",
                      "B:after_run", "A:end", "B:end"))
})

test_that("hooks run inside evaluate() and predict() too", {
  n_eval <- 0
  n_pred <- 0
  ev_hook <- session_run_hook(after_run = function(context, values) n_eval <<- n_eval + 1)
  pr_hook <- session_run_hook(after_run = function(context, values) n_pred <<- n_pred + 1)
  est <- drat_regressor()
  quietly(train(est, mtcars_input(), steps = 1))
  quietly(evaluate(est, mtcars_input(), hooks = list(ev_hook)))
  predict(est, mtcars_input(), hooks = list(pr_hook))
  expect_equal(n_eval, 4)
  expect_equal(n_pred, 4)
})

test_that("the graph exposes the losses and global_step collections", {
  cols <- NULL
  hook <- session_run_hook(after_create_session = function(session, coord) {
    cols <<- list(losses = session$graph$get_collection("losses"),
                  gs = session$graph$get_collection("global_step"),
                  none = session$graph$get_collection("nothing"))
  })
  quietly(train(drat_regressor(), mtcars_input(), steps = 1, hooks = list(hook)))
  expect_length(cols$losses, 3)
  expect_s3_class(cols$losses[[1]], "cppestimators_tensor")
  expect_equal(cols$gs[[1]]$name, "global_step")
  expect_equal(cols$none, list())
  expect_output(print(cols$gs[[1]]), "<tensor 'global_step'>")
})

test_that("printed hooks and the progress bar line (snapshot)", {
  expect_snapshot({
    print(hook_history_saver(every_n_step = 2))
    print(hook_progress_bar())
    print(session_run_args(loss = "loss", step = "global_step"))
    invisible(train(x_regressor(), x_input(), steps = 3))
  }, transform = function(x) sub("ETA: +[0-9]+s", "ETA: <eta>", x))
})

test_that("hook_in_memory_evaluator() reads a data frame as evaluate() does", {
  df <- mtcars[c("drat", "cyl", "mpg")]
  est <- suppressMessages(linear_regressor(feature_columns = feature_columns_from_data(df, response = mpg)))
  train_input <- mtcars_input(num_epochs = NULL)
  h <- quietly(train(est, train_input, steps = 4,
                     hooks = list(hook_in_memory_evaluator(est, df, every_n_iter = 2))))
  expect_equal(h$evaluations$steps, c(0, 2, 4))
  # the last evaluation is evaluate()'s on the same data
  expect_equal(utils::tail(h$evaluations$eval_loss, 1), quietly(evaluate(est, df))$loss, tolerance = 1e-6)
  # an estimator that learnt its response from train(response = ): the same
  est2 <- suppressMessages(linear_regressor(feature_columns = feature_columns(column_numeric("drat", "cyl"))))
  h2 <- quietly(train(est2, df, response = "mpg", num_epochs = 2,
                      hooks = list(hook_in_memory_evaluator(est2, df, every_n_iter = 2))))
  # (two epochs of 32 rows are one batch of 128)
  expect_equal(h2$evaluations$steps, c(0, 1))
  # `response` for the data frame, and its errors
  h3 <- quietly(train(est2, train_input, steps = 2,
                      hooks = list(hook_in_memory_evaluator(est2, df, response = "mpg", batch_size = 8))))
  expect_equal(h3$evaluations$steps, c(1, 3))
  expect_equal(utils::tail(h3$evaluations$eval_loss, 1), quietly(evaluate(est2, df, batch_size = 8))$loss,
               tolerance = 1e-6)
  est3 <- suppressMessages(linear_regressor(feature_columns = feature_columns(column_numeric("drat", "cyl"))))
  expect_error(quietly(train(est3, train_input, steps = 2, hooks = list(hook_in_memory_evaluator(est3, df)))),
               regexp = "hook_in_memory_evaluator\\(\\) with a data frame needs `response`")
  expect_error(hook_in_memory_evaluator(est3, train_input, response = "mpg"),
               regexp = "`response` is for a data frame", class = "cppestimators_unknown_argument")
})
