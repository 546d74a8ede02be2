#' Read TensorBoard event files
#'
#' Reads the scalar summaries of every event file (`events.out.tfevents.*`)
#' under `dir`, such as those `train()` and `evaluate()` write to an
#' estimator's `model_dir` and its `eval` subdirectories, so curves can be
#' plotted without TensorBoard.
#'
#' @param dir A directory (searched recursively), or an estimator (its
#'   `model_dir`).
#' @return A data frame with columns `step`, `tag`, `value` and `wall_time`
#'   (seconds since the epoch), plus `run` (the subdirectory, `"."` for `dir`
#'   itself) when the files lie in several directories. A record whose CRC
#'   does not match is an error naming the file and offset.
#' @family summaries
#' @export
#' @examples
#' fcs <- feature_columns(column_numeric("drat"))
#' input <- input_fn(mtcars, response = "mpg", features = "drat", batch_size = 4L)
#' est <- linear_regressor(feature_columns = fcs,
#'                         config = run_config(save_summary_steps = 2))
#' train(est, input_fn = input, steps = 6)
#' evaluate(est, input_fn = input)
#' head(read_summaries(est))
read_summaries <- function(dir) {
  if (inherits(dir, "tf_estimator")) dir <- model_dir(dir)
  check_path(dir, "dir", exists = "dir", message = "`dir` must be an existing directory (or an estimator).")
  files <- sort(list.files(dir, pattern = "^events\\.out\\.tfevents\\.", recursive = TRUE,
                           full.names = FALSE), method = "radix")
  empty <- data.frame(step = numeric(), tag = character(), value = numeric(),
                      wall_time = numeric(), stringsAsFactors = FALSE)
  if (length(files) == 0L) return(empty)
  parts <- lapply(files, function(f) {
    ev <- with_error_class(cpp_read_events(normalizePath(file.path(dir, f))))
    df <- as.data.frame(ev, stringsAsFactors = FALSE)
    df$run <- rep(dirname(f), nrow(df))
    df
  })
  out <- do.call(rbind, parts)
  if (is.null(out) || nrow(out) == 0L) return(empty)
  out <- out[order(out$run, out$wall_time, out$step, method = "radix"), , drop = FALSE]
  rownames(out) <- NULL
  if (length(unique(dirname(files))) == 1L) out$run <- NULL
  out
}

# The host's name, asked once per process (Sys.info() takes ~50 us, and
# every train() needs it for its lock and its session).
hostname <- function() {
  if (identical(host_cache$pid, Sys.getpid())) return(host_cache$name)
  h <- Sys.info()[["nodename"]]
  host_cache$name <- if (is.null(h) || !nzchar(h)) "localhost" else h
  host_cache$pid <- Sys.getpid()
  host_cache$name
}

host_cache <- new.env(parent = emptyenv())

# Evaluation results as summaries in model_dir/eval or eval_<name>, and
# TF's "Saving dict" line.
write_eval_summaries <- function(object, metrics, name) {
  dir <- eval_dir(object, name)
  values <- unlist(metrics[setdiff(names(metrics), "global_step")])
  with_error_class(cpp_write_scalars(dir, metrics$global_step, values, hostname()))
  # (below 1e7, as.character() of a step is what format() shows, without its dispatch)
  step <- metrics$global_step
  message(sprintf("Saving dict for global step %s: %s", if (step < 1e7) as.character(step) else format(step),
                  shown_values(values)))
  invisible(dir)
}

# "name = value, ..." sorted by name, each value as format(digits = 7)
# shows it: sprintf()'s 7 significant digits in one call, format() for the
# magnitudes where the two differ (at 1e7 and above format() keeps the
# digits of a whole number).
shown_values <- function(values) {
  values <- values[sort(names(values), method = "radix")]
  txt <- sprintf("%.7g", values)
  wide <- is.finite(values) & abs(values) >= 1e7
  if (any(wide)) txt[wide] <- vapply(values[wide], format, "", digits = 7)
  paste(paste0(names(values), " = ", txt), collapse = ", ")
}

eval_dir <- function(object, name = NULL) {
  check_eval_name(name)
  file.path(object$spec$model_dir, if (is.null(name)) "eval" else paste0("eval_", name))
}

# The name of an evaluation (evaluate(name =), eval_spec(name =)): NULL, or a
# string that can be part of a directory's name.
check_eval_name <- function(name) {
  no_slash <- "`name` must be NULL or a name without slashes."
  check_string(name, "name", null_ok = TRUE, message = no_slash)
  if (!is.null(name) && grepl("[/\\\\]", name)) abort(no_slash)
  invisible(name)
}
