#' Progress bar hook
#'
#' Shows training or evaluation progress:
#' `Training 2/2 [=====] - ETA:  0s - loss: 3136.10` (the loss is the batch's
#' summed loss, rounded to 2 decimals). In an interactive session the bar is
#' redrawn in place at most about 10 times a second; elsewhere (Rscript,
#' knitr, tests) only its final line is printed, once. Without a known number
#' of steps it shows a spinner and the step count. When fewer steps ran than
#' were asked for, a message says so.
#'
#' The bar goes to stderr, as the progress and cli packages draw theirs:
#' stdout belongs to the user's code, so `capture.output(train(...))` holds
#' only what the user's own hooks print. `options(cppestimators.progress =
#' FALSE)` silences every bar (the message about fewer steps stays).
#'
#' `train()` and `evaluate()` add one by default.
#'
#' @return A hook, for the `hooks` argument of [train()], [evaluate()] or
#'   [predict()].
#' @family hooks
#' @export
#' @examples
#' fcs <- feature_columns(column_numeric("drat"))
#' input <- input_fn(mtcars, response = "mpg", features = "drat", batch_size = 8L)
#' est <- linear_regressor(feature_columns = fcs)
#' train(est, input_fn = input, steps = 2, hooks = list(hook_progress_bar()))
hook_progress_bar <- function() {
  new_hook("progress_bar", list(), roles = "shows_progress")
}

#' @noRd
hook_prepare.cppestimators_hook_progress_bar <- function(hook, run) {
  hook$draw <- progress_enabled()
  hook$label <- run$label
  if (!"total" %in% names(hook)) hook["total"] <- list(run$steps)
  hook
}

# options(cppestimators.progress): FALSE silences progress bars.
progress_enabled <- function() {
  p <- getOption("cppestimators.progress", TRUE)
  check_flag(p, "cppestimators.progress",
             message = paste0("options(cppestimators.progress =) must be TRUE or FALSE, not ", describe(p), "."))
}
