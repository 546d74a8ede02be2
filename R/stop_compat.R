# Compatibility until every file raises its errors with abort(): inside the
# package this stop() masks base::stop() so that the errors of the files not
# yet converted (hooks.R, hook_*.R, train.R, train_and_evaluate.R,
# evaluation.R, early_stopping.R, model_dir.R) still carry the class
# "cppestimators_error". New code calls abort(). A condition object is
# re-signalled with the package's class added.
stop <- function(..., call. = TRUE, domain = NULL) {
  args <- list(...)
  if (length(args) == 1L && inherits(args[[1L]], "condition")) abort(args[[1L]])
  abort(.makeMessage(..., domain = domain), call = if (isTRUE(call.)) sys.call(-1L))
}
