#' Train and evaluate an estimator
#'
#' Trains with `train_spec` and evaluates with `eval_spec` along the way, as
#' TensorFlow's local `train_and_evaluate()` did: after each checkpoint save
#' (except the one made when training starts), it evaluates the model if at
#' least `throttle_secs` passed since the last evaluation (the first such save
#' always evaluates), and it evaluates once more at the end unless the last
#' step was already evaluated (that final evaluation is made as the training
#' session ends, so that [hook_csv_logger()] records it). Checkpoints follow
#' the estimator's [run_config()] (by default every 600 seconds, so short runs
#' evaluate only at the end). Evaluations use the weights just saved, in memory; their
#' results are logged, written to `model_dir/eval` (or `eval_<name>`) and
#' joined to the returned history.
#'
#' @param object An estimator.
#' @param train_spec A [train_spec()].
#' @param eval_spec An [eval_spec()].
#' @param ... Unused.
#' @return Invisibly, the training history with `eval_<metric>` columns; its
#'   `evaluation_metrics` element holds the last evaluation and its `step`,
#'   its `exports` element the exports of `eval_spec()`'s exporters (a data
#'   frame of `exporter`, `step` and `path`).
#' @family estimator methods
#' @export
#' @examples
#' fcs <- feature_columns(column_numeric("drat"))
#' est <- linear_regressor(feature_columns = fcs,
#'                         config = run_config(save_checkpoints_steps = 10))
#' history <- train_and_evaluate(
#'   est,
#'   train_spec(input_fn(mtcars, response = "mpg", features = "drat", batch_size = 4L,
#'                       num_epochs = NULL), max_steps = 30),
#'   eval_spec(input_fn(mtcars, response = "mpg", features = "drat"), steps = NULL,
#'             throttle_secs = 0))
#' as.data.frame(history)
train_and_evaluate <- function(object, ...) {
  UseMethod("train_and_evaluate")
}

#' @rdname train_and_evaluate
#' @export
train_and_evaluate.tf_estimator <- function(object, train_spec, eval_spec, ...) {
  check_dots(dots_names(...), "train_and_evaluate", c("train_spec", "eval_spec"))
  if (!inherits(train_spec, "cppestimators_train_spec")) {
    abort("`train_spec` must be made by train_spec().")
  }
  if (!inherits(eval_spec, "cppestimators_eval_spec")) {
    abort("`eval_spec` must be made by eval_spec().")
  }
  complete_data_columns(object, train_spec$input_fn)
  ptr <- estimator_ptr(object)
  sync_from_model_dir(object, ptr)
  evals <- list()
  last_eval <- NULL
  first_save <- TRUE
  exports <- exporter_run(eval_spec$exporters, object, ptr)
  unread <- NULL  # the evaluation a hook_csv_logger() has not read yet
  run_eval <- function(final = FALSE) {
    m <- evaluate_now(object, ptr, eval_spec$input_fn, eval_spec$steps, eval_spec$hooks,
                      eval_spec$name)
    if (is.null(m)) return(invisible())  # interrupted: the training stops next
    evals[[length(evals) + 1L]] <<- m
    unread <<- m
    last_eval <<- Sys.time()
    exports$after_evaluation(m, final)
  }
  # the final evaluation, at the end of the session (the last step unless
  # it was just evaluated)
  at_end <- function(global_step) {
    if (length(evals) == 0L || evals[[length(evals)]][["global_step"]] != global_step) {
      run_eval(final = TRUE)
    } else {
      exports$final_only(global_step)
    }
  }
  listener <- checkpoint_saver_listener(after_save = function(session, global_step) {
    if (first_save) {
      first_save <<- FALSE
    } else if (is.null(last_eval) ||
               as.numeric(difftime(Sys.time(), last_eval, units = "secs")) >= eval_spec$throttle_secs) {
      run_eval()
    }
    FALSE
  }, end = function(session, global_step) at_end(global_step))
  listener$evaluates_into <- eval_dir(object, eval_spec$name)  # for early-stopping hooks
  hooks <- normalize_hooks(train_spec$hooks)
  # CSV loggers read this evaluation as it happens
  csv <- which(vapply(hooks, hook_has_role, TRUE, "reads_listener_evaluations"))
  nothing <- stats::setNames(numeric(), character())
  for (i in csv) hooks[[i]]$listener_evaluation <- function() {
    if (is.null(unread)) return(nothing)
    m <- unread
    unread <<- NULL
    m
  }
  if (!length(hooks_with_role(hooks, "shows_progress"))) {
    total <- if (is.null(train_spec$max_steps)) NULL else
      max(0, train_spec$max_steps - cpp_estimator_global_step(ptr))
    bar <- hook_progress_bar()
    bar$total <- total
    hooks <- c(hooks, list(bar))
  }
  history <- train(object, train_spec$input_fn, max_steps = train_spec$max_steps, hooks = hooks,
                   saving_listeners = list(listener))
  # no session ran (max_steps reached already): evaluate as it is
  if (length(evals) == 0L) at_end(cpp_estimator_global_step(ptr))
  table <- do.call(rbind, lapply(evals, function(m) {
    m <- m[c("global_step", sort(setdiff(names(m), "global_step"), method = "radix"))]
    df <- as.data.frame(as.list(m), check.names = FALSE)
    names(df) <- c("steps", paste0("eval_", names(m)[-1]))
    df
  }))
  table <- table[!duplicated(table$steps, fromLast = TRUE), , drop = FALSE]
  history$evaluations <- table
  history$evaluation_metrics <- last_evaluation(table)
  history$exports <- rbind(history$exports %||% exports$made[0, ], exports$made)
  invisible(history)
}

#' Specifications for train_and_evaluate()
#'
#' `train_spec()` describes the training part, `eval_spec()` the evaluation.
#'
#' @param input_fn An input function, from [input_fn()].
#' @param max_steps Global step at which training stops; `NULL` trains until
#'   the input is exhausted.
#' @param hooks Hooks for training (`train_spec()`) or for each evaluation
#'   (`eval_spec()`).
#' @param steps Evaluation batches; `NULL` evaluates the whole input.
#' @param name Name of the evaluation: results go to `model_dir/eval_<name>`.
#' @param exporters An exporter ([best_exporter()], [latest_exporter()],
#'   [final_exporter()]) or a list of them, with distinct names, called after
#'   each evaluation; the final evaluation is the one at the end of
#'   training. The history `train_and_evaluate()` returns lists their
#'   exports in its `exports` element.
#' @param start_delay_secs Accepted for compatibility; ignored in local training.
#' @param throttle_secs Minimum seconds between two evaluations.
#' @return A specification object.
#' @family estimator methods
#' @export
#' @examples
#' input <- input_fn(mtcars, response = "mpg", features = "drat")
#' train_spec(input, max_steps = 100)
#' eval_spec(input, steps = NULL, throttle_secs = 0)
train_spec <- function(input_fn, max_steps = NULL, hooks = NULL) {
  if (missing(input_fn)) abort("`input_fn` is required.")
  max_steps <- check_steps(max_steps, "max_steps")
  structure(list(input_fn = input_fn, max_steps = max_steps, hooks = normalize_hooks(hooks)),
            class = "cppestimators_train_spec")
}

#' @rdname train_spec
#' @export
eval_spec <- function(input_fn, steps = 100, name = NULL, hooks = NULL, exporters = NULL,
                      start_delay_secs = 120, throttle_secs = 600) {
  if (missing(input_fn)) abort("`input_fn` is required.")
  exporters <- normalize_exporters(exporters)
  throttle_secs <- check_number(throttle_secs, "throttle_secs", min = 0, finite = FALSE,
                                must = "a number of seconds >= 0")
  check_eval_name(name)
  structure(list(input_fn = input_fn, steps = check_steps(steps, "steps"), name = name,
                 hooks = normalize_hooks(hooks), exporters = exporters,
                 start_delay_secs = start_delay_secs, throttle_secs = throttle_secs),
            class = "cppestimators_eval_spec")
}
