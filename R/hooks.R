#' Progress bar hook
#'
#' Shows training or evaluation progress:
#' `Training 2/2 [=====] - ETA:  0s - loss: 3136.10` (the loss is the batch's
#' summed loss, rounded to 2 decimals). In an interactive session the bar is
#' redrawn in place at most about 10 times a second; elsewhere (Rscript,
#' knitr, tests) only its final line is printed, once. Without a known number
#' of steps it shows a spinner and the step count. When fewer steps ran than
#' were asked for, a message says so.
#'
#' The bar goes to stderr, as the progress and cli packages draw theirs:
#' stdout belongs to the user's code, so `capture.output(train(...))` holds
#' only what the user's own hooks print. `options(cppestimators.progress =
#' FALSE)` silences every bar (the message about fewer steps stays).
#'
#' `train()` and `evaluate()` add one by default.
#'
#' @return A hook, for the `hooks` argument of [train()], [evaluate()] or
#'   [predict()].
#' @family hooks
#' @export
#' @examples
#' fcs <- feature_columns(column_numeric("drat"))
#' input <- input_fn(mtcars, response = "mpg", features = "drat", batch_size = 8L)
#' est <- linear_regressor(feature_columns = fcs)
#' train(est, input_fn = input, steps = 2, hooks = list(hook_progress_bar()))
hook_progress_bar <- function() {
  new_hook("progress_bar", list())
}

#' History saver hook
#'
#' Records, every `every_n_step` local iterations, the mean and the sum of the
#' per-example losses of the batch and the global step. The last iteration of
#' a call is also recorded when it was not, so a history is never empty.
#' `train()` adds `hook_history_saver(every_n_step = 10)` by default and
#' returns the history it recorded.
#'
#' @param every_n_step Record every this many iterations (a positive whole number).
#' @inherit hook_progress_bar return
#' @family hooks
#' @family training history
#' @export
#' @examples
#' fcs <- feature_columns(column_numeric("drat"))
#' input <- input_fn(mtcars, response = "mpg", features = "drat", batch_size = 8L)
#' est <- linear_regressor(feature_columns = fcs)
#' history <- train(est, input_fn = input, steps = 4,
#'                  hooks = list(hook_history_saver(every_n_step = 2)))
#' history
hook_history_saver <- function(every_n_step = 10) {
  every_n_step <- check_whole(every_n_step, "every_n_step", null_ok = FALSE)
  new_hook("history_saver", list(every_n_step = every_n_step))
}

new_hook <- function(type, fields) {
  structure(c(list(type = type), fields),
            class = c(paste0("cppestimators_hook_", type), "cppestimators_hook"))
}

#' @export
print.cppestimators_hook <- function(x, ...) {
  fields <- x[setdiff(names(x), c("type", "position"))]
  fields <- fields[vapply(fields, function(v) is.function(v) ||
                            (is.atomic(v) && !is.null(v) && length(v) <= 3L), TRUE)]
  shown <- vapply(fields, function(v) if (is.function(v)) "<function>" else
    paste(format(v), collapse = ", "), "")
  cat(sprintf("<hook_%s%s>\n", x$type,
              if (length(shown)) paste0(": ", paste(names(shown), shown, sep = " = ",
                                                    collapse = ", ")) else ""))
  invisible(x)
}

#' Create a custom session run hook
#'
#' A hook whose callbacks are R functions, called by the training loop at each
#' point of the session: `begin()` once before the session is used;
#' `after_create_session(session, coord)` once the model is ready;
#' `before_run(context)` before every step, returning `NULL` or
#' [session_run_args()] naming tensors to fetch; `after_run(context, values)`
#' after every completed step, with the fetched values in `values$results`;
#' `end(session)` when the session closes normally. Omitted callbacks cost
#' nothing.
#'
#' The run `context` gives `context$session` (with `$graph$get_collection()`
#' and `$run()`), `context$request_stop()`, `context$stop_requested` and
#' `context$original_args`. A stop request lets the current step finish.
#'
#' An R error in a callback stops training and reaches the caller as an error
#' naming the hook's position and class and the phase (for example
#' `after_run` of hook 2), with the original condition as its `parent`. The
#' model keeps its last completed step.
#'
#' @param begin,after_create_session,before_run,after_run,end `NULL` or
#'   functions of the arguments described above.
#' @return A hook of class `EstimatorSessionRunHook`.
#' @family hooks
#' @export
#' @examples
#' steps_seen <- 0
#' counter <- session_run_hook(
#'   after_run = function(context, values) steps_seen <<- steps_seen + 1
#' )
#' fcs <- feature_columns(column_numeric("drat"))
#' input <- input_fn(mtcars, response = "mpg", features = "drat", batch_size = 8L)
#' est <- linear_regressor(feature_columns = fcs)
#' train(est, input_fn = input, steps = 3, hooks = list(counter))
#' steps_seen
session_run_hook <- function(begin = NULL, after_create_session = NULL, before_run = NULL,
                             after_run = NULL, end = NULL) {
  structure(
    list(type = "r_closure",
         begin = check_function(begin, "begin"),
         after_create_session = check_function(after_create_session, "after_create_session"),
         before_run = check_function(before_run, "before_run"),
         after_run = check_function(after_run, "after_run"),
         end = check_function(end, "end")),
    class = c("EstimatorSessionRunHook", "cppestimators_hook")
  )
}

#' Arguments a hook adds to a session run
#'
#' Returned from a hook's `before_run()` to fetch tensors with the step. Each
#' argument is a tensor handle (from `context$session$graph$get_collection()`),
#' a tensor name such as `"loss"` or `"global_step"`, or a (nested) list of
#' them; `values$results` in `after_run()` has the same shape, with values.
#'
#' Tensor names: `loss` (the batch's summed training loss), `per_example_loss`,
#' `average_loss`, `global_step`, `learning_rate`, `logits`, `predictions`,
#' `labels`, and every variable by name (for example
#' `linear/linear_model/<column>/weights`).
#'
#' @param ... Named tensors to fetch.
#' @param feed_dict,options Accepted for compatibility; must be `NULL`.
#' @return An object of class `cppestimators_session_run_args`.
#' @family hooks
#' @export
#' @examples
#' session_run_args(loss = "loss", step = "global_step")
session_run_args <- function(..., feed_dict = NULL, options = NULL) {
  if (!is.null(feed_dict)) stop("`feed_dict` is not supported: there are no placeholders to feed.",
                                call. = FALSE)
  fetches <- list(...)
  check_fetches(fetches)
  args <- list(fetches = fetches, feed_dict = NULL, options = options)
  class(args) <- "cppestimators_session_run_args"
  args
}

# One call into C++ walks the fetch structure (hooks build one every step).
check_fetches <- function(x) {
  bad <- cpp_check_fetches(x)
  if (!is.null(bad)) {
    stop("session_run_args() takes tensor handles, tensor names or lists of them, not ",
         describe(bad), ".", call. = FALSE)
  }
  invisible()
}

#' @export
print.cppestimators_session_run_args <- function(x, ...) {
  cat("<session_run_args>\n")
  utils::str(x$fetches, give.attr = FALSE)
  invisible(x)
}

# Hooks given by the user: a hook, or a list of hooks.
normalize_hooks <- function(hooks) {
  if (is.null(hooks)) return(list())
  if (inherits(hooks, "cppestimators_hook")) hooks <- list(hooks)
  if (!is.list(hooks)) {
    stop("`hooks` must be a list of hooks, not ", describe(hooks), ".", call. = FALSE)
  }
  for (i in seq_along(hooks)) {
    if (!inherits(hooks[[i]], "cppestimators_hook")) {
      stop(sprintf("Hooks must be a SessionRunHook, given: %s (element %d of `hooks`).",
                   describe(hooks[[i]]), i), call. = FALSE)
    }
  }
  hooks <- unname(hooks)
  for (i in seq_along(hooks)) hooks[[i]]$position <- i
  hooks
}

# options(cppestimators.progress): FALSE silences progress bars.
progress_enabled <- function() {
  p <- getOption("cppestimators.progress", TRUE)
  if (!(isTRUE(p) || isFALSE(p))) {
    stop("options(cppestimators.progress =) must be TRUE or FALSE, not ", describe(p), ".", call. = FALSE)
  }
  p
}

# Appends the history saver and the progress bar unless one of that kind is
# present, then fills in per-call settings.
with_default_hooks <- function(hooks, label, total) {
  types <- vapply(hooks, function(h) h$type, "")
  if (!"history_saver" %in% types) hooks <- c(hooks, list(hook_history_saver(10)))
  types <- vapply(hooks, function(h) h$type, "")
  if (!"progress_bar" %in% types) hooks <- c(hooks, list(hook_progress_bar()))
  draw <- progress_enabled()
  lapply(hooks, function(h) {
    if (identical(h$type, "progress_bar")) {
      h$draw <- draw
      h$label <- label
      if (!"total" %in% names(h)) h["total"] <- list(total)
    }
    h
  })
}
