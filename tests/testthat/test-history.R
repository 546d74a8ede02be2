test_that("the history prints the seed's table and converts to a wide data frame", {
  h <- quietly(train(drat_regressor(), mtcars_input(), steps = 4,
                     hooks = list(hook_history_saver(every_n_step = 2))))
  expect_s3_class(h, "tf_estimator_history")
  out <- utils::capture.output(print(h))
  expect_equal(out[1], "  mean_losses total_losses steps")
  expect_match(out[2], "^1 +[0-9]+\\.[0-9]+ +[0-9]+\\.[0-9]+ +2$")
  expect_match(out[3], "^2 +[0-9]+\\.[0-9]+ +[0-9]+\\.[0-9]+ +4$")
  df <- as.data.frame(h)
  expect_equal(dim(df), c(2, 3))
  # squared mpg errors from a near-zero model: hundreds per example
  expect_true(all(df$mean_losses > 50 & df$mean_losses < 1000))
})

test_that("plot() draws the history and an empty history says so", {
  h <- quietly(train(drat_regressor(), mtcars_input(), steps = 4))
  f <- tempfile(fileext = ".png")
  grDevices::png(f)
  expect_invisible(plot(h))
  grDevices::dev.off()
  expect_gt(file.size(f), 1000)
  empty <- cppestimators:::new_history(NULL)
  expect_output(print(empty), "empty training history")
  expect_error(plot(empty), "the history is empty")
})
