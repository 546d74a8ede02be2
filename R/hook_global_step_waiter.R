#' Global step waiter
#'
#' Before the first step, waits until the global step reaches
#' `wait_until_step`: the session's own global step, or that of the latest
#' checkpoint in the estimator's `model_dir`, which another R process
#' training into the same directory advances. It polls every half second,
#' logs `Waiting for global step <n> before starting training.`, and can be
#' interrupted (Ctrl-C), which ends the session in order.
#'
#' @param wait_until_step Global step to wait for; 0 or less starts at once.
#' @inherit hook_progress_bar return
#' @family hooks
#' @export
#' @examples
#' hook_global_step_waiter(wait_until_step = 0)
hook_global_step_waiter <- function(wait_until_step) {
  if (missing(wait_until_step)) abort("`wait_until_step` must not be NULL.")
  new_hook("global_step_waiter",
           list(wait_until_step = check_whole(wait_until_step, "wait_until_step", min = -Inf,
                                              null_ok = FALSE)),
           per_call = TRUE)
}

# The steps of another process count: the latest checkpoint in model_dir.
#' @noRd
hook_prepare.cppestimators_hook_global_step_waiter <- function(hook, run) {
  hook["model_dir"] <- list(run$object$spec$model_dir)
  hook
}

# train() waits here, before taking the model_dir lock, for another process
# training the same directory; the hook then starts at once.
#' @noRd
hook_wait.cppestimators_hook_global_step_waiter <- function(hook, ptr, dir) {
  if (hook$wait_until_step <= 0) return(hook)
  current <- function() max(cpp_estimator_global_step(ptr), cpp_checkpoint_global_step(dir))
  if (current() >= hook$wait_until_step) return(hook)
  message(sprintf("Waiting for global step %s before starting training.", format(hook$wait_until_step)))
  while (current() < hook$wait_until_step) Sys.sleep(0.5)
  hook$wait_until_step <- 0
  hook
}
