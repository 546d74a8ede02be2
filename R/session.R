# Sessions: one run of the engine's loop over an input (run_session()), the
# hold of a train() call on model_dir (open_training()), and what a session
# reads of the input (resolve_input()).

# One session of the estimator over the input, with hooks. R errors raised by
# R closure hooks come back naming the hook and phase.
# `ptr`: run on this engine as it is, without looking at model_dir: the
# engine of train(), which open_training() brought up to date, or of an
# evaluation during training.
run_session <- function(...) with_error_class(run_session_impl(...))

# `distributed`: for training across processes (R/distributed.R), a
# function of the resolved data and seed giving this process's part: its
# data, collective, observer flag, seed and finish()/fail().
run_session_impl <- function(object, input_fn, mode, hooks, predict_keys = NULL,
                             checkpoint_path = NULL, ptr = NULL, in_order = FALSE, distributed = NULL) {
  if (!is.null(ptr)) {
    # the caller's engine, as it is
  } else if (is.null(checkpoint_path)) {
    ptr <- estimator_ptr(object)
    sync_from_model_dir(object, ptr)
  } else {
    ptr <- engine_for_checkpoint(object, checkpoint_path)
  }
  data <- resolve_input(input_fn, object, mode, in_order = in_order)
  if (mode != "infer" && !isTRUE(data$stream)) {
    check_has_rows(NROW(data$labels), if (mode == "train") "train" else "evaluate")
  }
  if (mode == "train") {
    check_training_ends(object, data, hooks)
    check_first_classes(object, data, ptr)
  }
  seed <- session_seed(object, cpp_estimator_global_step(ptr), mode)
  kernel <- engine_kernel()
  part <- NULL
  if (!is.null(distributed)) {
    part <- distributed(data, seed, kernel, hooks)
    data <- part$data
    seed <- part$seed %||% seed
  }
  ses <- tryCatch(
    if (isTRUE(data$stream)) {
      stream_session(object, ptr, data$input, mode, seed, kernel, part$collective, isTRUE(part$observer),
                     !isFALSE(part$share_losses))
    } else {
      cpp_session_new(ptr, data$features, data$labels, data$weights,
                      object$spec$weight_column$name %||% "", mode, as.integer(data$batch_size),
                      data$num_epochs, isTRUE(data$shuffle), seed,
                      if (is.null(part)) feature_block(object, ptr, data, rows_to_read(data, hooks, ptr, mode))
                      else part_block(ptr, data),
                      engine_threads(), kernel,
                      part$collective, isTRUE(part$observer), !isFALSE(part$share_losses))
    },
    error = function(e) {
      if (!is.null(part)) part$fail(e)
      abort(e)
    })
  on.exit(cpp_session_close(ses), add = TRUE)
  r_session <- new_r_session(ses, mode)
  r_context <- new_run_context(ses, r_session)
  # An interrupt while R hook code runs is noted and the hook resumed; the
  # loop then stops at the step boundary, calls every end() and re-signals
  # it. A second interrupt is not held back.
  res <- withCallingHandlers(
    tryCatch(
      cpp_session_run(ses, cached_hook_specs(object, hooks), r_session, r_context, hostname()),
      error = function(e) {
        if (!is.null(part)) part$fail(e)
        signal_hook_error(note_what_was_kept(e, object, ptr, mode), ses, hooks)
      }
    ),
    interrupt = function(cnd) {
      if (cpp_session_note_interrupt(ses)) invokeRestart("resume")
    }
  )
  # NULL: interrupted, and the interrupt noted by the session this one runs
  # inside (an in-memory evaluation), which stops in order next
  if (is.null(res)) {
    if (!is.null(part)) part$fail(simpleError("interrupted"))
    return(NULL)
  }
  if (!is.null(part)) {
    tryCatch(part$finish(), error = function(e) {
      part$fail(e)
      abort(e)
    })
  }
  if (mode == "train") keep_seen_data(object, data$seen)
  if (mode == "eval") res$metrics <- cpp_session_metrics(ses)
  if (mode == "infer") res$predictions <- cpp_session_predictions(ses, predict_keys)
  res
}

# The hold of a train() call on model_dir, taken before the call reads the
# engine's global step: it waits for what the hooks wait for (another
# process's training, hook_wait()), takes the model_dir lock, then brings
# the engine up to date with model_dir (sync_from_model_dir()) - the one
# look at model_dir's checkpoints of the call, whose result, the engine's
# state, the rest of the call uses. Returns `hooks` (the hooks as they run
# after waiting), `run(input_fn, hooks)`, which runs the training session
# on the engine, and `close()` (once; train() also calls it on exit), which
# records the checkpoint the session wrote (note_synced()) and releases the
# lock. For train() called from one of the estimator's own hooks nothing is
# waited for, locked or read, and run() refuses.
open_training <- function(object, ptr, hooks) with_error_class(open_training_impl(object, ptr, hooks))

open_training_impl <- function(object, ptr, hooks) {
  st <- object$state
  dir <- object$spec$model_dir
  busy <- isTRUE(st$busy)
  unlock <- function() invisible()
  if (!busy) {
    if (!is.null(dir)) {
      # a hook_global_step_waiter() waits for another process's training
      # before the lock is taken; the sync below starts from what it trained
      hooks <- wait_for_global_step(hooks, ptr, dir)
      unlock <- lock_model_dir(dir, object$spec$config$lock_timeout_secs %||% 10)
    }
    held <- FALSE
    on.exit(if (!held) unlock(), add = TRUE)
    sync_from_model_dir(object, ptr)
    held <- TRUE
  }
  ran <- FALSE
  closed <- FALSE
  run <- function(input_fn, hooks, distributed = NULL) {
    if (busy) abort("this estimator is already training: train() cannot be called from one of its own hooks.")
    if (!is.null(dir)) {
      remove_stale_temporaries(dir)
      check_model_dir(object, write = TRUE)
    }
    ran <<- TRUE
    st$busy <- TRUE
    on.exit(st$busy <- FALSE, add = TRUE)
    run_session(object, input_fn, "train", hooks, ptr = ptr, distributed = distributed)
  }
  close <- function() {
    if (closed) return(invisible())
    closed <<- TRUE
    on.exit(unlock(), add = TRUE)
    if (ran) with_error_class(note_synced(object))
    invisible()
  }
  list(hooks = hooks, run = run, close = close)
}

# A training over an input that repeats forever (input_fn(num_epochs =
# NULL), dataset_repeat() without `count`) needs something that ends it, as
# keras needs steps_per_epoch for endless data: `steps` or `max_steps`
# (train()'s stop-at-step hook), a hook that may stop it (role
# "stops_training": hook_stop_at_step(), the early-stopping hooks, a
# session_run_hook(), whose callbacks may call request_stop()), or a model
# that ends by itself (boosted trees, once their trees are grown).
check_training_ends <- function(object, data, hooks) {
  endless <- if (isTRUE(data$stream)) dataset_is_infinite(data$input$dataset) else identical(data$num_epochs, -1)
  if (!endless) return(invisible())
  if (any(vapply(hooks, hook_has_role, TRUE, role = "stops_training"))) return(invisible())
  if (model_trait(estimator_model(object$spec), "ends_by_itself")) return(invisible())
  what <- if (isTRUE(data$stream)) "the dataset repeats forever (dataset_repeat() without `count`)" else
    "the input repeats forever (`num_epochs = NULL`)"
  abort(paste0("train() would never end: ", what, " and nothing stops training. Give `steps` or `max_steps`, ",
               "or a hook that stops it: hook_stop_at_step(), an early-stopping hook (hook_stop_if_no_decrease(), ",
               "hook_stop_if_no_increase(), hook_stop_if_lower(), hook_stop_if_higher()) or a session_run_hook() ",
               "whose callbacks call context$request_stop(); or give `num_epochs` a number."),
        class = "cppestimators_endless_training")
}

# At most how many rows a session reads: for a training that
# hook_stop_at_step() bounds (`steps`, `max_steps`), its steps' batches;
# otherwise every row at least once.
rows_to_read <- function(data, hooks, ptr, mode) {
  if (mode != "train") return(Inf)
  if (!length(hooks)) return(Inf)
  step <- cpp_estimator_global_step(ptr)
  min(vapply(hooks, hook_steps_left, 0, step = step)) * data$batch_size
}

# A classifier's first training over data in memory (no record of earlier
# training, global step 0) refuses labels of one class; streams and later
# calls are not checked.
check_first_classes <- function(object, data, ptr) {
  if (isTRUE(data$stream) || !isTRUE(object$spec$head %in% c("binary", "multi_class")) || !is.null(object$state$seen) ||
      cpp_estimator_global_step(ptr) != 0) {
    return(invisible())
  }
  check_two_classes(data$labels, data$input$response %||% "response",
                    object$spec$label_vocabulary %||% attr(data$labels, "levels"))
}

# The dense block of a distributed session's own rows (an MPI rank's shard;
# none for a socket cluster's chief, which reads no rows), built for this
# call: the shard is this call's.
part_block <- function(ptr, data) {
  width <- cpp_estimator_dense_width(ptr)
  n <- if (length(data$features)) NROW(data$features[[1]]) else 0
  if (width == 0 || n == 0 || n * width * 4 > cache_budget()) return(NULL)
  cpp_dense_block(ptr, data$features, engine_threads())
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

# A training that failed writing a file of model_dir (a full disk, a
# read-only file system) says what it kept: the last complete checkpoint and
# its global step, and the steps held only in this session's estimator.
note_what_was_kept <- function(e, object, ptr, mode) {
  msg <- conditionMessage(e)
  reason <- file_error_reason(e)
  if (!length(reason)) return(e)
  class(e) <- unique(c("cppestimators_file_error", class(e)))
  dir <- object$spec$model_dir
  if (mode != "train" || is.null(dir)) return(e)
  latest <- cpp_latest_checkpoint(dir)
  saved <- if (nzchar(latest)) checkpoint_step(latest) else NA
  step <- cpp_estimator_global_step(ptr)
  kept <- if (nzchar(latest)) {
    sprintf("model_dir keeps its last complete checkpoint, %s (global step %s)", basename(latest), format(saved))
  } else {
    "model_dir holds no complete checkpoint"
  }
  unsaved <- if (!is.na(saved) && step > saved) {
    sprintf(paste("; global steps %s to %s are held only by this estimator, in memory: train() again once '%s'",
                  "can be written saves them"),
            format(saved + 1), format(step), dir)
  } else if (is.na(saved) && step > 0) {
    sprintf(paste("; the %s steps trained are held only by this estimator, in memory: train() again once '%s'",
                  "can be written saves them"),
            format(step), dir)
  } else {
    ""
  }
  what <- c("No space left on device" = "The disk is full", "Disk quota exceeded" = "The disk quota is used up",
            "Read-only file system" = "model_dir is on a read-only file system",
            "Permission denied" = "model_dir cannot be written (permission denied)",
            "File too large" = "A file reached the size limit", "Input/output error" = "The disk failed to write")
  e$message <- sprintf("%s\n%s: %s%s.", msg, what[[reason[1]]], kept, unsaved)
  e
}

# An error of the session: from an R hook, a condition of class
# cppestimators_hook_error naming the hook and phase, with the original
# condition as `parent`, the hook's position in `hooks` as `hook` (NA for
# train()'s own hooks) and the phase as `phase`; otherwise `e` itself.
signal_hook_error <- function(e, ses, hooks) {
  # R's time limits (setTimeLimit()), raised by the engine's interrupt check
  # between steps or by a hook's R code, are R's own error
  if (is_time_limit_error(e)) {
    e$call <- NULL
    abort(e, class = "cppestimators_time_limit")
  }
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
  abort(msg, class = c(if (inherits(e, "cppestimators_file_error")) "cppestimators_file_error",
                       "cppestimators_hook_error"), parent = e, hook = position %||% NA_integer_,
        phase = origin$phase)
}

# Whether an error is one of R's time limits (setTimeLimit(),
# setSessionTimeLimit()), in the session's language.
is_time_limit_error <- function(e) {
  limits <- c("reached elapsed time limit", "reached CPU time limit", "reached session elapsed time limit",
              "reached session CPU time limit")
  conditionMessage(e) %in% c(limits, gettext(limits, domain = "R"))
}

# The global step in a checkpoint's name ("<dir>/model.ckpt-<step>.ckpt").
checkpoint_step <- function(path) {
  suppressWarnings(as.numeric(sub("^.*-([0-9]+)(\\.ckpt)?$", "\\1", basename(path))))
}

# The data a session reads, for one estimator and mode: the features its
# columns use, as the input holds them (normalizer_fn applied once), the
# labels as doubles (vocabulary applied) and the weight column's values.
resolve_input <- function(input_fn, estimator, mode, in_order = FALSE) {
  check_choice(mode, "mode", session_modes)
  input_fn <- as_input_fn(input_fn, estimator)
  if (inherits(input_fn, "cppestimators_dataset_input_fn")) return(list(stream = TRUE, input = input_fn))
  plan <- column_plan(estimator)
  features <- mark_checked(plan, input_fn, session_features(estimator, plan, input_fn$features))
  read <- if (identical(names(input_fn$features), plan$keys)) input_fn$features else input_fn$features[plan$keys]
  seen <- check_seen_data(estimator, read, input_fn$labels, mode)
  if (mode != "infer" && length(plan$strict_keys)) check_missing_categories(plan, read)
  if (mode == "train" && is.null(estimator$state$seen) && length(plan$raw_numeric_keys) > 1L) {
    warn_scales(estimator, read[intersect(plan$raw_numeric_keys, names(read))])
  }
  labels <- NULL
  if (mode != "infer") {
    if (is.null(input_fn$labels)) {
      abort("`input_fn` has no response: train() and evaluate() need one (set `response`).")
    }
    labels <- map_labels(input_fn$labels, estimator, input_fn$response)
  }
  shuffle <- input_fn$shuffle
  if (identical(shuffle, "auto")) shuffle <- mode != "infer"
  list(features = features, labels = labels, weights = input_weights(estimator, input_fn, mode),
       batch_size = input_fn$batch_size, shuffle = shuffle && !in_order,
       num_epochs = input_fn$num_epochs %||% -1, input = input_fn, seen = seen,
       # a histogram growth's batch of every row: across processes, every
       # rank's batch is its whole shard (R/distributed.R)
       whole_batches = mode == "train" && is_hist_trees(estimator) && input_fn$batch_size >= NROW(labels))
}

# engine_features() without a loop over the columns in R: the input's own
# vectors, selected by name, when every leaf's feature is there and no
# numeric one is a classed vector (a Date, say, which check_not_time()
# refuses); only the columns with a normalizer_fn run R code. Anything else
# goes through engine_features(), which gives the same result or error.
session_features <- function(estimator, plan, features) {
  plain <- plan$numeric & !plan$normalized
  if (identical(names(features), plan$keys) && !any(plan$normalized)) {
    # exactly the keys, in order (a data frame given to train() and the others)
    # (every column plain: the list itself is checked; a list with no
    # attribute but its names is returned as it is, no copy)
    every <- identical(plan$plain_at, seq_along(features))
    if (cpp_any_object(if (every) features else features[plan$plain_at])) {
      return(engine_features(estimator$spec$feature_columns, features))
    }
    return(if (identical(names(attributes(features)), "names")) features else features[seq_along(features)])
  }
  present <- plan$leaf_keys %in% names(features)
  if (!all(present) || cpp_any_object(features[plan$leaf_keys[plain]]) ||
      anyDuplicated(plan$engine_keys[plan$normalized])) {
    return(engine_features(estimator$spec$feature_columns, features))
  }
  if (!any(plan$normalized)) return(features[plan$keys])
  keep <- !duplicated(plan$engine_keys)
  out <- features[plan$leaf_keys[keep]]
  names(out) <- plan$engine_keys[keep]
  at <- cumsum(keep)
  for (i in which(plan$normalized & keep)) {
    out[at[i]] <- list(engine_features(plan$leaves[i], features)[[1L]])
  }
  out
}

# The input_fn() object behind what the user passed: the object itself, the
# function it returns for an estimator, or a function of 0 or 1 arguments
# returning one of those (as tfestimators' normalize_input_fn accepted).
as_input_fn <- function(input_fn, estimator) {
  for (depth in 1:3) {
    if (inherits(input_fn, "cppestimators_input_fn")) return(input_fn)
    if (inherits(attr(input_fn, "input_fn"), "cppestimators_input_fn")) return(attr(input_fn, "input_fn"))
    if (!is.function(input_fn)) break
    nargs <- length(formals(input_fn))
    input_fn <- if (nargs == 0L) input_fn() else if (nargs == 1L) input_fn(estimator) else
      abort("'input_fn' should accept 0 or 1 arguments")
  }
  abort(paste0("`input_fn` must be made by input_fn() or numpy_input_fn() (or be a function returning one), not ",
               describe(input_fn), "."))
}

# A missing category (NA in a factor or character feature) in training or
# evaluation data is an error for a vocabulary column with neither
# out-of-vocabulary buckets nor a default value: it has no id to give it.
check_missing_categories <- function(plan, features) {
  x <- features[intersect(plan$strict_keys, names(features))]
  if (!anyNA(x, recursive = TRUE)) return(invisible())
  for (key in names(x)) {
    if (!anyNA(x[[key]])) next
    abort(sprintf(paste("feature '%s' has %d missing values (NA), first at row %d, and its vocabulary column has",
                        "nowhere to put them: give the column `num_oov_buckets` (missing values then share the",
                        "out-of-vocabulary buckets) or `default_value`, make NA a level of its own",
                        "(recipes::step_unknown(), forcats::fct_na_value_to_level()), impute it",
                        "(recipes::step_impute_mode()) or drop those rows (na.omit())."),
                  key, sum(is.na(x[[key]])), which(is.na(x[[key]]))[1]),
          class = "cppestimators_missing_values")
  }
}

# On an estimator's first training: a warning when numeric features without
# a normalizer differ in scale by three orders of magnitude or more, which
# gradient steps (linear models, DNNs) handle badly; trees do not mind.
warn_scales <- function(estimator, x) {
  if (!model_trait(estimator_model(estimator$spec), "feature_scale_matters")) {
    return(invisible())
  }
  # one pass over each plain numeric vector in the engine, nothing allocated
  # (stats::sd() made temporaries of each column's size)
  s <- stats::setNames(cpp_column_sds(x), names(x))
  s <- s[is.finite(s) & s > 0]
  if (length(s) < 2L || max(s) / min(s) < 1e3) return(invisible())
  big <- names(s)[which.max(s)]
  small <- names(s)[which.min(s)]
  warning(structure(class = c("cppestimators_scale_warning", "warning", "condition"), list(
    message = sprintf(paste("numeric features differ in scale by %.0f orders of magnitude ('%s': sd %s, '%s': sd %s)",
                            "and have no normalizer, which slows gradient steps down or stops them short:",
                            "standardize them (feature_columns_from_data() does by default;",
                            "column_numeric(normalizer_fn = normalizer_standardize(mean, sd)))."),
                      floor(log10(max(s) / min(s))), big, format(signif(max(s), 3)), small,
                      format(signif(min(s), 3))),
    call = NULL)))
}
