#' Stop-at-step hook
#'
#' Requests a stop after the step that brings the global step to `last_step`,
#' or to the global step the session started at plus `num_steps`.
#' `train(steps = n)` and `train(max_steps = n)` append one.
#'
#' @param num_steps Steps to run, counted from the starting global step: a
#'   whole number from 1 to 2^53.
#' @param last_step Global step after which to stop: a whole number from 0 to
#'   2^53.
#' @inherit hook_progress_bar return
#' @family hooks
#' @export
#' @examples
#' fcs <- feature_columns(column_numeric("drat"))
#' input <- input_fn(mtcars, response = "mpg", features = "drat", batch_size = 8L,
#'                   num_epochs = NULL)
#' est <- linear_regressor(feature_columns = fcs)
#' train(est, input_fn = input, hooks = list(hook_stop_at_step(last_step = 3)))
hook_stop_at_step <- function(num_steps = NULL, last_step = NULL) {
  if (is.null(num_steps) && is.null(last_step)) {
    abort("One of num_steps or last_step must be specified.")
  }
  if (!is.null(num_steps) && !is.null(last_step)) {
    abort("Only one of num_steps or last_step can be specified.")
  }
  # global steps count in 64-bit integers; 2^53 keeps every count exact in R's doubles
  new_stop_at_step(check_whole(num_steps, "num_steps", min = 1, max = 2^53),
                   check_whole(last_step, "last_step", min = 0, max = 2^53))
}

# The hook of validated bounds (train()'s `steps` and `max_steps` make one).
new_stop_at_step <- function(num_steps, last_step) {
  new_hook("stop_at_step", list(num_steps = num_steps, last_step = last_step), roles = "stops_training")
}

#' @export
hook_steps_left.cppestimators_hook_stop_at_step <- function(hook, step) {
  hook$num_steps %||% max(0, hook$last_step - step)
}
