new_history <- function(h, model_dir = NULL, evaluations = NULL, exports = NULL) {
  h <- h %||% list(mean_losses = numeric(), total_losses = numeric(), steps = numeric())
  structure(
    list(losses = list(mean_losses = h$mean_losses, total_losses = h$total_losses),
         step = h$steps,
         params = list(metrics = c("mean_losses", "total_losses"),
                       steps = if (length(h$steps)) h$steps[length(h$steps)] else 0),
         evaluations = evaluations,
         evaluation_metrics = last_evaluation(evaluations),
         model_dir = model_dir,
         exports = exports),
    class = "tf_estimator_history"
  )
}

#' Training history
#'
#' `train()` returns a history of the losses its history saver recorded:
#' `mean_losses` (mean per-example loss of the batch) and `total_losses`
#' (their sum, the batch's training loss), at global steps; with a
#' `weight_column`, `sum(w * loss) / sum(w)` and `sum(w * loss)`. Evaluations made
#' during training ([hook_in_memory_evaluator()], [train_and_evaluate()]) join
#' it as metrics `eval_<metric>` (`eval_loss`, `eval_average_loss`,
#' `eval_accuracy`, ...) at the steps they were computed.
#'
#' * `as.data.frame()` is long, as in tfestimators and keras: one row per
#'   metric and step, with columns `step`, `metric` and `value`, training
#'   metrics first.
#' * `print()` shows the wide table of the seed (one row per step; a column
#'   per metric, `steps` after the training losses); of a table of more than
#'   20 rows, the first and last rows (10 in all, or `n`) and a count of the
#'   rows left out, as a tibble does.
#' * `plot()` draws one panel per metric against the global step: with
#'   ggplot2 when it is installed (`method = "auto"`), base graphics
#'   otherwise. Evaluation losses are drawn as points on the panel of their
#'   training counterpart (`eval_average_loss` with `mean_losses`,
#'   `eval_loss` with `total_losses`), together with the evaluation summaries
#'   of the model directory (from [evaluate()]) within the history's steps;
#'   the axes cover every point, except the first evaluation (of the model
#'   before training, usually) when it lies far outside the rest of its panel:
#'   it is then drawn at the panel's edge as a triangle labelled with its
#'   value, so that it does not flatten the curves.
#' * `predict()`, `evaluate()` and `train()` of a history are errors saying
#'   to call them on the estimator: `est <- linear_regressor(...) %>%
#'   train(...)` keeps the history, not the estimator, in `est`.
#'
#' @param x A history returned by [train()].
#' @param row.names,optional Unused; for compatibility with the generic.
#' @param y Unused.
#' @param metrics The metrics to plot (names as in `as.data.frame()`);
#'   default: the training losses and every evaluation metric other than the
#'   losses drawn with them, leaving out metrics that never change (such as
#'   `eval_label/mean`).
#' @param n `print()`: how many rows to show (`Inf` for all); default: all of
#'   a table of up to 20 rows, otherwise 10.
#' @param method `"auto"` (ggplot2 when installed), `"ggplot2"` or `"base"`.
#' @param smooth Draw a smoothed line through a training curve of ten or
#'   more points (ggplot2 only).
#' @param ... Passed to the underlying print or plot function.
#' @return `as.data.frame()`: a data frame with columns `step`, `metric` and
#'   `value`. `print()` returns `x` invisibly; `plot()` returns the ggplot
#'   object, or `x` invisibly for base graphics.
#' @name training_history
#' @family training history
#' @examples
#' fcs <- feature_columns(column_numeric("drat"))
#' input <- input_fn(mtcars, response = "mpg", features = "drat", batch_size = 8L)
#' history <- train(linear_regressor(feature_columns = fcs), input_fn = input,
#'                  steps = 4, hooks = list(hook_history_saver(every_n_step = 2)))
#' history
#' as.data.frame(history)
#' plot(history, method = "base")
NULL

# The wide table: one row per recorded or evaluated step.
history_table <- function(x) {
  df <- data.frame(mean_losses = as.numeric(x$losses$mean_losses),
                   total_losses = as.numeric(x$losses$total_losses),
                   steps = as.numeric(x$step))
  ev <- x$evaluations
  if (is.null(ev) || nrow(ev) == 0L) return(df)
  out <- merge(df, ev, by = "steps", all = TRUE, sort = TRUE)
  out[, c("mean_losses", "total_losses", "steps", setdiff(names(ev), "steps")), drop = FALSE]
}

#' @rdname training_history
#' @export
as.data.frame.tf_estimator_history <- function(x, row.names = NULL, optional = FALSE, ...) {
  wide <- history_table(x)
  metrics <- setdiff(names(wide), "steps")
  parts <- lapply(metrics, function(m) {
    keep <- !is.na(wide[[m]])
    data.frame(step = wide$steps[keep], metric = rep(m, sum(keep)), value = as.numeric(wide[[m]][keep]),
               stringsAsFactors = FALSE)
  })
  out <- do.call(rbind, c(parts, list(data.frame(step = numeric(), metric = character(), value = numeric(),
                                                 stringsAsFactors = FALSE))))
  rownames(out) <- NULL
  out
}

last_evaluation <- function(ev) {
  if (is.null(ev) || nrow(ev) == 0L) return(NULL)
  last <- ev[nrow(ev), , drop = FALSE]
  c(as.list(last[setdiff(names(last), "steps")]), list(step = last$steps))
}

#' @rdname training_history
#' @export
print.tf_estimator_history <- function(x, n = NULL, ...) {
  df <- history_table(x)
  if (nrow(df) == 0L) {
    cat("<empty training history: no steps ran>\n")
    return(invisible(x))
  }
  total <- nrow(df)
  if (is.null(n)) n <- if (total > 20L) 10L else total
  if (!is.numeric(n) || !is_single(n) || is.na(n) || n < 1 || (is.finite(n) && n != floor(n))) {
    abort(paste0("`n` must be a whole number of rows >= 1 (or Inf), not ", describe(n), "."))
  }
  if (n >= total) {
    print(df, ...)
    return(invisible(x))
  }
  head_n <- ceiling(n / 2)
  tail_n <- n - head_n
  rows <- c(seq_len(head_n), if (tail_n > 0) seq(total - tail_n + 1L, total))
  shown <- format(df[rows, , drop = FALSE])
  gap <- as.data.frame(as.list(rep("...", ncol(shown))), col.names = names(shown), check.names = FALSE)
  out <- rbind(shown[seq_len(head_n), , drop = FALSE], gap,
               shown[-seq_len(head_n), , drop = FALSE])
  rownames(out) <- c(rows[seq_len(head_n)], "...", rows[-seq_len(head_n)])
  print(out, right = TRUE, ...)
  cat(sprintf("# %d more rows (%d to %d) left out; print(x, n = Inf) shows all %d\n",
              total - n, head_n + 1L, total - tail_n, total))
  invisible(x)
}

#' @rdname training_history
#' @export
plot.tf_estimator_history <- function(x, y, metrics = NULL, method = c("auto", "ggplot2", "base"),
                                      smooth = getOption("cppestimators.plot.smooth", TRUE), ...) {
  method <- if (missing(method)) "auto" else check_choice(method, "method", c("auto", "ggplot2", "base"))
  check_flag(smooth, "smooth")
  df <- as.data.frame(x)
  df <- df[is.finite(df$value), , drop = FALSE]
  if (!any(df$metric %in% c("mean_losses", "total_losses"))) {
    abort("the history is empty: no steps ran.")
  }
  df <- rbind(df, eval_points(x, df))
  pts <- plot_points(df, metrics)
  if (method == "auto") method <- if (requireNamespace("ggplot2", quietly = TRUE)) "ggplot2" else "base"
  if (method == "ggplot2") {
    if (!requireNamespace("ggplot2", quietly = TRUE)) {
      abort("method = \"ggplot2\" needs the ggplot2 package; install it or use method = \"base\".")
    }
    return(plot_history_ggplot(pts, smooth))
  }
  plot_history_base(pts, ...)
  invisible(x)
}

# Which panel each evaluation metric joins: its training counterpart's.
eval_partner <- c(eval_average_loss = "mean_losses", eval_loss = "total_losses")

# The points to draw: step, value, panel, series ("training" or "evaluation").
plot_points <- function(df, metrics) {
  known <- unique(df$metric)
  default <- is.null(metrics)
  if (default) {
    metrics <- c(intersect(c("mean_losses", "total_losses"), known),
                 setdiff(known, c("mean_losses", "total_losses", names(eval_partner))))
  }
  if (!is.character(metrics) || anyNA(metrics)) {
    abort(paste0("`metrics` must be a character vector of metric names, not ", describe(metrics), "."))
  }
  unknown <- setdiff(metrics, known)
  if (length(unknown)) {
    abort(sprintf("`metrics`: no metric %s in the history (it has %s).",
                  paste0("'", unknown, "'", collapse = ", "), paste0("'", known, "'", collapse = ", ")))
  }
  if (default) {
    varies <- vapply(metrics, function(m) {
      v <- df$value[df$metric == m]
      length(v) < 2L || diff(range(v)) > 0
    }, TRUE)
    if (any(varies)) metrics <- metrics[varies]
  }
  panel <- ifelse(df$metric %in% names(eval_partner), eval_partner[df$metric], df$metric)
  keep <- panel %in% metrics
  out <- data.frame(step = df$step[keep], value = df$value[keep],
                    panel = factor(panel[keep], levels = metrics),
                    series = ifelse(grepl("^eval_", df$metric[keep]), "evaluation", "training"),
                    metric = df$metric[keep], stringsAsFactors = FALSE)
  out <- out[order(out$panel, out$series, out$step), , drop = FALSE]
  rownames(out) <- NULL
  off_scale_first_evaluation(out)
}

# The first evaluation of a metric (usually of the untrained model, at step
# 0) far outside the other points of its panel is drawn at the panel's edge:
# `shown` is where a point is drawn, `off_scale` marks those moved there.
off_scale_first_evaluation <- function(pts) {
  pts$shown <- pts$value
  pts$off_scale <- rep(FALSE, nrow(pts))
  for (p in levels(pts$panel)) {
    rows <- which(pts$panel == p)
    ev <- rows[pts$series[rows] == "evaluation"]
    first <- ev[!duplicated(pts$metric[ev])]  # sorted by step within a metric
    first <- first[vapply(first, function(i) sum(pts$metric[ev] == pts$metric[i]) >= 3L, TRUE)]
    rest <- setdiff(rows, first)
    if (length(first) == 0L || length(rest) < 2L) next
    lim <- range(pts$value[rest])
    span <- max(diff(lim), abs(mean(lim)) * 0.01, .Machine$double.eps)
    for (i in first) {
      v <- pts$value[i]
      if (v > lim[2] + span) pts$shown[i] <- lim[2] + 0.05 * span
      else if (v < lim[1] - span) pts$shown[i] <- lim[1] - 0.05 * span
      else next
      pts$off_scale[i] <- TRUE
    }
  }
  pts
}

plot_history_base <- function(pts, ...) {
  panels <- levels(pts$panel)
  old <- graphics::par(mfrow = c(length(panels), 1), mar = c(4, 4, 1.5, 1))
  on.exit(graphics::par(old))
  xlim <- range(pts$step)  # every panel, every point
  for (p in panels) {
    tr <- pts[pts$panel == p & pts$series == "training", , drop = FALSE]
    ev <- pts[pts$panel == p & pts$series == "evaluation", , drop = FALSE]
    ylim <- range(c(tr$shown, ev$shown))
    graphics::plot(tr$step, tr$shown, type = if (nrow(tr)) "o" else "n", pch = 20, xlab = "global step",
                   ylab = p, main = p, xlim = xlim, ylim = ylim, ...)
    if (nrow(ev)) {
      graphics::points(ev$step, ev$shown, pch = ifelse(ev$off_scale, 2, 4), col = "red", cex = 1.2)
      off <- ev[ev$off_scale, , drop = FALSE]
      if (nrow(off)) graphics::text(off$step, off$shown, off_scale_label(off$value), pos = 4, cex = 0.8,
                                    col = "red", xpd = NA)
      graphics::legend("topright", legend = c(if (nrow(tr)) "training", "evaluation"),
                       pch = c(if (nrow(tr)) 20, 4), col = c(if (nrow(tr)) "black", "red"), bty = "n")
    }
  }
}

plot_history_ggplot <- function(pts, smooth) {
  gg <- asNamespace("ggplot2")
  tr <- pts[pts$series == "training", , drop = FALSE]
  off <- pts[pts$off_scale, , drop = FALSE]
  on <- pts[!pts$off_scale, , drop = FALSE]
  p <- gg$ggplot(pts, gg$aes(x = .data$step, y = .data$shown, colour = .data$series, shape = .data$series)) +
    gg$geom_point(data = on, size = 1.8) +
    gg$facet_wrap(~panel, ncol = 1, scales = "free_y") +
    gg$scale_colour_manual(values = c(training = "#1f4e79", evaluation = "#c0392b")) +
    gg$scale_shape_manual(values = c(training = 16, evaluation = 4)) +
    gg$labs(x = "global step", y = NULL, colour = NULL, shape = NULL) +
    gg$theme_minimal()
  if (nrow(tr)) {
    p <- p + gg$geom_line(data = tr, alpha = if (smooth && nrow(tr) >= 10) 0.35 else 1)
    if (smooth && nrow(tr) >= 10) {
      p <- p + gg$geom_smooth(data = tr, method = "loess", formula = y ~ x, se = FALSE)
    }
  }
  if (nrow(off)) {
    off$label <- off_scale_label(off$value)
    p <- p + gg$geom_point(data = off, shape = 2, size = 2.2, show.legend = FALSE) +
      gg$geom_text(data = off, gg$aes(label = .data$label), hjust = -0.15, size = 3, show.legend = FALSE)
  }
  p
}

off_scale_label <- function(value) paste0(vapply(signif(value, 4), format, ""), " (off scale)")

# Evaluation summaries of the history's model directory (evaluate() calls)
# within the history's steps, as eval_<tag> rows not already in `df`.
eval_points <- function(x, df) {
  none <- data.frame(step = numeric(), metric = character(), value = numeric(), stringsAsFactors = FALSE)
  dir <- x$model_dir
  if (is.null(dir) || !dir.exists(dir)) return(none)
  runs <- list.dirs(dir, recursive = FALSE)
  runs <- runs[grepl("^eval", basename(runs))]
  if (length(runs) == 0L) return(none)
  ev <- do.call(rbind, lapply(runs, function(r) read_summaries(r)[, c("step", "tag", "value")]))
  if (is.null(ev) || nrow(ev) == 0L) return(none)
  steps <- range(df$step[df$metric %in% c("mean_losses", "total_losses")])
  ev <- ev[ev$tag %in% c("loss", "average_loss") & ev$step >= steps[1] & ev$step <= steps[2], , drop = FALSE]
  out <- data.frame(step = as.numeric(ev$step), metric = paste0("eval_", ev$tag), value = as.numeric(ev$value),
                    stringsAsFactors = FALSE)
  known <- paste(df$step, df$metric)
  out <- out[!duplicated(paste(out$step, out$metric)) & !paste(out$step, out$metric) %in% known, , drop = FALSE]
  rownames(out) <- NULL
  out
}
