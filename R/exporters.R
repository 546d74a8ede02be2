#' Export the model while it trains
#'
#' Exporters write the model, as [export_savedmodel()] does, each time an
#' evaluation made during training calls them: those of
#' [eval_spec()]`(exporters = )` in [train_and_evaluate()], and those of
#' [hook_in_memory_evaluator()]`(exporters = )`. Each export is a directory
#' `model_dir/export/<name>/<timestamp>` (seconds since 1970, or one more
#' than the newest export of that directory when that is not later) that
#' [load_estimator()]
#' reads back. An export is written into a temporary directory beside it and
#' renamed when complete, so a directory named by a timestamp is never half
#' written. Each export is logged with [message()].
#'
#' * `best_exporter()` exports when the evaluation is better than every
#'   earlier one: `compare_fn(best_eval_result, current_eval_result)`
#'   returns `TRUE` when the current evaluation (a named list of metrics,
#'   with `global_step`) is better than the best so far. The default
#'   compares `loss` (smaller is better), and is an error when an
#'   evaluation has no `loss`. When training starts, the best evaluation so
#'   far is read from the event files matching `event_file_pattern` under
#'   `model_dir` (by default those of `evaluate()` and of the unnamed
#'   evaluations during training), so that training resumed in a new call
#'   exports only what beats the earlier calls' evaluations (TensorFlow read
#'   them at the first export, after that evaluation's own results were
#'   written, so that it never exported at the first evaluation of a new
#'   run); `NULL` starts from nothing.
#' * `latest_exporter()` exports at every evaluation.
#' * `final_exporter()` exports once, at the final evaluation: the one at
#'   the end of the training call (TensorFlow's exported at an evaluation at
#'   or after `max_steps`, so never without `max_steps`).
#'
#' `best_exporter()` and `latest_exporter()` then keep the `exports_to_keep`
#' newest exports of their directory (the largest timestamps) and delete the
#' others; `NULL` keeps them all.
#'
#' @param name The exporter's name: the directory of its exports under
#'   `model_dir/export`. The exporters of one evaluation need distinct names.
#' @param serving_input_receiver_fn,assets_extra,as_text TensorFlow's export
#'   arguments, accepted for compatibility and ignored with a warning when
#'   given (an export needs none of them; see [export_savedmodel()]).
#' @param event_file_pattern Where to find earlier evaluations: a file
#'   pattern (as for [Sys.glob()]) relative to `model_dir`, or `NULL`.
#' @param compare_fn `NULL` for the default (smaller `loss` is better), or a
#'   function of `best_eval_result` and `current_eval_result` returning
#'   `TRUE` or `FALSE`.
#' @param exports_to_keep How many exports to keep (a positive whole
#'   number), or `NULL` for all.
#' @return An exporter, for [eval_spec()] or [hook_in_memory_evaluator()].
#'   The training history records the exports made as its `exports` element:
#'   a data frame of `exporter`, `step` and `path`.
#' @family exporters
#' @export
#' @examples
#' fcs <- feature_columns(column_numeric("drat"))
#' est <- linear_regressor(feature_columns = fcs)
#' train_input <- input_fn(mtcars, response = "mpg", features = "drat", batch_size = 4L,
#'                         num_epochs = NULL)
#' eval_input <- input_fn(mtcars, response = "mpg", features = "drat")
#' evaluator <- hook_in_memory_evaluator(est, eval_input, every_n_iter = 10,
#'                                       exporters = list(best_exporter(), final_exporter()))
#' history <- train(est, train_input, steps = 30, hooks = list(evaluator))
#' history$exports
#' best <- load_estimator(history$exports$path[1])
best_exporter <- function(name = "best_exporter", serving_input_receiver_fn = NULL,
                          event_file_pattern = "eval/*.tfevents.*", compare_fn = NULL,
                          assets_extra = NULL, as_text = FALSE, exports_to_keep = 5) {
  warn_export_args("best_exporter", serving_input_receiver_fn, assets_extra, as_text)
  check_string(event_file_pattern, "event_file_pattern", null_ok = TRUE)
  if (is.null(compare_fn)) {
    compare_fn <- loss_smaller
  } else {
    check_compare_fn(compare_fn)
  }
  new_exporter("best", name, exports_to_keep, every_evaluation = TRUE,
               list(event_file_pattern = event_file_pattern, compare_fn = compare_fn))
}

#' @rdname best_exporter
#' @export
latest_exporter <- function(name = "latest_exporter", serving_input_receiver_fn = NULL,
                            assets_extra = NULL, as_text = FALSE, exports_to_keep = 5) {
  warn_export_args("latest_exporter", serving_input_receiver_fn, assets_extra, as_text)
  new_exporter("latest", name, exports_to_keep, every_evaluation = TRUE)
}

#' @rdname best_exporter
#' @export
final_exporter <- function(name = "final_exporter", serving_input_receiver_fn = NULL,
                           assets_extra = NULL, as_text = FALSE) {
  warn_export_args("final_exporter", serving_input_receiver_fn, assets_extra, as_text)
  new_exporter("final", name, NULL, every_evaluation = FALSE)
}

new_exporter <- function(kind, name, exports_to_keep, every_evaluation, fields = list()) {
  check_exporter_name(name)
  if (!is.null(exports_to_keep) &&
      (!is.numeric(exports_to_keep) || !is_single(exports_to_keep) || !is.finite(exports_to_keep) ||
       exports_to_keep != floor(exports_to_keep) || exports_to_keep <= 0)) {
    abort(sprintf("`exports_to_keep`, if provided, must be a positive whole number. Got %s.",
                  describe(exports_to_keep)))
  }
  structure(c(list(kind = kind, name = name, exports_to_keep = exports_to_keep,
                   every_evaluation = every_evaluation), fields),
            class = c(paste0("cppestimators_exporter_", kind), "cppestimators_exporter"))
}

#' @export
print.cppestimators_exporter <- function(x, ...) {
  keep <- if (x$every_evaluation) sprintf(", keeps %s", format(x$exports_to_keep %||% "all")) else ""
  cat(sprintf("<%s_exporter \"%s\"%s>\n", x$kind, x$name, keep))
  invisible(x)
}

check_exporter_name <- function(name) {
  msg <- "An Exporter's `name` must be a non-empty string without slashes."
  check_string(name, "name", message = msg)
  if (grepl("[/\\\\]", name) || name %in% c(".", "..")) abort(msg)
  invisible(name)
}

warn_export_args <- function(fn, serving_input_receiver_fn, assets_extra, as_text) {
  given <- c(if (!is.null(serving_input_receiver_fn)) "serving_input_receiver_fn",
             if (!is.null(assets_extra)) "assets_extra",
             if (!identical(as_text, FALSE)) "as_text")
  check_dots(given, fn, character(), ignored = given)
}

# The default comparison (TensorFlow's _loss_smaller): TRUE when the current
# evaluation's loss is smaller than the best one's.
loss_smaller <- function(best_eval_result, current_eval_result) {
  has_loss <- function(r) length(r) > 0L && !is.null(r[["loss"]])
  if (!has_loss(best_eval_result)) {
    abort("best_eval_result cannot be empty or no loss is found in it.")
  }
  if (!has_loss(current_eval_result)) {
    abort("current_eval_result cannot be empty or no loss is found in it.")
  }
  best_eval_result[["loss"]] > current_eval_result[["loss"]]
}

check_compare_fn <- function(compare_fn) {
  if (!is.function(compare_fn)) {
    abort(sprintf("`compare_fn` must be NULL or a function, not %s.", describe(compare_fn)))
  }
  args <- names(formals(compare_fn))
  for (a in c("best_eval_result", "current_eval_result")) {
    if (!a %in% args) abort(sprintf("`compare_fn` must include the %s argument.", a))
  }
  extra <- setdiff(args, c("best_eval_result", "current_eval_result"))
  if (length(extra)) {
    abort(sprintf("`compare_fn` has arguments it is not called with: %s.",
                  paste0("`", extra, "`", collapse = ", ")))
  }
  invisible(compare_fn)
}

# `exporters` of eval_spec() or hook_in_memory_evaluator(): NULL, an
# exporter, or a list of exporters with distinct names.
normalize_exporters <- function(exporters) {
  if (is.null(exporters)) return(list())
  if (inherits(exporters, "cppestimators_exporter")) exporters <- list(exporters)
  bad <- function(what) {
    abort(sprintf(paste0("`exporters` must be an exporter (best_exporter(), latest_exporter(), ",
                         "final_exporter()) or a list of them, found %s."), what),
          class = "cppestimators_bad_exporters")
  }
  if (!is.list(exporters) || inherits(exporters, "cppestimators_hook")) bad(describe(exporters))
  for (i in seq_along(exporters)) {
    if (!inherits(exporters[[i]], "cppestimators_exporter")) {
      bad(sprintf("%s as element %d", describe(exporters[[i]]), i))
    }
  }
  names <- vapply(exporters, function(e) e$name, "")
  if (anyDuplicated(names)) {
    abort(sprintf("`exporters` must have unique names. All exporter names: %s.",
                  paste0("\"", names, "\"", collapse = ", ")),
          class = "cppestimators_bad_exporters")
  }
  unname(exporters)
}

# The exporters of one training call, with their state: an environment with
# after_evaluation(metrics, final) (metrics: a named numeric vector with
# global_step) and final_only() (the final exports at the current step,
# when the final evaluation already happened), each returning the paths it
# wrote; `made` holds every export of the call.
exporter_run <- function(exporters, object, ptr) {
  run <- new.env(parent = emptyenv())
  run$exporters <- exporters
  run$made <- data.frame(exporter = character(), step = numeric(), path = character(),
                         stringsAsFactors = FALSE)
  run$best <- lapply(exporters, exporter_start, model_dir = object$spec$model_dir)
  base <- file.path(object$spec$model_dir, "export")
  export_one <- function(i, step) {
    e <- run$exporters[[i]]
    path <- write_export(object, ptr, file.path(base, e$name))
    message(sprintf("Exported the model of global step %s (%s) to %s", format(step), e$name, path))
    run$made[nrow(run$made) + 1L, ] <- list(e$name, step, path)
    if (!is.null(e$exports_to_keep)) collect_exports(file.path(base, e$name), e$exports_to_keep)
    path
  }
  run$after_evaluation <- function(metrics, final) {
    current <- as.list(metrics)
    step <- current$global_step
    out <- character()
    for (i in seq_along(run$exporters)) {
      e <- run$exporters[[i]]
      if (!exports_at(e, run$best[[i]], current, final)) next
      if (inherits(e, "cppestimators_exporter_best")) run$best[[i]] <- current
      out <- c(out, export_one(i, step))
    }
    out
  }
  run$final_only <- function(step) {
    out <- character()
    for (i in seq_along(run$exporters)) {
      if (!run$exporters[[i]]$every_evaluation) out <- c(out, export_one(i, step))
    }
    out
  }
  run
}

# What an exporter of a training call starts from: for best_exporter(), the
# best evaluation of earlier calls (best_in_events()); NULL for the others.
exporter_start <- function(exporter, model_dir) UseMethod("exporter_start")

#' @export
exporter_start.default <- function(exporter, model_dir) NULL

#' @export
exporter_start.cppestimators_exporter_best <- function(exporter, model_dir) best_in_events(exporter, model_dir)

# Whether the exporter exports at the evaluation `current` (a named list of
# metrics with global_step); `best`: the best evaluation so far (of a best
# exporter), `final`: whether the evaluation is the final one.
exports_at <- function(exporter, best, current, final) UseMethod("exports_at")

#' @export
exports_at.cppestimators_exporter_best <- function(exporter, best, current, final) {
  is.null(best) || better(exporter$compare_fn, best, current)
}

#' @export
exports_at.cppestimators_exporter_latest <- function(exporter, best, current, final) TRUE

#' @export
exports_at.cppestimators_exporter_final <- function(exporter, best, current, final) final

better <- function(compare_fn, best, current) {
  res <- compare_fn(best_eval_result = best, current_eval_result = current)
  if (!isTRUE(res) && !isFALSE(res)) {
    abort(sprintf("`compare_fn` must return TRUE or FALSE, not %s.", describe(res)))
  }
  res
}

# The best evaluation recorded in the event files of `model_dir` matching
# the exporter's pattern, or NULL: each event's scalars (with its step as
# global_step) compared in the files' order.
best_in_events <- function(exporter, model_dir) {
  if (is.null(exporter$event_file_pattern)) return(NULL)
  files <- sort(Sys.glob(file.path(model_dir, exporter$event_file_pattern)), method = "radix")
  best <- NULL
  for (f in files) {
    ev <- with_error_class(cpp_read_events(normalizePath(f)))
    if (length(ev$step) == 0L) next
    key <- paste(ev$step, ev$wall_time)
    for (k in unique(key)) {
      rows <- which(key == k)
      result <- c(as.list(stats::setNames(ev$value[rows], ev$tag[rows])),
                  list(global_step = ev$step[rows[1]]))
      if (is.null(best) || better(exporter$compare_fn, best, result)) best <- result
    }
  }
  best
}

# Writes an export of the engine `ptr` (as it is: no look at model_dir) into
# a new timestamped directory of `export_dir_base`, through a temporary
# directory renamed when complete. Returns the directory.
write_export <- function(object, ptr, export_dir_base) {
  dir.create(export_dir_base, recursive = TRUE, showWarnings = FALSE)
  # the time in seconds, or after the newest export when that is later (so
  # the newest export always has the largest timestamp)
  taken <- as.numeric(list.files(export_dir_base, pattern = "^[0-9]{10}$"))
  stamp <- max(c(floor(as.numeric(Sys.time())), taken + 1))
  repeat {
    dir <- file.path(export_dir_base, format(stamp, scientific = FALSE))
    if (!file.exists(dir)) break
    stamp <- stamp + 1
  }
  tmp <- file.path(export_dir_base, paste0("temp-", basename(dir)))
  unlink(tmp, recursive = TRUE)
  if (!dir.create(tmp, recursive = TRUE, showWarnings = FALSE)) {
    abort(sprintf("%s: could not create the export directory.", tmp), class = "cppestimators_file_error")
  }
  on.exit(unlink(tmp, recursive = TRUE), add = TRUE)
  spec <- object$spec
  spec$feature_columns <- capture_normalizers(spec$feature_columns)
  if (!is.null(spec$weight_column)) spec$weight_column <- capture_column_normalizer(spec$weight_column)
  spec$model_dir <- NULL
  spec$config <- spec$config$replace(model_dir = NULL)
  st <- object$state
  saveRDS(list(format = 1L, spec = spec, args = object$args, class = class(object),
               seen = st$seen, response = st$response, response_levels = st$response_levels),
          file.path(tmp, "estimator.rds"))
  with_error_class(cpp_estimator_write_file(ptr, file.path(tmp, "variables.ckpt")))
  if (!file.rename(tmp, dir)) {
    abort(sprintf("%s: could not rename the export to %s.", tmp, dir), class = "cppestimators_file_error")
  }
  normalizePath(dir)
}

# Keeps the `keep` exports of `export_dir_base` with the largest timestamps.
collect_exports <- function(export_dir_base, keep) {
  dirs <- list.files(export_dir_base, pattern = "^[0-9]{10}$", full.names = TRUE)
  dirs <- dirs[dir.exists(dirs)]
  if (length(dirs) <= keep) return(invisible())
  old <- dirs[order(as.numeric(basename(dirs)), decreasing = TRUE)][-seq_len(keep)]
  unlink(old, recursive = TRUE)
  invisible(old)
}
