# The formula method of input_fn(): which terms it reads and what it refuses.

test_that("a transformed term on either side of the formula is an error that says so", {
  d <- data.frame(price = c(1, 2, 4), carat = c(0.2, 0.3, 0.5))
  expect_error(input_fn(log(price) ~ carat, data = d), class = "cppestimators_error",
               regexp = paste0("the response log(price) of the formula is a transformed term: transformed terms such ",
                               "as log(price) are not supported by input_fn(); compute the column first, e.g. ",
                               "data$log_price <- log(data$price), and use log_price in the formula."),
               fixed = TRUE)
  expect_error(input_fn(price ~ sqrt(carat) + carat, data = d), class = "cppestimators_error",
               regexp = paste0("got 'sqrt': transformed terms such as sqrt(carat) are not supported by input_fn(); ",
                               "compute the column first, e.g. data$sqrt_carat <- sqrt(data$carat), and use sqrt_carat ",
                               "in the formula."), fixed = TRUE)
  # formula operators other than + and - keep their message; a missing response keeps its own
  expect_error(input_fn(price ~ carat:price, data = d),
               "^unhandled formula operator: expected '\\+' or '-'; got ':'$", class = "cppestimators_error")
  expect_error(input_fn(~ carat, data = d), "the formula must have one response on its left-hand side",
               class = "cppestimators_error")
  expect_equal(input_fn(price ~ (carat), data = d)$response, "price")
})

test_that("parse_formula() keeps terms that call a function as their text, as tfestimators did", {
  # tfestimators' tests/testthat/test-formulas.R
  parsed <- parse_formula(y ~ tf$Tensor(x))
  expect_equal(parsed$features, "tf$Tensor(x)")
  expect_equal(parsed$response, "y")
  expect_equal(parsed$intercept, TRUE)
  parsed <- parse_formula(y ~ tf$Tensor(x) + x1)
  expect_equal(parsed$features, c("tf$Tensor(x)", "x1"))
  # the intercept terms
  expect_false(parse_formula(y ~ x1 - 1)$intercept)
  expect_false(parse_formula(y ~ 0 + x1)$intercept)
  expect_true(parse_formula(y ~ x1 + 1)$intercept)
  expect_equal(parse_formula(y ~ x1 + x2 - 1)$features, c("x1", "x2"))
  expect_equal(parse_formula(y ~ x1 + x2 - x1)$features, "x2")
  # input_fn() still refuses such a term, whose column the data cannot have
  d <- data.frame(y = 1:3, x = c(1, 2, 3))
  expect_error(input_fn(y ~ tf$Tensor(x), data = d), class = "cppestimators_error",
               regexp = "got 'tf$Tensor': transformed terms such as tf$Tensor(x) are not supported",
               fixed = TRUE)
  expect_equal(names(input_fn(y ~ x - 1, data = d)$features), "x")
})
