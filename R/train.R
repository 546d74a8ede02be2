#' Train an estimator
#'
#' Runs training steps until `steps` more steps ran, the global step reaches
#' `max_steps`, a hook requests a stop, or the input is exhausted. Hooks are
#' called in list order; `train()` appends [hook_history_saver()] and
#' [hook_progress_bar()] unless one of that kind was given.
#'
#' Boosted trees ([boosted_trees_estimators]) grow one layer per step (of
#' `n_batches_per_layer` batches) and stop by themselves once `n_trees`
#' trees are finished. When their training ends because the input ran out
#' with fewer trees finished, `train()` warns (class
#' `cppestimators_unfinished_trees`) with the count and how to grow the
#' rest: `train()` again continues where the call stopped. A training that
#' `steps`, `max_steps` or a hook (early stopping, [hook_stop_at_step()], a
#' [session_run_hook()] requesting a stop) ended does not warn.
#'
#' Data that cannot train a model are refused with a classed error: data
#' without rows (`cppestimators_empty_data`, also for [evaluate()];
#' [predict()] of no rows gives no rows), a classifier's first training data
#' in memory whose response holds a single class
#' (`cppestimators_single_class`; later calls and streaming datasets are
#' not checked), and the Matrix package's (sparse) matrices, which are not
#' read yet (`cppestimators_sparse_matrix`; convert small data with
#' `as.data.frame(as.matrix(x))`).
#'
#' @param object An estimator.
#' @param input_fn An input function, from [input_fn()]; or a data frame,
#'   read as `input_fn()` would read it over the features the estimator's
#'   columns use (see Data frames).
#' @param steps Number of steps to train (incremental: counted from the
#'   current global step), or `NULL`.
#' @param hooks A list of hooks.
#' @param max_steps Global step at which to stop (absolute), or `NULL`.
#' @param saving_listeners A list of [checkpoint_saver_listener()]s, attached
#'   to the checkpoint saver.
#' @param cluster Train across processes (default: the run configuration's
#'   `cluster`, see [run_config()]): a socket cluster
#'   ([parallel::makePSOCKcluster()], `parallelly::makeClusterPSOCK()`),
#'   whose workers train on disjoint shards of the data while this session,
#'   the chief, runs the hooks and writes `model_dir`; or `"mpi"` under
#'   `mpirun` (Rmpi), rank 0 being the chief. See
#'   `vignette("training-across-machines")`.
#' @param ... With a data frame: `response` (the response column, selected as
#'   in [input_fn()]; default: the one [feature_columns_from_data()] or an
#'   earlier `train()` recorded) and [input_fn()]'s `batch_size`, `shuffle`
#'   and `num_epochs` (or its other name, `epochs`). Any other argument, or these with an input function
#'   (set them in [input_fn()] then), is an error naming the nearest valid
#'   argument.
#' @section Data frames:
#' A data frame given as `input_fn` is the same as
#' `input_fn(data, features = <the features the columns read>, response =
#' response, ...)`, with the same results. The first training records each
#' feature's type and a factor's levels; later calls on new data check them:
#' a missing column, a feature of another type, or a categorical value known
#' neither to training nor to the column's vocabulary is an error naming the
#' feature (a column with `num_oov_buckets` takes such values into its
#' out-of-vocabulary buckets instead).
#'
#' A boosted trees estimator given a data frame without `steps`, `max_steps`,
#' `num_epochs` or `epochs` reads it again and again until its trees are finished
#' (as `num_epochs = NULL` would), rather than the one pass of
#' `num_epochs = 1` that other estimators default to.
#' @return Invisibly, the training history (class `tf_estimator_history`);
#'   print it for the table of `mean_losses`, `total_losses` and `steps`.
#' @family estimator methods
#' @export
#' @examples
#' fcs <- feature_columns(column_numeric("drat"))
#' input <- input_fn(mtcars, response = "mpg", features = "drat", batch_size = 8L)
#' est <- linear_regressor(feature_columns = fcs)
#' history <- train(est, input_fn = input, steps = 4)
#' history
#' # a data frame, with the columns read off it
#' est <- linear_classifier(feature_columns = feature_columns_from_data(iris, response = Species))
#' train(est, iris, num_epochs = 20)
#' evaluate(est, iris)
train <- function(object, ...) {
  UseMethod("train")
}

#' @rdname train
#' @export
train.tf_estimator <- function(object, input_fn, steps = NULL, hooks = NULL, max_steps = NULL,
                               saving_listeners = NULL, cluster = NULL, ...) {
  if (!is.null(steps) && !is.null(max_steps)) {
    abort("Can not provide both steps and max_steps.")
  }
  steps <- check_steps(steps, "steps")
  max_steps <- check_steps(max_steps, "max_steps")
  listeners <- normalize_listeners(saving_listeners, "saving_listeners")
  hooks <- normalize_hooks(hooks)
  cluster <- check_cluster(cluster %||% object$spec$config$cluster)
  check_not_sparse(input_fn, "input_fn", "train")
  if (is.data.frame(input_fn)) {
    # boosted trees repeat a data frame until their trees are grown (they
    # stop by themselves) unless the call bounds the training
    given <- dots_names(...)
    if (is_hist_trees(object)) {
      # the histogram growths: one batch of every row in order, a tree per
      # step, repeated until the trees are grown unless the call bounds it
      # (one pass is one tree: steps and max_steps bound a repeated input)
      input_fn <- hist_trees_input(object, input_fn, any(c("num_epochs", "epochs") %in% given), ...)
    } else if (is.null(steps) && is.null(max_steps) && !any(c("num_epochs", "epochs") %in% given) &&
        model_trait(estimator_model(object$spec), "ends_by_itself")) {
      input_fn <- data_input(object, input_fn, "train", "train", ..., num_epochs = NULL)
    } else {
      input_fn <- data_input(object, input_fn, "train", "train", ...)
    }
  } else {
    check_method_dots(dots_names(...), "train", train.tf_estimator)
  }
  note_sparse_features(object, input_fn)
  complete_data_columns(object, input_fn)
  world <- if (identical(cluster, "mpi")) mpi_world()
  if (!is.null(world) && world$size == 1L) world <- NULL  # one process: train alone
  if (!is.null(world) && world$rank > 0L) return(mpi_worker_train(object, input_fn, world))
  # under MPI the other ranks wait for the chief's decision to train
  told <- is.null(world)
  on.exit(if (!told) mpi_go(world, 0L), add = TRUE)
  distributed <- if (!is.null(world)) {
    function(data, seed, kernel, hooks) mpi_training(world, data, seed, wants_losses(hooks))
  } else if (is_socket_cluster(cluster)) {
    function(data, seed, kernel, hooks) socket_training(cluster, object, data, seed, kernel, hooks)
  }
  ptr <- estimator_ptr(object)
  # the call's one look at model_dir: under its lock, the engine brought up
  # to date with the newest checkpoint (whoever wrote it)
  training <- open_training(object, ptr, hooks)
  on.exit(training$close(), add = TRUE)
  if (!is.null(max_steps) && cpp_estimator_global_step(ptr) >= max_steps) {
    message(sprintf("Skipping training since max_steps has already saved (global step %s >= max_steps %s).",
                    format(cpp_estimator_global_step(ptr)), format(max_steps)))
    return(invisible(new_history(NULL)))
  }
  hooks <- cached_training_hooks(object, training$hooks, steps, max_steps, listeners, ptr)
  if (!told) {
    mpi_go(world, if (wants_losses(hooks)) 2L else 1L)
    told <- TRUE
  }
  run <- training$run(input_fn, hooks, distributed)
  training$close()
  model_training_ended(estimator_model(object$spec), object, ptr, run)
  exports <- finish_hooks(hooks, run)
  note_training(object, input_fn, run)
  invisible(new_history(run$history, model_dir = object$spec$model_dir,
                        evaluations = evaluations_table(run$evaluations), exports = exports))
}

# training_hooks(), kept in the estimator's call cache (memo(): not saved
# with it) for the next call with the same
# inputs: the same given hooks (identical(): a hook changed in any field is
# another hook), steps, max_steps, no saving listeners, run_config and the
# options the hooks read. Given hooks whose preparation reads more than
# that (trait `per_call`, R/hook.R) are prepared afresh every call.
cached_training_hooks <- function(object, hooks, steps, max_steps, listeners, ptr = estimator_ptr(object)) {
  fresh <- length(listeners) > 0L || any(vapply(hooks, function(h) isTRUE(hook_trait(h, "per_call")), TRUE))
  if (fresh) return(training_hooks(object, hooks, steps, max_steps, listeners, ptr))
  key <- list(hooks, steps, max_steps, object$spec$config, object$spec$model_dir,
              getOption("cppestimators.verbose", FALSE), getOption("cppestimators.progress", TRUE))
  memo(object, "training_hooks", key, function(key) training_hooks(object, hooks, steps, max_steps, listeners, ptr))
}

# The hooks of a train() call, in TensorFlow's order: checkpoint saver, step
# counter, the user's hooks (then the history saver and progress bar unless
# given, then the stop-at-step hook), the NaN check, the loss logger; each
# prepared for this call (hook_prepare()).
training_hooks <- function(object, hooks, steps, max_steps, listeners, ptr = estimator_ptr(object)) {
  cfg <- object$spec$config
  verbose <- isTRUE(getOption("cppestimators.verbose", FALSE))
  given <- hooks
  first <- list()
  # a saver of another directory runs beside model_dir's own: resuming from
  # model_dir needs model_dir's checkpoints
  savers <- given[hooks_with_role(given, "saves_checkpoints")]
  if (!any(vapply(savers, function(h) same_dir(h$checkpoint_dir, object$spec$model_dir), TRUE)) &&
      (!is.null(cfg$save_checkpoints_steps) || !is.null(cfg$save_checkpoints_secs))) {
    first <- c(first, list(new_checkpoint_saver(list(
      checkpoint_dir = object$spec$model_dir, save_secs = cfg$save_checkpoints_secs,
      save_steps = cfg$save_checkpoints_steps, checkpoint_basename = "model.ckpt",
      listeners = list(), verbose = verbose,
      # parsnip's fits keep no checkpoint of their initial variables (R/parsnip_fit.R)
      save_at_start = !isTRUE(object$spec$no_start_checkpoint)))))
  }
  if (!is.null(cfg$log_step_count_steps)) {
    first <- c(first, list(new_hook("step_counter", list(
      every_n_steps = cfg$log_step_count_steps, every_n_secs = NULL, verbose = verbose,
      output_dir = object$spec$model_dir))))
  }
  if (!is.null(cfg$save_summary_steps) && cfg$save_summary_steps > 0) {
    first <- c(first, list(new_hook("summary_saver", list(
      save_steps = cfg$save_summary_steps, save_secs = NULL, output_dir = object$spec$model_dir,
      tensors = NULL))))
  }
  hooks <- with_defaults(c(first, hooks), list(hook_history_saver(10), hook_progress_bar()))
  if (length(listeners)) {
    saver <- hooks_with_role(hooks, "saves_checkpoints")
    if (length(saver) == 0L) {
      abort(paste("There should be a CheckpointSaverHook to use saving_listeners. Please set one of the",
                  "RunConfig.save_checkpoints_steps or RunConfig.save_checkpoints_secs."))
    }
    hooks[[saver[1]]]$listeners <- c(hooks[[saver[1]]]$listeners, listeners)
  }
  if (!is.null(steps) || !is.null(max_steps)) {
    hooks <- c(hooks, list(new_stop_at_step(steps, max_steps)))
  }
  if (!length(hooks_with_role(given, "checks_nan"))) hooks <- c(hooks, list(hook_nan_tensor()))
  if (verbose && !is.null(cfg$log_step_count_steps)) {
    hooks <- c(hooks, list(new_hook("logging_tensor", list(
      tags = c("loss", "step"), names = c("loss", "global_step"),
      every_n_iter = cfg$log_step_count_steps, every_n_secs = NULL, at_end = FALSE,
      formatter = NULL), runs_r_code = TRUE)))
  }
  prepare_hooks(hooks, object, "train", "Training", steps, ptr = ptr)
}

check_steps <- function(x, arg) {
  if (is.null(x)) return(NULL)
  # TensorFlow's message for a count <= 0; check_whole()'s for the rest
  if (is.numeric(x) && is_single(x) && x <= 0) abort(sprintf("Must specify %s > 0, given: %s", arg, format(x)))
  # steps count in 64-bit integers; 2^53 keeps every count exact in R's doubles
  check_whole(x, arg, max = 2^53)
}

# The arguments of a data frame given as `input_fn` (see data_input()).
data_frame_args <- c("response", "batch_size", "shuffle", "num_epochs", "epochs")

# The `...` of train(), evaluate() or predict() with an input function: the
# data frame arguments belong to input_fn() then, and any other is unknown.
check_method_dots <- function(dots, fn, method) {
  early <- dots[dots %in% data_frame_args]
  if (length(early)) {
    abort(sprintf("%s(): `%s` is for a data frame given as `input_fn`; with an input function, give it to input_fn().",
                  fn, early[1]), class = "cppestimators_unknown_argument")
  }
  check_dots(dots, fn, c(setdiff(names(formals(method)), c("object", "...")), data_frame_args))
}

# TensorFlow's error for evaluate() and predict() on an estimator that never
# trained: global step 0 and no checkpoint in model_dir (an estimator read
# back by readRDS() or load_estimator() holds its trained weights).
check_model_trained <- function(object, ptr) {
  sync_from_model_dir(object, ptr)
  if (cpp_estimator_global_step(ptr) > 0) return(invisible())
  dir <- object$spec$model_dir
  if (!is.null(dir) && nzchar(cpp_latest_checkpoint(dir))) return(invisible())
  abort(sprintf(paste0("Could not find trained model in model_dir: %s. Train the estimator with train() first ",
                       "(or give `checkpoint_path`)."), dir %||% "<none>"),
        class = "cppestimators_untrained")
}

# train()'s input_fn() of a data frame for the histogram growths: a batch
# of every row in order unless `...` says otherwise, repeated (num_epochs =
# NULL) unless the call gives its passes (`bounded`).
hist_trees_input <- function(object, data, bounded, ..., batch_size = max(1L, nrow(data)),
                             shuffle = FALSE) {
  if (bounded) {
    return(data_input(object, data, "train", "train", ..., batch_size = batch_size, shuffle = shuffle))
  }
  data_input(object, data, "train", "train", ..., batch_size = batch_size, shuffle = shuffle, num_epochs = NULL)
}
