#' Tensor logging hook
#'
#' Logs the values of tensors through [message()] every `every_n_iter` local
#' iterations (the first run always logs: iterations 1, N+1, 2N+1, ...) or
#' every `every_n_secs` seconds, and/or once at the end. The default line is
#' `loss = 96.96749, step = 1`, followed by ` (0.124 sec)` after the first.
#'
#' @param tensors Tensor names (or handles): a named list or character vector
#'   (names are the tags, logged in alphabetical order), or an unnamed one
#'   (each name is its own tag; order kept), e.g. `list("global_step")` or
#'   `list(loss = "loss", step = "global_step")`.
#' @param every_n_iter Log every this many local iterations.
#' @param every_n_secs Log every this many seconds.
#' @param formatter `NULL`, or a function of the named list of values (and,
#'   when it takes two arguments, the seconds since the last log) returning
#'   the line to log.
#' @param at_end Also log once when the session ends.
#' @inherit hook_progress_bar return
#' @family hooks
#' @export
#' @examples
#' fcs <- feature_columns(column_numeric("drat"))
#' input <- input_fn(mtcars, response = "mpg", features = "drat", batch_size = 8L)
#' est <- linear_regressor(feature_columns = fcs)
#' train(est, input_fn = input, steps = 3,
#'       hooks = list(hook_logging_tensor(list(loss = "loss", step = "global_step"),
#'                                        every_n_iter = 2)))
hook_logging_tensor <- function(tensors, every_n_iter = NULL, every_n_secs = NULL,
                                formatter = NULL, at_end = FALSE) {
  if (missing(tensors) || !(is.list(tensors) || is.character(tensors)) || length(tensors) == 0L) {
    abort("`tensors` must be a non-empty list or character vector of tensor names.")
  }
  names_of <- vapply(as.list(tensors), function(t) {
    if (inherits(t, "cppestimators_tensor")) return(t$name)
    if (is.character(t) && is_single(t)) return(t)
    abort(paste0("`tensors` must hold tensor names or handles, not ", describe(t), "."))
  }, "")
  tags <- names(tensors)
  if (is.null(tags) || all(!nzchar(tags))) {
    tags <- names_of
  } else {
    if (any(!nzchar(tags))) abort("`tensors`: either name every tensor or none.")
    ord <- order(tags, method = "radix")
    tags <- tags[ord]
    names_of <- names_of[ord]
  }
  check_flag(at_end, "at_end")
  only_at_end <- isTRUE(at_end) && is.null(every_n_iter) && is.null(every_n_secs)
  if (!only_at_end && (is.null(every_n_iter) == is.null(every_n_secs))) {
    abort("either at_end and/or exactly one of every_n_iter and every_n_secs must be provided.")
  }
  if (!is.null(every_n_iter)) every_n_iter <- check_every_n_iter(every_n_iter)
  every_n_secs <- check_seconds(every_n_secs, "every_n_secs")
  check_function(formatter, "formatter")
  fmt <- NULL
  if (!is.null(formatter)) {
    two_args <- length(formals(formatter)) >= 2L || "..." %in% names(formals(formatter))
    fmt <- if (two_args) formatter else function(values, elapsed) formatter(values)
  }
  new_hook("logging_tensor", list(tags = tags, names = names_of, every_n_iter = every_n_iter,
                                  every_n_secs = every_n_secs, at_end = isTRUE(at_end),
                                  formatter = fmt),
           runs_r_code = TRUE)
}
