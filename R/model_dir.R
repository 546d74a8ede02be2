#' Model directory and checkpoints of an estimator
#'
#' `model_dir()` is the directory holding the estimator's checkpoints and
#' summaries. `latest_checkpoint()` is the path of the newest checkpoint file
#' listed by the directory's `checkpoint` index, or `NULL` when there is none.
#'
#' @param object An estimator, or (for `latest_checkpoint()`) a directory path.
#' @param ... Unused.
#' @return A path, or `NULL`.
#' @family estimators
#' @export
#' @examples
#' fcs <- feature_columns(column_numeric("drat"))
#' est <- linear_regressor(feature_columns = fcs, model_dir = tempfile())
#' input <- input_fn(mtcars, response = "mpg", features = "drat", batch_size = 8L)
#' train(est, input_fn = input, steps = 2)
#' model_dir(est)
#' basename(latest_checkpoint(est))
model_dir <- function(object, ...) {
  UseMethod("model_dir")
}

#' @rdname model_dir
#' @export
model_dir.tf_estimator <- function(object, ...) {
  object$spec$model_dir
}

#' @rdname model_dir
#' @export
latest_checkpoint <- function(object) {
  dir <- if (inherits(object, "tf_estimator")) model_dir(object) else object
  if (!is.character(dir) || length(dir) != 1L) {
    stop("`object` must be an estimator or a directory path.", call. = FALSE)
  }
  path <- cpp_latest_checkpoint(path.expand(dir))
  if (nzchar(path)) path else NULL
}

# Before a session: bring the engine state up to date with model_dir. A
# checkpoint this object did not write or read itself (another estimator
# object or process trained into the same directory) is restored.
# Never while this object's engine is inside a session (a hook reading the
# estimator must not rewind the training in progress).
sync_from_model_dir <- function(object, ptr) {
  st <- object$state
  if (isTRUE(st$busy)) return(invisible())
  path <- cpp_latest_checkpoint(object$spec$model_dir)
  if (!nzchar(path)) return(invisible())
  stamp <- checkpoint_stamp(path)
  if (identical(stamp, st$synced)) return(invisible())
  cpp_estimator_restore(ptr, path)
  st$synced <- stamp
  invisible()
}

# After a session that may have saved: remember the checkpoint it wrote.
note_synced <- function(object) {
  path <- cpp_latest_checkpoint(object$spec$model_dir)
  object$state$synced <- if (nzchar(path)) checkpoint_stamp(path) else NULL
}

checkpoint_stamp <- function(path) {
  info <- file.info(path, extra_cols = FALSE)
  paste(path, info$size, as.numeric(info$mtime))
}
