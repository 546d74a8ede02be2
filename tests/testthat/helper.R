# Shared fixtures for the tests.

mtcars_input <- function(batch_size = 8L, ...) {
  input_fn(mtcars, response = "mpg", features = c("drat", "cyl"), batch_size = batch_size, ...)
}

drat_regressor <- function(...) {
  linear_regressor(feature_columns = feature_columns(column_numeric("drat")), ...)
}

# Runs `expr` with console output and messages captured; returns the value.
quietly <- function(expr) {
  value <- NULL
  utils::capture.output(value <- suppressMessages(expr))
  value
}

# Console lines printed while evaluating `expr` (messages silenced).
printed <- function(expr) {
  utils::capture.output(suppressMessages(expr))
}
