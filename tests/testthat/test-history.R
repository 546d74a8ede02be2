test_that("the history prints the seed's wide table and converts to a long data frame", {
  h <- quietly(train(drat_regressor(), mtcars_input(), steps = 4,
                     hooks = list(hook_history_saver(every_n_step = 2))))
  expect_s3_class(h, "tf_estimator_history")
  out <- utils::capture.output(print(h))
  expect_equal(out[1], "  mean_losses total_losses steps")
  expect_match(out[2], "^1 +[0-9]+\\.[0-9]+ +[0-9]+\\.[0-9]+ +2$")
  expect_match(out[3], "^2 +[0-9]+\\.[0-9]+ +[0-9]+\\.[0-9]+ +4$")
  df <- as.data.frame(h)
  expect_named(df, c("step", "metric", "value"))
  expect_equal(df$step, c(2, 4, 2, 4))
  expect_equal(df$metric, c("mean_losses", "mean_losses", "total_losses", "total_losses"))
  # squared mpg errors from a near-zero model: hundreds per example; the total is 8 of them
  expect_true(all(df$value[1:2] > 50 & df$value[1:2] < 1000))
  expect_equal(df$value[3:4], 8 * df$value[1:2], tolerance = 1e-5)
  # as tfestimators' tests: one step gives 2 rows; 10 steps recorded every 2 give 12
  expect_equal(nrow(as.data.frame(quietly(train(drat_regressor(), mtcars_input(), steps = 1)))), 2)
  h10 <- quietly(train(drat_regressor(), mtcars_input(num_epochs = NULL), steps = 10,
                       hooks = list(hook_history_saver(every_n_step = 2))))
  expect_equal(nrow(as.data.frame(h10)), 10)  # records at 2, 4, 6, 8, 10 (the seed's rule)
})

test_that("evaluations during training join the long history as eval_<metric>", {
  est <- x_regressor()
  h <- quietly(train(est, x_input(), steps = 10,
                     hooks = list(hook_history_saver(5),
                                  hook_in_memory_evaluator(est, x_input(num_epochs = 1), every_n_iter = 5))))
  df <- as.data.frame(h)
  expect_true(all(c("eval_loss", "eval_average_loss", "eval_label/mean") %in% df$metric))
  expect_equal(df$step[df$metric == "eval_loss"], c(0, 5, 10))
  expect_equal(df$metric[1:2], c("mean_losses", "mean_losses"))  # training metrics first
  expect_equal(wide(h)$eval_loss[wide(h)$steps == 10], df$value[df$metric == "eval_loss" & df$step == 10])
})

test_that("plot() draws with base graphics or ggplot2, every evaluation point in range", {
  est <- x_regressor()
  h <- quietly(train(est, x_input(), steps = 12,
                     hooks = list(hook_history_saver(2),
                                  hook_in_memory_evaluator(est, x_input(num_epochs = 1), every_n_iter = 6))))
  f <- tempfile(fileext = ".png")
  grDevices::png(f)
  expect_invisible(plot(h, method = "base"))
  # the step-0 evaluation sits inside the x range of the panels
  expect_equal(graphics::par("usr")[1] <= 0, TRUE)
  grDevices::dev.off()
  expect_gt(file.size(f), 1000)
  pts <- cppestimators:::plot_points(rbind(as.data.frame(h)), NULL)
  # eval_label/mean never changes: no panel for it
  expect_equal(levels(pts$panel), c("mean_losses", "total_losses", "eval_prediction/mean"))
  expect_equal(sort(unique(pts$step[pts$series == "evaluation"])), c(0, 6, 12))
  expect_error(plot(h, metrics = "accuracy", method = "base"), "no metric 'accuracy' in the history")
  expect_error(plot(h, smooth = NA), "`smooth` must be TRUE or FALSE")
  if (requireNamespace("ggplot2", quietly = TRUE)) {
    p <- plot(h, metrics = c("mean_losses"), smooth = FALSE)
    expect_s3_class(p, "ggplot")
    built <- ggplot2::ggplot_build(p)
    expect_equal(range(built$layout$panel_params[[1]]$x$continuous_range) [1] <= 0, TRUE)
    expect_setequal(unique(p$data$series), c("training", "evaluation"))
    grDevices::png(f)
    print(p)
    grDevices::dev.off()
  } else {
    expect_error(plot(h, method = "ggplot2"), "needs the ggplot2 package")
  }
})

test_that("an empty history says so", {
  empty <- cppestimators:::new_history(NULL)
  expect_output(print(empty), "empty training history")
  expect_error(plot(empty), "the history is empty")
  expect_equal(nrow(as.data.frame(empty)), 0)
  expect_named(as.data.frame(empty), c("step", "metric", "value"))
})

test_that("plot() refuses an unknown method, naming the argument and the methods", {
  h <- quietly(train(drat_regressor(), mtcars_input(), steps = 2))
  expect_error(plot(h, method = "lattice"),
               "`method` must be one of \"auto\", \"ggplot2\" or \"base\", not character \"lattice\".", fixed = TRUE)
  expect_error(plot(h, method = "lattice"), class = "cppestimators_error")
})

test_that("predict(), evaluate() and train() of a history say to use the estimator", {
  input <- mtcars_input()
  lr <- quietly(linear_regressor(feature_columns = feature_columns(column_numeric("drat"))) %>%
                  train(input_fn = input, steps = 2))
  expect_s3_class(lr, "tf_estimator_history")
  verbs <- list(predict = stats::predict, evaluate = cppestimators::evaluate, train = cppestimators::train)
  for (verb in names(verbs)) {
    f <- verbs[[verb]]
    expect_error(f(lr, input), class = "cppestimators_error",
                 regexp = sprintf("train() returns the training history; call %s() on the estimator", verb),
                 fixed = TRUE)
  }
  expect_snapshot(error = TRUE, predict(lr, input))
  # the pipe of a history into evaluate()
  expect_error(lr %>% evaluate(input), class = "cppestimators_history_not_estimator")
})

# A history of `n` steps with an evaluation every `every` steps: the first
# evaluation (of the untrained model) far above the later ones.
synthetic_history <- function(n = 40, every = 4) {
  steps <- seq_len(n)
  ev_steps <- seq(0, n, by = every)
  ev <- data.frame(steps = ev_steps, eval_average_loss = c(39, 0.03 + 0.01 / seq_along(ev_steps[-1])),
                   `eval_label/mean` = 2.5, eval_loss = c(390, 0.3 + 0.1 / seq_along(ev_steps[-1])),
                   check.names = FALSE)
  cppestimators:::new_history(list(mean_losses = 0.05 + 1 / steps, total_losses = 0.5 + 10 / steps,
                                   steps = steps), evaluations = ev)
}

test_that("print() of a long history shows its first and last rows and counts the rest", {
  h <- synthetic_history(n = 300, every = 10)
  printed <- function(...) {
    op <- options(width = 250)
    on.exit(options(op))
    utils::capture.output(print(h, ...))
  }
  out <- printed()
  expect_length(out, 1 + 11 + 1)  # header, 5 + "..." + 5 rows, the count
  expect_match(out[2], "^1 ")
  expect_match(out[7], "^\\.\\.\\. +\\.\\.\\.")
  expect_match(out[12], "^301 ")
  expect_equal(out[13], "# 291 more rows (6 to 296) left out; print(x, n = Inf) shows all 301")
  expect_length(printed(n = Inf), 302)
  expect_length(printed(n = 4), 1 + 5 + 1)
  expect_error(print(h, n = 0), class = "cppestimators_error", regexp = "`n` must be a whole number")
  # a short history prints whole, as before
  h <- synthetic_history(n = 12)
  expect_length(printed(), 14)
})

test_that("plot() leaves out constant metrics and keeps the first evaluation off the scale", {
  h <- synthetic_history()
  pts <- cppestimators:::plot_points(as.data.frame(h), NULL)
  expect_equal(levels(pts$panel), c("mean_losses", "total_losses"))
  first <- pts[pts$series == "evaluation" & pts$step == 0, ]
  expect_true(all(first$off_scale))
  expect_equal(first$value, c(39, 390))
  # drawn at the edge of the rest of its panel, not at its value
  rest <- pts[pts$panel == "mean_losses" & !(pts$series == "evaluation" & pts$step == 0), ]
  edge <- first$shown[first$panel == "mean_losses"]
  expect_lt(edge, 1.1 * max(rest$value))
  expect_gt(edge, max(rest$value))
  expect_false(any(pts$off_scale[pts$step > 0]))
  # asked for by name, a constant metric is drawn
  expect_equal(levels(cppestimators:::plot_points(as.data.frame(h), "eval_label/mean")$panel),
               "eval_label/mean")
  f <- tempfile(fileext = ".png")
  grDevices::png(f)
  plot(h, method = "base")
  grDevices::dev.off()
  if (requireNamespace("ggplot2", quietly = TRUE)) {
    built <- ggplot2::ggplot_build(plot(h, smooth = FALSE))
    yr <- built$layout$panel_params[[1]]$y$continuous_range
    expect_lt(yr[2], 2)  # mean_losses: from 0.05 to ~1, not to 39
  }
})
