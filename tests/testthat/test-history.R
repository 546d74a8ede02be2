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
  expect_equal(levels(pts$panel), c("mean_losses", "total_losses", "eval_label/mean", "eval_prediction/mean"))
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
