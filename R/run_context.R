# The R face of a running session, handed to R closure hooks: a session with
# a graph (named tensor collections) and run(), and a run context whose stop
# flag lives in the engine. All are made once per session. The session and
# the context have classes (for print() and inherits()) but not R's object
# bit, and the graph, like the run values, is a plain environment: `$` on
# any of them needs no S3 dispatch.

tensor <- function(name) structure(list(name = name), class = "cppestimators_tensor")

#' @export
print.cppestimators_tensor <- function(x, ...) {
  cat(sprintf("<tensor '%s'>\n", x$name))
  invisible(x)
}

session_modes <- c("train", "eval", "infer")

new_graph <- function(mode) {
  check_choice(mode, "mode", session_modes)
  graph <- new.env(parent = emptyenv())
  # built once per session: hooks typically ask for them on every step
  losses <- switch(mode,
    train = list(tensor("per_example_loss"), tensor("loss"), tensor("loss")),
    eval = list(tensor("per_example_loss"), tensor("loss")),
    infer = list())
  global_step <- list(tensor("global_step"))
  graph$get_collection <- function(name) {
    # primitives only on the way to a collection: hooks call this every step
    if (identical(name, "losses")) return(losses)
    if (is.character(name) && length(name) == 1L && is.null(attributes(name)) && !is.na(name)) {
      if (name == "losses") return(losses)
      if (name == "global_step") return(global_step)
    }
    check_string(name, "name", empty_ok = TRUE, message = "`name` must be a collection name such as \"losses\".")
    list()
  }
  graph$get_tensor_by_name <- function(name) tensor(name)
  # no class: `$` on an object with a class goes through S3 dispatch, and
  # hooks read context$session$graph$get_collection every step
  graph
}

new_r_session <- function(ses, mode) {
  s <- new.env(parent = emptyenv())
  s$graph <- new_graph(mode)
  s$run <- function(fetches, ...) {
    if (inherits(fetches, "cppestimators_session_run_args")) fetches <- fetches$fetches
    check_fetches(fetches)
    cpp_session_fetch(ses, fetches)
  }
  # classed for print() and inherits(), without the object bit: `$` on it
  # (context$session$graph, every step of a hook) needs no S3 dispatch
  cpp_without_dispatch(structure(s, class = "cppestimators_session"))
}

new_run_context <- function(ses, r_session) {
  ctx <- new.env(parent = emptyenv())
  ctx$session <- r_session
  ctx$original_args <- session_run_args(loss = tensor("loss"))
  ctx$request_stop <- function() invisible(cpp_session_request_stop(ses))
  makeActiveBinding("stop_requested", function() cpp_session_stop_requested(ses), ctx)
  cpp_without_dispatch(structure(ctx, class = "cppestimators_run_context"))
}

#' @export
print.cppestimators_session <- function(x, ...) {
  cat("<session>\n")
  invisible(x)
}

#' @export
print.cppestimators_run_context <- function(x, ...) {
  cat(sprintf("<run context: stop_requested = %s>\n", format(x$stop_requested)))
  invisible(x)
}
