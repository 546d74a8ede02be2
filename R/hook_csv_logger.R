#' Log training to a CSV file
#'
#' Writes one row per logged step to the CSV file `path`: `step` (the global
#' step), `mean_losses` and `total_losses` (the batch's losses, as the
#' training history records them: see [hook_history_saver()]), then an
#' `eval_<metric>` column for each metric of the evaluations made during
#' the same `train()` call ([hook_in_memory_evaluator()], named evaluators
#' after the first as `eval_<name>_<metric>`; [train_and_evaluate()]'s
#' evaluations as `eval_<metric>`). The columns are known when training
#' starts: the evaluators' metrics are those of the estimator's head.
#'
#' Steps are logged at local iterations where `iteration %% every_n_step ==
#' 0` and at the last one; a step where an evaluation happened has a row
#' too, with its losses `NA` when the step was not logged (such as the
#' evaluation before the first step). Evaluation columns of a step without
#' an evaluation are `NA`. Each row is written once every hook has run for
#' its step and flushed, so the file is complete up to the last finished
#' step whenever training stops, even on an error.
#'
#' With `append = TRUE` (the default) a file that exists keeps its rows and
#' the new rows follow (as when training resumes), without a second header;
#' its header must be that of this training, else training stops with an
#' error (never mixing columns). `append = FALSE` overwrites the file.
#'
#' @param path Path of the CSV file; its directory must exist.
#' @param every_n_step Log every this many iterations (a positive whole number).
#' @param append Append to an existing file (`TRUE`) or overwrite it.
#' @inherit hook_progress_bar return
#' @family hooks
#' @export
#' @examples
#' fcs <- feature_columns(column_numeric("drat"))
#' input <- input_fn(mtcars, response = "mpg", features = "drat", batch_size = 8L,
#'                   num_epochs = NULL)
#' est <- linear_regressor(feature_columns = fcs)
#' path <- tempfile(fileext = ".csv")
#' evaluator <- hook_in_memory_evaluator(est, input_fn(mtcars, response = "mpg", features = "drat"),
#'                                       every_n_iter = 5)
#' train(est, input, steps = 10, hooks = list(hook_csv_logger(path, every_n_step = 5), evaluator))
#' read.csv(path, check.names = FALSE)
hook_csv_logger <- function(path, every_n_step = 1, append = TRUE) {
  if (missing(path)) abort("`path` is required: the CSV file to write.")
  check_string(path, "path", must = "the path of a file")
  path <- path.expand(path)
  if (!dir.exists(dirname(path))) {
    abort(sprintf("hook_csv_logger(): the directory of `path` does not exist: '%s'.", dirname(path)),
          class = "cppestimators_file_error")
  }
  if (dir.exists(path)) abort(sprintf("hook_csv_logger(): `path` is a directory: '%s'.", path),
                              class = "cppestimators_file_error")
  every_n_step <- check_whole(every_n_step, "every_n_step", null_ok = FALSE)
  check_flag(append, "append")
  new_hook("csv_logger", list(path = normalizePath(path, mustWork = FALSE), every_n_step = every_n_step,
                              append = append),
           training_only = TRUE, roles = c("training_logger", "reads_listener_evaluations"))
}
