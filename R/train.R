#' Train an estimator
#'
#' Runs training steps until `steps` more steps ran, the global step reaches
#' `max_steps`, a hook requests a stop, or the input is exhausted. Hooks are
#' called in list order; `train()` appends [hook_history_saver()] and
#' [hook_progress_bar()] unless one of that kind was given.
#'
#' @param object An estimator.
#' @param input_fn An input function, from [input_fn()].
#' @param steps Number of steps to train (incremental: counted from the
#'   current global step), or `NULL`.
#' @param hooks A list of hooks.
#' @param max_steps Global step at which to stop (absolute), or `NULL`.
#' @param saving_listeners A list of [checkpoint_saver_listener()]s, attached
#'   to the checkpoint saver.
#' @param ... Unused.
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
train <- function(object, ...) {
  UseMethod("train")
}

#' @rdname train
#' @export
train.tf_estimator <- function(object, input_fn, steps = NULL, hooks = NULL, max_steps = NULL,
                               saving_listeners = NULL, ...) {
  if (!is.null(steps) && !is.null(max_steps)) {
    stop("Can not provide both steps and max_steps.", call. = FALSE)
  }
  steps <- check_steps(steps, "steps")
  max_steps <- check_steps(max_steps, "max_steps")
  listeners <- normalize_listeners(saving_listeners, "saving_listeners")
  hooks <- normalize_hooks(hooks)
  ptr <- estimator_ptr(object)
  sync_from_model_dir(object, ptr)
  if (!is.null(max_steps) && cpp_estimator_global_step(ptr) >= max_steps) {
    message(sprintf("Skipping training since max_steps has already saved (global step %s >= max_steps %s).",
                    format(cpp_estimator_global_step(ptr)), format(max_steps)))
    return(invisible(new_history(NULL)))
  }
  hooks <- training_hooks(object, hooks, steps, max_steps, listeners)
  run <- run_session(object, input_fn, "train", hooks)
  invisible(new_history(run$history, model_dir = object$spec$model_dir,
                        evaluations = evaluations_table(run$evaluations, hooks)))
}

# The hooks of a train() call, in TensorFlow's order: checkpoint saver, step
# counter, the user's hooks (then the history saver and progress bar unless
# given, then the stop-at-step hook), the NaN check, the loss logger.
training_hooks <- function(object, hooks, steps, max_steps, listeners) {
  cfg <- object$spec$config
  verbose <- isTRUE(getOption("cppestimators.verbose", FALSE))
  types <- vapply(hooks, function(h) h$type, "")
  keep <- cfg$keep_checkpoint_max %||% 0
  hooks <- lapply(hooks, function(h) {
    if (identical(h$type, "checkpoint_saver")) h$keep_checkpoint_max <- keep
    h
  })
  first <- list()
  if (!"checkpoint_saver" %in% types &&
      (!is.null(cfg$save_checkpoints_steps) || !is.null(cfg$save_checkpoints_secs))) {
    first <- c(first, list(new_hook("checkpoint_saver", list(
      checkpoint_dir = object$spec$model_dir, save_secs = cfg$save_checkpoints_secs,
      save_steps = cfg$save_checkpoints_steps, checkpoint_basename = "model.ckpt",
      keep_checkpoint_max = keep, listeners = list(), verbose = verbose))))
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
  hooks <- with_default_hooks(c(first, hooks), "Training", steps)
  if (length(listeners)) {
    saver <- which(vapply(hooks, function(h) identical(h$type, "checkpoint_saver"), TRUE))
    if (length(saver) == 0L) {
      stop("There should be a CheckpointSaverHook to use saving_listeners. Please set one of the RunConfig.save_checkpoints_steps or RunConfig.save_checkpoints_secs.",
           call. = FALSE)
    }
    hooks[[saver[1]]]$listeners <- c(hooks[[saver[1]]]$listeners, listeners)
  }
  if (!is.null(steps) || !is.null(max_steps)) {
    hooks <- c(hooks, list(new_hook("stop_at_step", list(num_steps = steps, last_step = max_steps))))
  }
  if (!"nan_tensor" %in% types) hooks <- c(hooks, list(hook_nan_tensor()))
  if (verbose && !is.null(cfg$log_step_count_steps)) {
    hooks <- c(hooks, list(new_hook("logging_tensor", list(
      tags = c("loss", "step"), names = c("loss", "global_step"),
      every_n_iter = cfg$log_step_count_steps, every_n_secs = NULL, at_end = FALSE,
      formatter = NULL))))
  }
  hooks <- wire_evaluation_hooks(object, hooks)
  lapply(hooks, function(h) {
    if (identical(h$type, "global_step_waiter")) h$model_dir <- object$spec$model_dir
    if (identical(h$type, "summary_saver") && is.null(h$output_dir)) {
      h$output_dir <- object$spec$model_dir
    }
    h
  })
}

# Hooks for evaluate() and predict(): training-only hooks are refused; the
# others get the estimator's directories.
session_hooks <- function(object, hooks, where) {
  hooks <- normalize_hooks(hooks)
  for (h in hooks) {
    if (h$type %in% c("in_memory_evaluator", "early_stopping")) {
      stop(sprintf("%s evaluates during training and cannot be used with %s; pass it to train().",
                   sub("^cppestimators_", "", class(h)[1]), where), call. = FALSE)
    }
  }
  lapply(hooks, function(h) {
    if (identical(h$type, "global_step_waiter")) h$model_dir <- object$spec$model_dir
    if (identical(h$type, "checkpoint_saver") && is.null(h$keep_checkpoint_max)) {
      h$keep_checkpoint_max <- object$spec$config$keep_checkpoint_max %||% 0
    }
    h
  })
}

check_steps <- function(x, arg) {
  if (is.null(x)) return(NULL)
  if (is.numeric(x) && length(x) == 1L && !is.na(x) && x <= 0) {
    stop(sprintf("Must specify %s > 0, given: %s", arg, format(x)), call. = FALSE)
  }
  # steps count in 64-bit integers; 2^53 keeps every count exact in R's doubles
  check_whole(x, arg, max = 2^53)
}

#' Evaluate an estimator
#'
#' Computes the head's metrics over the input (or its first `steps` batches)
#' with the estimator's current weights. Regressors report `average_loss`,
#' `label/mean`, `loss` and `prediction/mean`; binary classifiers add
#' `accuracy`, `accuracy_baseline`, `auc`, `auc_precision_recall`,
#' `precision` and `recall`; multi-class classifiers `accuracy`. `loss` is the
#' mean over batches of the batch's summed loss, `average_loss` the mean
#' per-example loss. `global_step` is appended. The metrics are also written
#' as TensorBoard scalars at that global step (see [read_summaries()]) and
#' logged with [message()].
#'
#' Over the whole input (`steps = NULL`) the rows are read in order whatever
#' the input's `shuffle`: every row is read once either way, so the order
#' cannot change the metrics beyond float rounding, and reading in order is
#' several times faster. With `steps`, the input's `shuffle` decides which
#' rows the first batches hold.
#'
#' @inheritParams train
#' @param steps Number of batches to evaluate, or `NULL` for the whole input.
#' @param checkpoint_path `NULL` for the estimator's current state, or the
#'   path of a checkpoint file (or its prefix, such as `<model_dir>/model.ckpt-100`)
#'   to use instead, leaving the estimator unchanged.
#' @param name `NULL`, or a name for this evaluation: its summaries go to
#'   `model_dir/eval_<name>` instead of `model_dir/eval`.
#' @param simplify `TRUE` for a one-row data frame, `FALSE` for a named list.
#' @return A one-row data frame of metrics (or a named list).
#' @family estimator methods
#' @export
#' @examples
#' fcs <- feature_columns(column_numeric("drat"))
#' input <- input_fn(mtcars, response = "mpg", features = "drat", batch_size = 8L)
#' est <- linear_regressor(feature_columns = fcs)
#' train(est, input_fn = input, steps = 4)
#' evaluate(est, input_fn = input)
evaluate <- function(object, ...) {
  UseMethod("evaluate")
}

#' @rdname evaluate
#' @export
evaluate.tf_estimator <- function(object, input_fn, steps = NULL, checkpoint_path = NULL,
                                  name = NULL, hooks = NULL, simplify = TRUE, ...) {
  steps <- check_steps(steps, "steps")
  eval_dir(object, name)
  hooks <- with_default_hooks(session_hooks(object, hooks, "evaluate()"), "Evaluating", steps)
  if (!is.null(steps)) hooks <- c(hooks, list(new_hook("stop_after_steps", list(steps = steps))))
  run <- run_session(object, input_fn, "eval", hooks, checkpoint_path = checkpoint_path,
                     in_order = is.null(steps))
  if (run$steps == 0) {
    stop("evaluate(): the input produced no batches (is the data empty?).", call. = FALSE)
  }
  metrics <- as.list(run$metrics)
  metrics$global_step <- run$global_step
  write_eval_summaries(object, metrics, name)
  if (!isTRUE(simplify)) return(metrics)
  as.data.frame(metrics, check.names = FALSE, stringsAsFactors = FALSE)
}

#' Predict with an estimator
#'
#' Runs the model over the input (in order, without shuffling) and returns one
#' row per example. Scalar keys (`predictions` of a one-target regressor,
#' `logits` and `logistic` of a binary classifier, `class_ids`, `classes`)
#' are plain columns; vector keys (`probabilities`, multi-class `logits`,
#' multi-target `predictions`) are list columns.
#'
#' @inheritParams train
#' @param object An estimator.
#' @param checkpoint_path `NULL` for the estimator's current state, or the
#'   path of a checkpoint file (or its prefix, such as `<model_dir>/model.ckpt-100`)
#'   to use instead, leaving the estimator unchanged.
#' @param predict_keys Which predictions to return; keys the estimator's head
#'   does not produce are skipped.
#' @param as_iterable,yield_single_examples Accepted for compatibility; ignored.
#' @param simplify `TRUE` for a data frame, `FALSE` for a list with one
#'   element per example.
#' @return A data frame with one row per example (or a list).
#' @family estimator methods
#' @export
#' @examples
#' fcs <- feature_columns(column_numeric("drat"))
#' input <- input_fn(mtcars, response = "mpg", features = "drat", batch_size = 8L)
#' est <- linear_regressor(feature_columns = fcs)
#' train(est, input_fn = input, steps = 4)
#' head(predict(est, input_fn = input))
predict.tf_estimator <- function(object, input_fn, checkpoint_path = NULL,
                                 predict_keys = c("predictions", "classes", "class_ids",
                                                  "logistic", "logits", "probabilities"),
                                 hooks = NULL, as_iterable = FALSE, simplify = TRUE,
                                 yield_single_examples = TRUE, ...) {
  all_keys <- eval(formals(sys.function())$predict_keys)
  predict_keys <- match.arg(predict_keys, all_keys, several.ok = TRUE)
  ptr <- estimator_ptr(object)
  head_keys <- cpp_estimator_prediction_keys(ptr)
  keys <- head_keys[head_keys %in% predict_keys]
  if (length(keys) == 0L) {
    stop(sprintf("Expected to run at least one output from %s; this estimator produces %s.",
                 paste(predict_keys, collapse = ", "), paste(head_keys, collapse = ", ")),
         call. = FALSE)
  }
  run <- run_session(object, input_fn, "infer", session_hooks(object, hooks, "predict()"),
                     predict_keys = keys,
                     checkpoint_path = checkpoint_path)
  out <- lapply(names(run$predictions), function(k) {
    m <- run$predictions[[k]]
    if (k == "classes") return(class_labels(object, m))
    if (k == "class_ids") return(as.integer(m))
    if (!is.matrix(m)) return(m)
    lapply(seq_len(nrow(m)), function(i) m[i, ])
  })
  names(out) <- names(run$predictions)
  if (!isTRUE(simplify)) {
    n <- length(out[[1]])
    return(lapply(seq_len(n), function(i) lapply(out, function(col) col[[i]])))
  }
  df <- data.frame(row.names = seq_along(out[[1]]))
  for (k in names(out)) df[[k]] <- out[[k]]
  df
}

class_labels <- function(object, ids) {
  vocab <- object$spec$label_vocabulary
  if (is.null(vocab)) as.character(as.integer(ids)) else vocab[ids + 1]
}

# One session of the estimator over the input, with hooks. R errors raised by
# R closure hooks come back naming the hook and phase.
# `ptr`: run on this engine as it is (evaluation during training), without
# looking at model_dir.
run_session <- function(...) with_error_class(run_session_impl(...))

run_session_impl <- function(object, input_fn, mode, hooks, predict_keys = NULL,
                             checkpoint_path = NULL, ptr = NULL, in_order = FALSE) {
  own <- FALSE
  if (!is.null(ptr)) {
    # the caller's engine, as it is
  } else if (is.null(checkpoint_path)) {
    ptr <- estimator_ptr(object)
    sync_from_model_dir(object, ptr)
    own <- TRUE
  } else {
    ptr <- engine_for_checkpoint(object, checkpoint_path)
  }
  if (own && mode == "train") {
    if (isTRUE(object$state$busy)) {
      stop("this estimator is already training: train() cannot be called from one of its own hooks.",
           call. = FALSE)
    }
    dir <- object$spec$model_dir
    if (!is.null(dir)) {
      # a hook_global_step_waiter() waits for another process's training
      # before the lock is taken, then starts from what it trained
      waited <- wait_for_global_step(hooks, ptr, dir)
      if (!identical(waited, hooks)) {
        hooks <- waited
        sync_from_model_dir(object, ptr)
      }
      unlock <- lock_model_dir(dir)
      on.exit(unlock(), add = TRUE)
      remove_stale_temporaries(dir)
      check_model_dir(object, write = TRUE)
    }
    object$state$busy <- TRUE
    on.exit(object$state$busy <- FALSE, add = TRUE)
  }
  if (mode == "train") {
    on.exit(note_synced(object), add = TRUE)
  }
  data <- resolve_input(input_fn, object, mode, in_order = in_order)
  seed <- session_seed(object, cpp_estimator_global_step(ptr), mode)
  kernel <- engine_kernel()
  ses <- cpp_session_new(ptr, data$features, data$labels, mode, as.integer(data$batch_size),
                         data$num_epochs, isTRUE(data$shuffle), seed,
                         feature_block(object, ptr, data), engine_threads(), kernel)
  on.exit(cpp_session_close(ses), add = TRUE)
  r_session <- new_r_session(ses, mode)
  r_context <- new_run_context(ses, r_session)
  # An interrupt while R hook code runs is noted and the hook resumed; the
  # loop then stops at the step boundary, calls every end() and re-signals
  # it. A second interrupt is not held back.
  res <- withCallingHandlers(
    tryCatch(
      cpp_session_run(ses, hooks, r_session, r_context, hostname()),
      error = function(e) signal_hook_error(e, ses, hooks)
    ),
    interrupt = function(cnd) {
      if (cpp_session_note_interrupt(ses)) invokeRestart("resume")
    }
  )
  if (mode == "eval") res$metrics <- cpp_session_metrics(ses)
  if (mode == "infer") res$predictions <- cpp_session_predictions(ses, predict_keys)
  res
}

# With run_config(tf_random_seed =), the shuffling of a session depends only
# on the seed, the global step it starts at and the mode; without one, on
# R's random number generator (so set.seed() makes runs reproducible).
session_seed <- function(object, global_step, mode) {
  seed <- object$spec$config$tf_random_seed
  if (is.null(seed)) return(floor(stats::runif(1) * 2^31))
  mode_id <- match(mode, c("train", "eval", "infer"))
  (abs(seed) %% 2147483647) * 1000003 + (global_step %% 2^20) * 4 + mode_id
}

signal_hook_error <- function(e, ses, hooks) {
  origin <- cpp_session_error_origin(ses)
  i <- origin$hook
  runs_r_code <- c("r_closure", "in_memory_evaluator", "checkpoint_saver", "logging_tensor")
  if (is.na(i) || !hooks[[i]]$type %in% runs_r_code) {
    e$call <- NULL
    stop(e)
  }
  position <- hooks[[i]]$position
  what <- if (is.null(position)) {
    sprintf("train()'s own %s()", sub("^cppestimators_", "", class(hooks[[i]])[1]))
  } else {
    sprintf("hook %d (%s)", position, sub("^cppestimators_", "", class(hooks[[i]])[1]))
  }
  msg <- sprintf("`%s` of %s failed: %s", origin$phase, what, conditionMessage(e))
  stop(structure(
    class = c("cppestimators_hook_error", "error", "condition"),
    list(message = msg, call = NULL, parent = e, hook = position %||% NA_integer_,
         phase = origin$phase)
  ))
}
