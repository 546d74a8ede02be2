new_history <- function(h, model_dir = NULL, evaluations = NULL) {
  h <- h %||% list(mean_losses = numeric(), total_losses = numeric(), steps = numeric())
  structure(
    list(losses = list(mean_losses = h$mean_losses, total_losses = h$total_losses),
         step = h$steps,
         params = list(metrics = c("mean_losses", "total_losses"),
                       steps = if (length(h$steps)) h$steps[length(h$steps)] else 0),
         evaluations = evaluations,
         evaluation_metrics = last_evaluation(evaluations),
         model_dir = model_dir),
    class = "tf_estimator_history"
  )
}

#' Training history
#'
#' `train()` returns a history of the losses its history saver recorded:
#' `mean_losses` (mean per-example loss of the batch), `total_losses` (their
#' sum, the batch's training loss) and `steps` (the global step).
#' `as.data.frame()` gives one row per record, with the results of
#' evaluations made during training ([hook_in_memory_evaluator()],
#' [train_and_evaluate()]) as extra `eval_<metric>` columns at the steps they
#' were computed (rows are added for evaluation steps without a training
#' record, such as step 0); `print()` shows that table;
#' `plot()` draws both curves against the global step and, when the model
#' directory holds evaluation summaries (from [evaluate()] or evaluation
#' during training) within the history's steps, overlays them as points:
#' evaluation `average_loss` on the `mean_losses` panel and `loss` on the
#' `total_losses` panel.
#'
#' @param x A history returned by [train()].
#' @param row.names,optional Unused; for compatibility with the generic.
#' @param y Unused.
#' @param ... Passed to the underlying print or plot function.
#' @return `as.data.frame()`: a data frame with columns `mean_losses`,
#'   `total_losses` and `steps`. `print()` and `plot()` return `x` invisibly.
#' @name training_history
#' @examples
#' fcs <- feature_columns(column_numeric("drat"))
#' input <- input_fn(mtcars, response = "mpg", features = "drat", batch_size = 8L)
#' history <- train(linear_regressor(feature_columns = fcs), input_fn = input,
#'                  steps = 4, hooks = list(hook_history_saver(every_n_step = 2)))
#' as.data.frame(history)
#' plot(history)
NULL

#' @rdname training_history
#' @export
as.data.frame.tf_estimator_history <- function(x, row.names = NULL, optional = FALSE, ...) {
  df <- data.frame(mean_losses = as.numeric(x$losses$mean_losses),
                   total_losses = as.numeric(x$losses$total_losses),
                   steps = as.numeric(x$step))
  ev <- x$evaluations
  if (is.null(ev) || nrow(ev) == 0L) return(df)
  out <- merge(df, ev, by = "steps", all = TRUE, sort = TRUE)
  out[, c("mean_losses", "total_losses", "steps", setdiff(names(ev), "steps")), drop = FALSE]
}

last_evaluation <- function(ev) {
  if (is.null(ev) || nrow(ev) == 0L) return(NULL)
  last <- ev[nrow(ev), , drop = FALSE]
  c(as.list(last[setdiff(names(last), "steps")]), list(step = last$steps))
}

#' @rdname training_history
#' @export
print.tf_estimator_history <- function(x, ...) {
  df <- as.data.frame(x)
  if (nrow(df) == 0L) cat("<empty training history: no steps ran>\n") else print(df, ...)
  invisible(x)
}

#' @rdname training_history
#' @export
plot.tf_estimator_history <- function(x, y, ...) {
  df <- as.data.frame(x)[, c("mean_losses", "total_losses", "steps")]
  df <- df[is.finite(df$mean_losses), , drop = FALSE]
  if (nrow(df) == 0L) stop("the history is empty: no steps ran.", call. = FALSE)
  ev <- eval_points(x, range(df$steps))
  old <- graphics::par(mfrow = c(2, 1), mar = c(4, 4, 1.5, 1))
  on.exit(graphics::par(old))
  panel <- function(y, name, eval_tag) {
    pts <- ev[ev$tag == eval_tag, , drop = FALSE]
    if (!any(is.finite(c(y, pts$value)))) return(invisible())
    ylim <- range(c(y, pts$value), finite = TRUE)
    graphics::plot(df$steps, y, type = "o", pch = 20, xlab = "global step", ylab = name,
                   main = name, ylim = ylim, ...)
    if (nrow(pts)) {
      graphics::points(pts$step, pts$value, pch = 4, col = "red", cex = 1.2)
      graphics::legend("topright", legend = c("training", paste("evaluation", eval_tag)),
                       pch = c(20, 4), col = c("black", "red"), bty = "n")
    }
  }
  panel(df$mean_losses, "mean_losses", "average_loss")
  panel(df$total_losses, "total_losses", "loss")
  invisible(x)
}

# Evaluation summaries of the history's model directory within `steps`.
eval_points <- function(x, steps) {
  none <- data.frame(step = numeric(), tag = character(), value = numeric())
  dir <- x$model_dir
  if (is.null(dir) || !dir.exists(dir)) return(none)
  runs <- list.dirs(dir, recursive = FALSE)
  runs <- runs[grepl("^eval", basename(runs))]
  if (length(runs) == 0L) return(none)
  ev <- do.call(rbind, lapply(runs, function(r) read_summaries(r)[, c("step", "tag", "value")]))
  if (is.null(ev)) return(none)
  ev[ev$step >= steps[1] & ev$step <= steps[2], , drop = FALSE]
}
