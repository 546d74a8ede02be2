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
#'   functions of the arguments described above, which they are given in that
#'   order. Each signature is checked when the hook is made: a function with
#'   too few arguments (and no `...`) or with more arguments without defaults
#'   is an error naming the callback and its expected signature.
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
  new_hook("session_run_hook", list(
    begin = check_callback(begin, "begin", character()),
    after_create_session = check_callback(after_create_session, "after_create_session",
                                          c("session", "coord")),
    before_run = check_callback(before_run, "before_run", "context"),
    after_run = check_callback(after_run, "after_run", c("context", "values")),
    end = check_callback(end, "end", "session")),
    # its callbacks may call context$request_stop()
    class = "EstimatorSessionRunHook", runs_r_code = TRUE, roles = "stops_training")
}

# A callback the loop calls with `args` (positionally): NULL, or a function
# taking that many arguments (`...` takes any; arguments with defaults may
# be left over).
check_callback <- function(f, arg, args) {
  check_function(f, arg)
  if (is.null(f)) return(NULL)
  params <- formals(if (is.primitive(f)) args(f) else f)
  if (is.null(params) && is.primitive(f)) return(f)
  has_dots <- "..." %in% names(params)
  fixed <- params[names(params) != "..."]
  required <- vapply(fixed, function(p) identical(p, quote(expr = )), TRUE)
  n <- length(args)
  if ((has_dots || length(fixed) >= n) && sum(required) <= n) return(f)
  takes <- if (length(params)) paste(names(params), collapse = ", ") else ""
  abort(sprintf("`%s` must be a function(%s); it takes (%s).", arg, paste(args, collapse = ", "), takes),
        class = "cppestimators_hook_signature_error")
}

#' Arguments a hook adds to a session run
#'
#' Returned from a hook's `before_run()` to fetch tensors with the step. Each
#' argument is a tensor handle (from `context$session$graph$get_collection()`),
#' a tensor name such as `"loss"` or `"global_step"`, or a (nested) list of
#' them, at most 100 levels deep; `values$results` in `after_run()` has the
#' same shape, with values.
#'
#' Tensor names: `loss` (the batch's summed training loss), `per_example_loss`,
#' `average_loss`, `global_step`, `learning_rate`, `logits`, `predictions`,
#' `labels`, and every variable by name (for example
#' `linear/linear_model/<column>/weights`). `learning_rate` is the rate of
#' the step just run (see [learning_rate_schedules]); wide and deep models
#' also have `linear/learning_rate` and `dnn/learning_rate`, each part's.
#'
#' @param ... Named tensors to fetch.
#' @param feed_dict,options Accepted for compatibility; must be `NULL`.
#' @return An object of class `cppestimators_session_run_args`.
#' @family hooks
#' @export
#' @examples
#' session_run_args(loss = "loss", step = "global_step")
session_run_args <- function(..., feed_dict = NULL, options = NULL) {
  # hooks make one every step: the engine reads the arguments from this
  # call's frame, and gives its last answer again for the same fetches; NULL
  # sends the call the long way, which checks and says what is wrong
  args <- .Call(`_cppestimators_cpp_session_run_args_frame`, environment())
  if (is.null(args)) session_run_args_checked(..., feed_dict = feed_dict, options = options) else args
}

session_run_args_checked <- function(..., feed_dict = NULL, options = NULL) {
  if (!is.null(feed_dict)) abort("`feed_dict` is not supported: there are no placeholders to feed.")
  args <- .Call(`_cppestimators_cpp_session_run_args`, list(...), options)
  if (is.null(args)) check_fetches(list(...))
  args
}

# One call into C++ walks the fetch structure.
check_fetches <- function(x) {
  bad <- cpp_check_fetches(x)
  if (!is.null(bad)) {
    if (bad$too_deep) {
      abort("session_run_args() takes lists of tensors nested at most 100 levels deep; these are nested deeper.")
    }
    abort(paste0("session_run_args() takes tensor handles, tensor names or lists of them, not ",
                 describe(bad$value), "."))
  }
  invisible()
}

#' @export
print.cppestimators_session_run_args <- function(x, ...) {
  cat("<session_run_args>\n")
  utils::str(x$fetches, give.attr = FALSE)
  invisible(x)
}
