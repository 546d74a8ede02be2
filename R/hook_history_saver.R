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
