# The hook protocol of the R layer. A hook is a list: its `kind` (the name
# the engine's hook registry, hooks/registry.h, builds it from) and its
# fields, of class cppestimators_hook_<kind> (by default) and
# cppestimators_hook; R finds hooks by class, and what differs between
# kinds is kept by the hook itself:
# - traits, set by its constructor through new_hook(): `training_only`
#   (refused by evaluate() and predict()), `runs_r_code` (its errors are
#   reported as the hook's), `roles` (what other hooks look for, such as
#   "evaluator", or "stops_training": it may end a training whose input
#   repeats forever), `r_only` (fields the engine does not read) and
#   `per_call` (its preparation reads more than its fields: an evaluator's
#   engine, evaluation files, another process's step; train() prepares it
#   afresh every call instead of reusing the last call's hooks);
# - S3 methods on its class for what must be prepared before the loop:
#   hook_prepare() (per-call settings, with the run's estimator and mode)
#   and hook_wait() (work before train() takes its model_dir lock).
# No function here or in the train/evaluate/predict files switches on kinds.

new_hook <- function(kind, fields, class = paste0("cppestimators_hook_", kind),
                     training_only = FALSE, runs_r_code = FALSE, roles = character(),
                     r_only = character(), per_call = FALSE) {
  structure(c(list(kind = kind), fields),
            class = c(class, "cppestimators_hook"),
            hook_traits = list(training_only = training_only, runs_r_code = runs_r_code,
                               roles = roles, r_only = r_only, per_call = per_call))
}

hook_trait <- function(hook, trait) attr(hook, "hook_traits", exact = TRUE)[[trait]]

hook_has_role <- function(hook, role) role %in% hook_trait(hook, "roles")

# The positions of the hooks among `hooks` with the role `role`.
hooks_with_role <- function(hooks, role) which(vapply(hooks, hook_has_role, TRUE, role = role))

# How many more steps a hook lets a training run (Inf: it sets no bound);
# a method on the class of a hook that bounds them.
hook_steps_left <- function(hook, step) UseMethod("hook_steps_left")

#' @export
hook_steps_left.default <- function(hook, step) Inf

# The positions of the hooks among `hooks` of class `class`, and whether
# there is one.
hooks_of_class <- function(hooks, class) which(vapply(hooks, inherits, TRUE, class))
has_hook_class <- function(hooks, class) length(hooks_of_class(hooks, class)) > 0L

# A hook's name for messages: hook_progress_bar, EstimatorSessionRunHook, ...
hook_label <- function(hook) sub("^cppestimators_", "", class(hook)[1])

#' @export
print.cppestimators_hook <- function(x, ...) {
  fields <- x[setdiff(names(x), c("kind", "position"))]
  shown_field <- function(v) is.function(v) || (is.atomic(v) && !is.null(v) && length(v) <= 3L)
  fields <- fields[vapply(fields, shown_field, TRUE)]
  shown <- vapply(fields, function(v) {
    if (is.function(v)) "<function>" else paste(format(v), collapse = ", ")
  }, "")
  cat(sprintf("<hook_%s%s>\n", x$kind,
              if (length(shown)) paste0(": ", paste(names(shown), shown, sep = " = ",
                                                    collapse = ", ")) else ""))
  invisible(x)
}

# Per-call preparation of a hook before the loop. `run` holds `object` (the
# estimator), `mode` ("train", "eval", "infer"), `label` and `steps` (for
# progress bars), `hooks` (every hook of the call) and `ptr` (the engine).
hook_prepare <- function(hook, run) UseMethod("hook_prepare")

#' @noRd
hook_prepare.default <- function(hook, run) hook

# Work a hook does after train()'s session ended (`run`: what the session
# returned, NULL when it was interrupted); returns a data frame of the
# exports it wrote (exporter, step, path), or NULL.
hook_finish <- function(hook, run) UseMethod("hook_finish")

#' @noRd
hook_finish.default <- function(hook, run) NULL

# The exports of every hook of a finished train() call (the table is
# built only when a hook exported something: data.frame() alone costs
# about 0.1 ms, a tenth of a short call).
finish_hooks <- function(hooks, run) {
  made <- lapply(hooks, function(h) hook_finish(h, run))
  made <- made[!vapply(made, is.null, TRUE)]
  if (!length(made)) return(no_exports)
  do.call(rbind, c(list(no_exports), made))
}

no_exports <- data.frame(exporter = character(), step = numeric(), path = character(),
                         stringsAsFactors = FALSE)

# Work a hook does before train() locks model_dir (waiting for another
# process); returns the hook as it should then run.
hook_wait <- function(hook, ptr, dir) UseMethod("hook_wait")

#' @noRd
hook_wait.default <- function(hook, ptr, dir) hook

# Hooks given by the user: a hook, or a list of hooks.
normalize_hooks <- function(hooks) {
  if (is.null(hooks)) return(list())
  if (inherits(hooks, "cppestimators_hook")) hooks <- list(hooks)
  if (!is.list(hooks)) {
    abort(paste0("`hooks` must be a list of hooks, not ", describe(hooks), "."))
  }
  for (i in seq_along(hooks)) {
    if (!inherits(hooks[[i]], "cppestimators_hook")) {
      abort(sprintf("Hooks must be a SessionRunHook, given: %s (element %d of `hooks`).",
                    describe(hooks[[i]]), i))
    }
  }
  hooks <- unname(hooks)
  for (i in seq_along(hooks)) hooks[[i]]$position <- i
  hooks
}

# Appends each default hook unless one of its class was given.
with_defaults <- function(hooks, defaults) {
  for (d in defaults) if (!has_hook_class(hooks, class(d)[1])) hooks <- c(hooks, list(d))
  hooks
}

# Hooks for evaluate() and predict(): training-only hooks are refused.
refuse_training_only <- function(hooks, where) {
  for (h in hooks) {
    if (isTRUE(hook_trait(h, "training_only"))) {
      does <- if (hook_has_role(h, "training_logger")) "logs training steps" else "evaluates during training"
      abort(sprintf("%s %s and cannot be used with %s; pass it to train().", hook_label(h), does, where))
    }
  }
  hooks
}

# Every hook prepared for a run (see hook_prepare()).
prepare_hooks <- function(hooks, object, mode, label, steps, ptr = NULL) {
  run <- list(object = object, mode = mode, label = label, steps = steps, hooks = hooks, ptr = ptr)
  lapply(hooks, function(h) hook_prepare(h, run))
}

# engine_hook_specs(), kept in the estimator's call cache for the next
# session of identical hooks (a train() loop, evaluate() with the same hooks).
cached_hook_specs <- function(object, hooks) memo(object, "hook_specs", hooks, engine_hook_specs)

# What the engine reads of each hook: the hook without its R-only fields.
engine_hook_specs <- function(hooks) {
  lapply(hooks, function(h) {
    drop <- c("position", hook_trait(h, "r_only"))
    out <- unclass(h)[setdiff(names(h), drop)]
    attr(out, "hook_traits") <- NULL
    out
  })
}

# The `every_n_iter` of a hook: a positive whole number, with TensorFlow's
# message ("invalid every_n_iter=0: ...").
check_every_n_iter <- function(x) {
  shown <- if (is.null(x)) "NULL" else paste(format(x), collapse = ",")
  check_count(x, "every_n_iter", message = sprintf(
    "invalid every_n_iter=%s: `every_n_iter` must be a positive whole number.", shown))
}
