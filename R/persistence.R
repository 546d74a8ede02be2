# The estimator object carries its weights so that saveRDS()/readRDS() work
# without model_dir: object$state$weights is a raw vector that stands for
# the engine's state and is encoded (as checkpoint bytes) only when it is
# serialized; after readRDS() it holds those bytes, and the engine object is
# rebuilt from them on first use.

remember_weights <- function(object) {
  object$state$weights <- cpp_estimator_weights(object$state$ptr)
  invisible()
}

restore_weights <- function(object, ptr) {
  if (!is.null(object$state$weights)) {
    cpp_estimator_decode(ptr, object$state$weights, "the estimator's saved weights")
  }
}

#' Export an estimator to a directory, and load it back
#'
#' `export_savedmodel()` writes a self-contained directory under
#' `export_dir_base` (named by the export time in seconds, as TensorFlow did,
#' or one more than the newest export there when that is not later; written
#' in a temporary directory renamed when complete): the estimator's
#' definition (`estimator.rds`: feature columns, head, optimizer and
#' settings) and its variables (`variables.ckpt`, in the format of
#' [checkpoints]). `load_estimator()` reads such a directory back into an
#' estimator that predicts the same values and can train on.
#'
#' Trained estimators also survive `saveRDS()`/`readRDS()`: the object keeps
#' a copy of its weights.
#'
#' @param object A trained estimator.
#' @param export_dir_base Directory in which to create the export.
#' @param ... tfestimators' arguments `serving_input_receiver_fn`,
#'   `assets_extra`, `as_text`, `checkpoint_path`, `overwrite` and
#'   `versioned` are accepted for compatibility and ignored, with a warning
#'   (the export needs none of them); any other argument is an error.
#' @return `export_savedmodel()`: the export directory, invisibly.
#'   `load_estimator()`: an estimator.
#' @family estimator methods
#' @export
#' @examples
#' fcs <- feature_columns(column_numeric("drat"))
#' input <- input_fn(mtcars, response = "mpg", features = "drat", batch_size = 8L)
#' est <- linear_regressor(feature_columns = fcs)
#' train(est, input_fn = input, steps = 2)
#' dir <- export_savedmodel(est, tempfile())
#' est2 <- load_estimator(dir)
#' all.equal(predict(est, input), predict(est2, input))
export_savedmodel <- function(object, export_dir_base, ...) {
  UseMethod("export_savedmodel")
}

#' @rdname export_savedmodel
#' @export
export_savedmodel.tf_estimator <- function(object, export_dir_base, ...) {
  check_dots(dots_names(...), "export_savedmodel", "export_dir_base", ignored = tf_export_args)
  check_string(export_dir_base, "export_dir_base", message = "`export_dir_base` must be a directory path.")
  ptr <- estimator_ptr(object)
  sync_from_model_dir(object, ptr)
  invisible(write_export(object, ptr, export_dir_base))
}

#' @rdname export_savedmodel
#' @param export_dir A directory written by `export_savedmodel()`.
#' @param model_dir Model directory of the loaded estimator; `NULL` for a new
#'   temporary one.
#' @export
load_estimator <- function(export_dir, model_dir = NULL) {
  files <- file.path(export_dir, c("estimator.rds", "variables.ckpt"))
  if (!all(file.exists(files))) {
    abort(sprintf("'%s' is not an export of export_savedmodel(): it needs estimator.rds and variables.ckpt.",
                  export_dir))
  }
  saved <- readRDS(files[1])
  spec <- saved$spec
  spec$model_dir <- resolve_model_dir(model_dir, NULL)
  spec$config <- spec$config$replace(model_dir = spec$model_dir)
  object <- structure(list(spec = spec, args = saved$args, state = new.env(parent = emptyenv())),
                      class = saved$class)
  # what training saw, for the checks of new data (absent from older exports)
  for (field in c("seen", "response", "response_levels")) object$state[[field]] <- saved[[field]]
  ptr <- estimator_ptr(object)
  with_error_class(cpp_estimator_restore(ptr, normalizePath(files[2])))
  # never into a directory that holds another model (its checkpoints would
  # be rotated away and its index repointed)
  if (nzchar(cpp_latest_checkpoint(spec$model_dir)) && !file.exists(file.path(spec$model_dir, model_file))) {
    abort(sprintf(paste0("model_dir '%s' already holds checkpoints of a model: load_estimator() needs a new or ",
                         "empty directory, or one holding this same model."), spec$model_dir))
  }
  check_model_dir(object, write = TRUE)
  with_error_class(cpp_estimator_save(ptr, spec$model_dir, spec$config$keep_checkpoint_max %||% 0))
  note_synced(object)
  object
}

# The arguments of tfestimators' export_savedmodel() that an export here
# does without.
tf_export_args <- c("serving_input_receiver_fn", "assets_extra", "as_text", "checkpoint_path", "overwrite",
                    "versioned", "strip_default_attrs")
