# What glance() reports about training and the estimator cannot tell by
# itself: the loss of the last training step and the number of examples
# read since global step 0. train() notes them after each session; they
# live in the estimator's state environment (so saveRDS() keeps them) and
# stand for the global step they were noted at.

# Called by train() with the input it ran on and the session's result.
# `input_fn` is what the session read (an input_fn() object, or the function
# such an object returns); for another kind of function the examples of this
# session are unknown (NA) rather than calling it again.
note_training <- function(object, input_fn, run) {
  if (is.null(run) || !is.numeric(run$steps) || !isTRUE(run$steps > 0)) return(invisible())
  start <- run$global_step - run$steps
  before <- if (start == 0) 0 else {
    prev <- object$state$training_record
    if (!is.null(prev) && identical(prev$global_step, start)) prev$examples_seen else NA_real_
  }
  object$state$training_record <- list(
    global_step = run$global_step,
    loss = last_loss(run),
    examples_seen = before + session_examples(input_fn, run$steps)
  )
  invisible()
}

# The training loss of the session's last step as the history has it (the
# history saver records the last step of every run), else the engine's.
last_loss <- function(run) {
  h <- run$history
  n <- length(h$steps)
  if (n > 0L && identical(as.numeric(h$steps[n]), as.numeric(run$global_step))) {
    return(as.numeric(h$total_losses[n]))
  }
  as.numeric(run$loss %||% NA_real_)
}

# Rows a session of `steps` batches read: batches cross epoch boundaries, so
# every batch is full but the last one of the whole input.
session_examples <- function(input_fn, steps) {
  input <- if (inherits(input_fn, "cppestimators_input_fn")) input_fn else attr(input_fn, "input_fn")
  if (!inherits(input, "cppestimators_input_fn")) return(NA_real_)
  batch <- as.numeric(input$batch_size)
  feats <- input$features
  if (length(feats) == 0L || length(batch) != 1L) return(NA_real_)
  rows <- as.numeric(NROW(feats[[1]]))
  epochs <- input$num_epochs
  full <- steps * batch
  if (is.null(epochs)) full else min(full, rows * as.numeric(epochs))
}

# The record if it stands for the estimator's current global step, else NULL.
training_record <- function(object, global_step) {
  rec <- object$state$training_record
  if (is.null(rec) || !identical(as.numeric(rec$global_step), as.numeric(global_step))) return(NULL)
  rec
}
