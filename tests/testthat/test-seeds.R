test_that("the seed examples run as written and print output of the seed's shape", {
  skip_on_cran()  # spawns R processes
  script <- system.file("examples", "seeds.R", package = "cppestimators")
  expect_true(nzchar(script))
  rscript <- file.path(R.home("bin"), "Rscript")
  out <- system2(rscript, c("--vanilla", shQuote(script)), stdout = TRUE, stderr = TRUE)
  expect_null(attr(out, "status"))
  bars <- grep("^Training", out, value = TRUE)
  expect_match(bars[1], "^Training 2/2 \\[=+\\] - ETA:  0s - loss: [0-9]+\\.[0-9]{2}$")
  header <- which(out == "  mean_losses total_losses steps")
  expect_length(header, 1)
  rows <- utils::read.table(text = out[header + 1:2])
  expect_equal(rows$V4, c(2, 4))
  expect_equal(rows$V3, 8 * rows$V2, tolerance = 1e-4)
  expect_equal(grep("Running step", out, value = TRUE),
               sprintf('[1] "Running step: %d"', 1:4))
  last <- out[length(out)]
  vals <- scan(text = sub("^\\[1\\]", "", last), quiet = TRUE)
  expect_length(vals, 4)
  expect_true(all(vals > 50 & vals < 1000))
})
