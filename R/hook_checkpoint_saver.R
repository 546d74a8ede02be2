#' Checkpoint saver hook
#'
#' Saves the estimator's state (weights, optimizer slots, global step) into
#' `checkpoint_dir` when the session is created, every `save_steps` global
#' steps or `save_secs` seconds, and at the end unless a checkpoint was just
#' written at that step. Files are `<checkpoint_basename>-<step>.ckpt` with a
#' `checkpoint` index file; see [checkpoints] for the format. A checkpoint
#' saver of the estimator's `model_dir` given to `train()` replaces the
#' default one (of [run_config()]); a saver of another directory runs beside
#' it, so that the next `train()` on `model_dir` resumes from the last step.
#'
#' @param checkpoint_dir Directory for the checkpoints.
#' @param save_secs Save every this many seconds.
#' @param save_steps Save every this many global steps.
#' @param saver,scaffold TensorFlow objects; not supported (must be `NULL`).
#' @param checkpoint_basename File name prefix.
#' @param listeners A list of [checkpoint_saver_listener()]s, told before and
#'   after each save.
#' @inherit hook_progress_bar return
#' @family hooks
#' @export
#' @examples
#' dir <- tempfile()
#' fcs <- feature_columns(column_numeric("drat"))
#' input <- input_fn(mtcars, response = "mpg", features = "drat", batch_size = 8L)
#' est <- linear_regressor(feature_columns = fcs)
#' train(est, input_fn = input, steps = 4,
#'       hooks = list(hook_checkpoint_saver(dir, save_steps = 2)))
#' list.files(dir)
hook_checkpoint_saver <- function(checkpoint_dir, save_secs = NULL, save_steps = NULL,
                                  saver = NULL, checkpoint_basename = "model.ckpt",
                                  scaffold = NULL, listeners = NULL) {
  if (!is.null(saver) && !is.null(scaffold)) {
    abort("You cannot provide both saver and scaffold.")
  }
  if (!is.null(saver) || !is.null(scaffold)) {
    abort("`saver` and `scaffold` are TensorFlow objects and are not supported; use NULL.")
  }
  dir_must <- "a directory path (a non-empty string)"
  if (missing(checkpoint_dir)) abort(sprintf("`checkpoint_dir` must be %s.", dir_must))
  check_string(checkpoint_dir, "checkpoint_dir", must = dir_must)
  if (is.null(save_secs) == is.null(save_steps)) {
    abort("exactly one of `save_secs` and `save_steps` must be given.")
  }
  save_steps <- check_whole(save_steps, "save_steps")
  save_secs <- check_whole(save_secs, "save_secs")
  prefix_must <- "a file name prefix such as \"model.ckpt\""
  check_string(checkpoint_basename, "checkpoint_basename", must = prefix_must)
  if (grepl("[/\\\\]", checkpoint_basename)) {
    abort(sprintf("`checkpoint_basename` must be %s, without slashes, not \"%s\".", prefix_must,
                  checkpoint_basename))
  }
  new_checkpoint_saver(list(checkpoint_dir = path.expand(checkpoint_dir), save_secs = save_secs,
                            save_steps = save_steps, checkpoint_basename = checkpoint_basename,
                            listeners = normalize_listeners(listeners, "listeners"), verbose = TRUE))
}

# The hook of validated fields (train()'s own saver of model_dir is one too).
new_checkpoint_saver <- function(fields) {
  new_hook("checkpoint_saver", fields, runs_r_code = TRUE, roles = "saves_checkpoints")
}

# Whether two paths name one directory (either may not exist yet).
same_dir <- function(a, b) {
  if (is.null(a) || is.null(b)) return(FALSE)
  norm <- function(p) sub("(.)/+$", "\\1", normalizePath(path.expand(p), mustWork = FALSE))
  identical(norm(a), norm(b))
}

# Checkpoints kept: the estimator's run_config(keep_checkpoint_max =).
#' @noRd
hook_prepare.cppestimators_hook_checkpoint_saver <- function(hook, run) {
  if (is.null(hook$keep_checkpoint_max)) {
    hook$keep_checkpoint_max <- run$object$spec$config$keep_checkpoint_max %||% 0
  }
  hook
}

#' Checkpoint saver listener
#'
#' R callbacks run around each checkpoint save: `begin()` when the session
#' starts, `before_save(session, global_step)`, `after_save(session,
#' global_step)` (returning `TRUE` requests a stop), and `end(session,
#' global_step)` at the end. For `hook_checkpoint_saver(listeners = )` and
#' `train(saving_listeners = )`.
#'
#' @param begin,before_save,after_save,end `NULL` or functions.
#' @return A listener of class `cppestimators_checkpoint_listener`.
#' @family hooks
#' @export
#' @examples
#' saved <- numeric()
#' listener <- checkpoint_saver_listener(
#'   after_save = function(session, global_step) {
#'     saved <<- c(saved, global_step)
#'     FALSE
#'   })
checkpoint_saver_listener <- function(begin = NULL, before_save = NULL, after_save = NULL,
                                      end = NULL) {
  structure(list(begin = check_function(begin, "begin"),
                 before_save = check_function(before_save, "before_save"),
                 after_save = check_function(after_save, "after_save"),
                 end = check_function(end, "end")),
            class = "cppestimators_checkpoint_listener")
}

normalize_listeners <- function(listeners, arg) {
  if (is.null(listeners)) return(list())
  if (inherits(listeners, "cppestimators_checkpoint_listener")) listeners <- list(listeners)
  if (!is.list(listeners)) abort(sprintf("`%s` must be a list of checkpoint_saver_listener()s.", arg))
  lapply(listeners, function(l) {
    if (!inherits(l, "cppestimators_checkpoint_listener")) {
      abort(sprintf("saving_listeners must be a list of CheckpointSaverListener, given: %s (in `%s`).",
                    describe(l), arg))
    }
    c(list(kind = "checkpoint_listener"), unclass(l))
  })
}
