#' Steps-per-second monitor
#'
#' Every `every_n_steps` global steps (or `every_n_secs` seconds) logs
#' `global_step/sec: <rate>` through [message()]. The first trigger only
#' starts the clock, so with `every_n_steps = 10` the rate is logged at
#' global steps 11, 21, ... Passing only `every_n_secs` works (TensorFlow
#' required `every_n_steps = NULL` as well).
#'
#' @param every_n_steps Log every this many global steps.
#' @param every_n_secs Log every this many seconds.
#' @param output_dir,summary_writer Where to write the rate as a summary;
#'   accepted for compatibility (summaries are written by `train()`'s own
#'   step counter into `model_dir`).
#' @inherit hook_progress_bar return
#' @family hooks
#' @export
#' @examples
#' hook_step_counter(every_n_secs = 5)
hook_step_counter <- function(every_n_steps = 100, every_n_secs = NULL, output_dir = NULL,
                              summary_writer = NULL) {
  if (missing(every_n_steps) && !is.null(every_n_secs)) every_n_steps <- NULL
  if (is.null(every_n_steps) == is.null(every_n_secs)) {
    abort("exactly one of every_n_steps and every_n_secs should be provided.")
  }
  every_n_steps <- check_whole(every_n_steps, "every_n_steps")
  every_n_secs <- check_seconds(every_n_secs, "every_n_secs")
  new_hook("step_counter", list(every_n_steps = every_n_steps, every_n_secs = every_n_secs,
                                output_dir = output_dir, verbose = TRUE))
}
