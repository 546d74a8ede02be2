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
      abort("this estimator is already training: train() cannot be called from one of its own hooks.")
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
      unlock <- lock_model_dir(dir, object$spec$config$lock_timeout_secs %||% 10)
      on.exit(unlock(), add = TRUE)
      # what another process trained while this one waited for the lock
      sync_from_model_dir(object, ptr)
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
      cpp_session_run(ses, engine_hook_specs(hooks), r_session, r_context, hostname()),
      error = function(e) signal_hook_error(e, ses, hooks)
    ),
    interrupt = function(cnd) {
      if (cpp_session_note_interrupt(ses)) invokeRestart("resume")
    }
  )
  if (mode == "train") keep_seen_data(object, data$seen)
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

# An error of the session: from an R hook, a condition of class
# cppestimators_hook_error naming the hook and phase, with the original
# condition as `parent`, the hook's position in `hooks` as `hook` (NA for
# train()'s own hooks) and the phase as `phase`; otherwise `e` itself.
signal_hook_error <- function(e, ses, hooks) {
  origin <- cpp_session_error_origin(ses)
  i <- origin$hook
  # an engine hook's error is its own message, unless it was found while the
  # hook read another hook's evaluation ("on_evaluation"): then it names the hook
  if (is.na(i) || !(isTRUE(hook_trait(hooks[[i]], "runs_r_code")) ||
                    identical(origin$phase, "on_evaluation"))) {
    e$call <- NULL
    abort(e)
  }
  position <- hooks[[i]]$position
  what <- if (is.null(position)) {
    sprintf("train()'s own %s()", hook_label(hooks[[i]]))
  } else {
    sprintf("hook %d (%s)", position, hook_label(hooks[[i]]))
  }
  msg <- sprintf("`%s` of %s failed: %s", origin$phase, what, conditionMessage(e))
  abort(msg, class = "cppestimators_hook_error", parent = e, hook = position %||% NA_integer_,
        phase = origin$phase)
}
