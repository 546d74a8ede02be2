# Shared fixtures for the tests.

mtcars_input <- function(batch_size = 8L, ...) {
  input_fn(mtcars, response = "mpg", features = c("drat", "cyl"), batch_size = batch_size, ...)
}

drat_regressor <- function(...) {
  suppressMessages(linear_regressor(feature_columns = feature_columns(column_numeric("drat")), ...))
}

# Runs `expr` with console output and messages captured; returns the value.
quietly <- function(expr) {
  value <- NULL
  utils::capture.output(invisible(utils::capture.output(value <- suppressMessages(expr))), type = "message")
  value
}

# `expr` with the parsnip engines' warning that training stopped short of
# convergence muffled: for tests that train a few steps on purpose (the
# warning itself is tested in test-tidymodels_trust.R).
briefly <- function(expr) {
  withCallingHandlers(expr, cppestimators_convergence_warning = function(w) invokeRestart("muffleWarning"))
}

# Console lines printed while evaluating `expr` (messages silenced).
printed <- function(expr) {
  utils::capture.output(suppressMessages(expr))
}

# Messages emitted while evaluating `expr` (console output discarded), in order.
messages_of <- function(expr) {
  msgs <- character()
  withCallingHandlers(
    utils::capture.output(expr),
    message = function(m) {
      msgs <<- c(msgs, sub("\n$", "", conditionMessage(m)))
      invokeRestart("muffleMessage")
    })
  msgs
}

# A regressor over one feature `x` with its own model directory.
x_regressor <- function(..., optimizer = "Ftrl") {
  suppressMessages(linear_regressor(feature_columns(column_numeric("x")), optimizer = optimizer, ...))
}

x_input <- function(n = 8, batch_size = 1L, num_epochs = NULL, x = seq_len(n)) {
  input_fn(data.frame(x = x, y = 2 * x + 1), response = "y", batch_size = batch_size,
           num_epochs = num_epochs, shuffle = FALSE)
}

# The wide table print() shows for a history (one row per step).
wide <- function(h) cppestimators:::history_table(h)

# What the package wrote to stderr other than messages (progress bars), as
# lines; stdout is discarded.
bar_lines <- function(expr) {
  utils::capture.output(invisible(utils::capture.output(suppressMessages(expr))), type = "message")
}

# Variables of an estimator that may never have trained (variable_value()
# refuses those, as tfestimators did): the engine's initial values.
engine_values <- function(est, names = NULL) {
  ptr <- cppestimators:::estimator_ptr(est)
  names <- names %||% cppestimators:::cpp_estimator_variable_names(ptr)
  stats::setNames(lapply(names, function(n) cppestimators:::cpp_estimator_variable(ptr, n)), names)
}
`%||%` <- function(a, b) if (is.null(a)) b else a

# The rows of a column's weights that one SGD step over `data` moved.
touched_rows <- function(col, data, n_rows) {
  est <- suppressMessages(linear_regressor(feature_columns(col), optimizer = optimizer_sgd(0.1)))
  n <- NROW(data[[1]])
  data$y <- rep(1, n)
  quietly(train(est, input_fn(data, response = "y", batch_size = n, shuffle = FALSE),
                steps = 1))
  w <- variable_value(est, sprintf("linear/linear_model/%s/weights", col$name))[[1]]
  expect_equal(nrow(w), n_rows)
  which(w[, 1] != 0) - 1L
}
