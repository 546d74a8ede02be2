#' Summary saver hook
#'
#' Writes training scalars to a TensorBoard event file
#' (`events.out.tfevents.<time>.<host>`): `loss` (the batch's summed loss),
#' `average_loss` (per example) and any scalar tensors named in `summary_op`
#' (the mean of a tensor with several values), and `learning_rate` when the
#' rate changes during training (a schedule from [learning_rate_schedules]
#' or [hook_reduce_lr_on_plateau()]; with two optimizers also
#' `linear/learning_rate` and `dnn/learning_rate`). It writes after the first step
#' and then every `save_steps` global steps (or `save_secs` seconds): with
#' `save_steps = 8` over 30 steps, at global steps 1, 9, 17 and 25.
#' `train()` adds one writing to `model_dir` every
#' `run_config()$save_summary_steps` steps.
#'
#' @param save_steps Write every this many global steps.
#' @param save_secs Write every this many seconds.
#' @param output_dir Directory for the event file; `NULL` for the estimator's
#'   `model_dir`.
#' @param summary_writer,scaffold TensorFlow objects; not supported (must be
#'   `NULL`).
#' @param summary_op `NULL`, or names of further scalar tensors to write (for
#'   example `"learning_rate"`).
#' @inherit hook_progress_bar return
#' @family hooks
#' @family summaries
#' @seealso [read_summaries()] to read event files back.
#' @export
#' @examples
#' dir <- tempfile()
#' fcs <- feature_columns(column_numeric("drat"))
#' input <- input_fn(mtcars, response = "mpg", features = "drat", batch_size = 4L)
#' est <- linear_regressor(feature_columns = fcs)
#' train(est, input_fn = input, steps = 8,
#'       hooks = list(hook_summary_saver(save_steps = 2, output_dir = dir)))
#' read_summaries(dir)
hook_summary_saver <- function(save_steps = NULL, save_secs = NULL, output_dir = NULL,
                               summary_writer = NULL, scaffold = NULL, summary_op = NULL) {
  if (!is.null(summary_writer) || !is.null(scaffold)) {
    abort("`summary_writer` and `scaffold` are TensorFlow objects and are not supported; use `output_dir`.")
  }
  if (is.null(save_steps) == is.null(save_secs)) {
    abort("exactly one of `save_steps` and `save_secs` must be given.")
  }
  save_steps <- check_whole(save_steps, "save_steps")
  save_secs <- check_seconds(save_secs, "save_secs")
  check_string(output_dir, "output_dir", null_ok = TRUE,
               message = "`output_dir` must be NULL or a directory path.")
  if (!is.null(summary_op)) {
    summary_op <- vapply(as.list(summary_op), function(t) {
      if (inherits(t, "cppestimators_tensor")) return(t$name)
      if (is.character(t) && length(t) == 1L && !is.na(t)) return(t)
      abort(paste0("`summary_op` must hold tensor names, not ", describe(t), "."))
    }, "")
  }
  new_hook("summary_saver", list(save_steps = save_steps, save_secs = save_secs,
                                 output_dir = if (!is.null(output_dir)) path.expand(output_dir),
                                 tensors = summary_op))
}

# In train(), summaries go to the estimator's model_dir unless output_dir says.
#' @noRd
hook_prepare.cppestimators_hook_summary_saver <- function(hook, run) {
  if (identical(run$mode, "train") && is.null(hook$output_dir)) {
    hook$output_dir <- run$object$spec$model_dir
  }
  hook
}
