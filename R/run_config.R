#' Run configuration
#'
#' The settings of TensorFlow's `RunConfig` that matter here, with its
#' defaults: where the model lives, the random seed, and how often training
#' saves checkpoints and summaries and logs. When neither checkpoint interval
#' is given, checkpoints are saved every 600 seconds (and always at the end of
#' `train()`). Change a configuration with `config$replace(...)`: setting one
#' checkpoint interval clears the other.
#'
#' @param model_dir Directory of the model (checkpoints, summaries).
#' @param tf_random_seed Seed for shuffling: the same seed, data and settings
#'   give bit-identical training.
#' @param save_summary_steps Write training summaries every this many steps
#'   (0 disables them).
#' @param save_checkpoints_steps,save_checkpoints_secs Save checkpoints every
#'   this many steps or seconds; at most one of the two.
#' @param session_config Accepted for compatibility; must be `NULL`.
#' @param keep_checkpoint_max Checkpoints to keep (0 or `NULL` keeps all).
#' @param keep_checkpoint_every_n_hours Accepted for compatibility.
#' @param log_step_count_steps Log the loss and steps/sec every this many
#'   steps (`NULL` disables).
#' @param lock_timeout_secs How long `train()` waits for another process's
#'   `train()` of the same `model_dir` to finish (its lock, see
#'   [cppestimators]) before failing with an error naming that process; 0
#'   fails at once.
#' @param cluster Where `train()` runs: `NULL` (this process), a socket
#'   cluster or `"mpi"`; see `train()`'s `cluster`.
#' @param ... Other `RunConfig` fields of distributed TensorFlow:
#'   `train_distribute`, `eval_distribute`, `experimental_distribute` and
#'   `device_fn` must be `NULL` (training runs in this process); `protocol`,
#'   `experimental_max_worker_delay_secs` and `session_creation_timeout_secs`
#'   are accepted and have no effect.
#' @return A run configuration (class `cppestimators_run_config`).
#' @family estimators
#' @export
#' @examples
#' config <- run_config(tf_random_seed = 42)
#' config$save_checkpoints_secs
#' config2 <- config$replace(save_checkpoints_steps = 100)
#' config2$save_checkpoints_secs
run_config <- function(model_dir = NULL, tf_random_seed = NULL, save_summary_steps = 100,
                       save_checkpoints_steps = NULL, save_checkpoints_secs = NULL,
                       session_config = NULL, keep_checkpoint_max = 5,
                       keep_checkpoint_every_n_hours = 10000, log_step_count_steps = 100,
                       lock_timeout_secs = 10, cluster = NULL, ...) {
  if (missing(save_checkpoints_steps) && missing(save_checkpoints_secs)) {
    save_checkpoints_secs <- 600
  }
  extra <- list(...)
  known_extra <- c("train_distribute", "device_fn", "protocol", "eval_distribute",
                   "experimental_distribute", "experimental_max_worker_delay_secs",
                   "session_creation_timeout_secs")
  bad <- setdiff(names(extra), known_extra)
  if (length(bad) || (length(extra) && is.null(names(extra)))) {
    abort(sprintf("unknown run_config() field%s: %s.%s", if (length(bad) > 1) "s" else "",
                  paste(bad, collapse = ", "),
                  if (length(bad)) did_you_mean(bad[1], c(setdiff(names(formals(run_config)), "..."), known_extra)) else ""))
  }
  distributed <- intersect(names(extra),
                           c("train_distribute", "eval_distribute", "experimental_distribute", "device_fn"))
  set <- distributed[!vapply(extra[distributed], is.null, TRUE)]
  if (length(set)) {
    abort(sprintf(paste0("run_config(): `%s` must be NULL: there is no distributed TensorFlow, ",
                         "training runs in this R process."), set[1]))
  }
  validate_config(structure(
    list(model_dir = model_dir, tf_random_seed = tf_random_seed,
         save_summary_steps = save_summary_steps, save_checkpoints_steps = save_checkpoints_steps,
         save_checkpoints_secs = save_checkpoints_secs, session_config = session_config,
         keep_checkpoint_max = keep_checkpoint_max,
         keep_checkpoint_every_n_hours = keep_checkpoint_every_n_hours,
         log_step_count_steps = log_step_count_steps, lock_timeout_secs = lock_timeout_secs,
         cluster = cluster),
    class = "cppestimators_run_config"
  ))
}

validate_config <- function(cfg) {
  v <- unclass(cfg)
  num <- function(x, arg, msg) {
    x <- check_number(x, arg, finite = FALSE, null_ok = TRUE, must = "a single number")
    if (!is.null(x) && !msg$ok(x)) abort(msg$text)
    x
  }
  ge0 <- function(arg) list(ok = function(x) x >= 0, text = paste(arg, "should be >= 0"))
  gt0 <- function(arg) list(ok = function(x) x > 0, text = paste(arg, "should be > 0"))
  check_string(v$model_dir, "model_dir", null_ok = TRUE,
               message = paste0("model_dir should be non-empty (a string, not NA), not ", describe(v$model_dir), "."))
  seed <- check_number(v$tf_random_seed, "tf_random_seed", finite = FALSE, null_ok = TRUE,
                       message = "tf_random_seed must be integer.")
  if (!is.null(seed) && seed != floor(seed)) abort("tf_random_seed must be integer.")
  if (!is.null(v$tf_random_seed) && abs(v$tf_random_seed) > .Machine$integer.max) {
    abort("tf_random_seed must be an integer between -2147483647 and 2147483647.")
  }
  if (!is.null(v$session_config)) abort("session_config must be NULL: there is no TensorFlow session to configure.")
  v["save_summary_steps"] <- list(num(v$save_summary_steps, "save_summary_steps", ge0("save_summary_steps")))
  v["save_checkpoints_steps"] <- list(num(v$save_checkpoints_steps, "save_checkpoints_steps",
                                  ge0("save_checkpoints_steps")))
  v["save_checkpoints_secs"] <- list(num(v$save_checkpoints_secs, "save_checkpoints_secs",
                                 ge0("save_checkpoints_secs")))
  v["keep_checkpoint_max"] <- list(num(v$keep_checkpoint_max, "keep_checkpoint_max",
                                       list(ok = function(x) x >= 0 && x == floor(x) && x <= .Machine$integer.max,
                                            text = "keep_checkpoint_max should be >= 0 and a whole number")))
  v["keep_checkpoint_every_n_hours"] <- list(num(v$keep_checkpoint_every_n_hours,
                                         "keep_checkpoint_every_n_hours",
                                         gt0("keep_checkpoint_every_n_hours")))
  v["log_step_count_steps"] <- list(num(v$log_step_count_steps, "log_step_count_steps",
                                gt0("log_step_count_steps")))
  v["lock_timeout_secs"] <- list(check_number(v$lock_timeout_secs %||% 10, "lock_timeout_secs", min = 0,
                                              must = "a number of seconds >= 0"))
  v["cluster"] <- list(check_cluster(v$cluster))
  if (!is.null(v$save_checkpoints_steps) && !is.null(v$save_checkpoints_secs)) {
    abort("`save_checkpoints_steps` and `save_checkpoints_secs` cannot be both set.")
  }
  if (identical(v$save_checkpoints_steps, 0)) v["save_checkpoints_steps"] <- list(NULL)
  if (identical(v$save_checkpoints_secs, 0)) v["save_checkpoints_secs"] <- list(NULL)
  structure(v[config_fields], class = "cppestimators_run_config")
}

config_fields <- c("model_dir", "tf_random_seed", "save_summary_steps", "save_checkpoints_steps",
                   "save_checkpoints_secs", "session_config", "keep_checkpoint_max",
                   "keep_checkpoint_every_n_hours", "log_step_count_steps", "lock_timeout_secs", "cluster")

replaceable_fields <- c("model_dir", "tf_random_seed", "save_summary_steps",
                        "save_checkpoints_steps", "save_checkpoints_secs", "session_config",
                        "keep_checkpoint_max", "keep_checkpoint_every_n_hours",
                        "log_step_count_steps", "lock_timeout_secs", "cluster", "train_distribute", "device_fn",
                        "protocol",
                        "eval_distribute", "experimental_distribute",
                        "experimental_max_worker_delay_secs", "session_creation_timeout_secs")

replace_config <- function(cfg, ...) {
  new <- list(...)
  if (length(new) && (is.null(names(new)) || any(!nzchar(names(new))))) {
    abort("config$replace() takes named fields.")
  }
  bad <- setdiff(names(new), replaceable_fields)
  if (length(bad)) {
    abort(sprintf("Replacing %s is not supported. Allowed properties are %s.",
                  paste(bad, collapse = ", "), paste(replaceable_fields, collapse = ", ")))
  }
  v <- unclass(cfg)
  steps_set <- "save_checkpoints_steps" %in% names(new)
  secs_set <- "save_checkpoints_secs" %in% names(new)
  if (steps_set && !secs_set) v["save_checkpoints_secs"] <- list(NULL)
  if (secs_set && !steps_set) v["save_checkpoints_steps"] <- list(NULL)
  for (nm in intersect(names(new), names(v))) v[nm] <- list(new[[nm]])
  validate_config(structure(v, class = "cppestimators_run_config"))
}

#' @export
`$.cppestimators_run_config` <- function(x, name) {
  if (identical(name, "replace")) return(function(...) replace_config(x, ...))
  .subset2(x, name)
}

#' @export
print.cppestimators_run_config <- function(x, ...) {
  v <- unclass(x)
  for (nm in names(v)) {
    val <- v[[nm]]
    if (is_socket_cluster(val)) val <- sprintf("<socket cluster of %d workers>", length(val))
    cat(nm, " = ", if (is.null(val)) "NULL" else if (identical(val, "")) "\"\"" else format(val),
        "\n", sep = "")
  }
  invisible(x)
}
