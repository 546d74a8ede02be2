#' NaN loss monitor
#'
#' Checks the loss after every step. On NaN (or an infinite loss, which would
#' otherwise leave the weights frozen) it either stops training with the
#' error `NaN loss during training at global step S (last finite loss: L).`,
#' or, with `fail_on_nan_loss = FALSE`, logs and stops softly after that step
#' (the session ends normally: final checkpoint, history). A step whose loss
#' is not finite never updates the weights, so no NaN reaches a checkpoint.
#'
#' `train()` adds a failing NaN check unless a `hook_nan_tensor()` is given,
#' so passing `hook_nan_tensor(fail_on_nan_loss = FALSE)` replaces it.
#'
#' @param loss_tensor Name of the tensor to watch.
#' @param fail_on_nan_loss `TRUE` to fail, `FALSE` to stop softly.
#' @inherit hook_progress_bar return
#' @family hooks
#' @export
#' @examples
#' hook_nan_tensor(fail_on_nan_loss = FALSE)
hook_nan_tensor <- function(loss_tensor = "loss", fail_on_nan_loss = TRUE) {
  if (inherits(loss_tensor, "cppestimators_tensor")) loss_tensor <- loss_tensor$name
  check_string(loss_tensor, "loss_tensor", must = "a tensor name such as \"loss\"")
  check_flag(fail_on_nan_loss, "fail_on_nan_loss")
  new_hook("nan_tensor", list(loss_tensor = loss_tensor, fail_on_nan_loss = fail_on_nan_loss), roles = "checks_nan")
}
