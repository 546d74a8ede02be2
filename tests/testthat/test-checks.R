# The argument checks shared by the package's functions, and abort().

check_number <- cppestimators:::check_number
check_count <- cppestimators:::check_count
check_whole <- cppestimators:::check_whole
check_string <- cppestimators:::check_string
check_flag <- cppestimators:::check_flag
check_choice <- cppestimators:::check_choice
check_path <- cppestimators:::check_path
check_seconds <- cppestimators:::check_seconds
check_function <- cppestimators:::check_function
abort <- cppestimators:::abort

test_that("abort() raises a condition of its class, then cppestimators_error, error and condition", {
  err <- tryCatch(abort("went wrong", class = c("cppestimators_a", "cppestimators_b"), hook = 3L),
                  condition = identity)
  expect_identical(class(err), c("cppestimators_a", "cppestimators_b", "cppestimators_error", "error", "condition"))
  expect_identical(conditionMessage(err), "went wrong")
  expect_null(conditionCall(err))
  expect_identical(err$hook, 3L)
  plain <- tryCatch(abort("plain"), error = identity)
  expect_identical(class(plain), c("cppestimators_error", "error", "condition"))
})

test_that("abort() of a condition adds the package's class after the condition's own classes", {
  cond <- structure(class = c("std::runtime_error", "C++Error", "error", "condition"),
                    list(message = "engine", call = NULL))
  err <- tryCatch(abort(cond), error = identity)
  expect_identical(class(err), c("std::runtime_error", "C++Error", "cppestimators_error", "error", "condition"))
  simple <- tryCatch(abort(simpleError("boom")), error = identity)
  expect_identical(class(simple), c("cppestimators_error", "simpleError", "error", "condition"))
  twice <- tryCatch(abort(err), error = identity)
  expect_identical(class(twice), class(err))
})

test_that("the package neither defines nor masks stop(): its errors come from abort()", {
  expect_false(exists("stop", envir = asNamespace("cppestimators"), inherits = FALSE))
  expect_identical(get("stop", envir = asNamespace("cppestimators")), base::stop)
})

test_that("check_number() returns the number and names the argument when refusing", {
  expect_identical(check_number(2L, "x"), 2)
  expect_identical(check_number(0.5, "x", min = 0, max = 1), 0.5)
  expect_null(check_number(NULL, "x", null_ok = TRUE))
  expect_identical(check_number(Inf, "x", finite = FALSE), Inf)
  expect_error(check_number("a", "x"), "^`x` must be a single number, not character \"a\"\\.$")
  expect_error(check_number(c(1, 2), "x"), "`x` must be a single number, not a numeric vector of length 2.",
               fixed = TRUE)
  expect_error(check_number(NA_real_, "x"), "`x` must be a single number, not numeric NA_real_.", fixed = TRUE)
  expect_error(check_number(NULL, "x"), "`x` must be a single number, not NULL.", fixed = TRUE)
  expect_error(check_number(Inf, "x"), "`x` must be a single number, not numeric Inf.", fixed = TRUE)
  expect_error(check_number(0, "rate", min = 0, exclusive_min = TRUE),
               "`rate` must be a positive number, not numeric 0.", fixed = TRUE)
  expect_error(check_number(-1, "x", min = 0), "`x` must be a number >= 0, not numeric -1.", fixed = TRUE)
  expect_error(check_number(1, "p", min = 0, max = 1, exclusive_max = TRUE),
               "`p` must be a number >= 0 and < 1, not numeric 1.", fixed = TRUE)
  expect_error(check_number(3, "x", max = 2, null_ok = TRUE), "`x` must be NULL or a number <= 2, not numeric 3.",
               fixed = TRUE)
  expect_error(check_number(3, "x", max = 2, must = "small"), "`x` must be small, not numeric 3.", fixed = TRUE)
  expect_error(check_number(3, "x", max = 2, message = "too big"), "^too big$")
  expect_error(check_number("a", "x"), class = "cppestimators_error")
})

test_that("check_count() takes whole numbers >= 1, or >= 0 with positive = FALSE", {
  expect_identical(check_count(3L, "n"), 3)
  expect_identical(check_count(0, "n", positive = FALSE), 0)
  expect_null(check_count(NULL, "n", null_ok = TRUE))
  expect_error(check_count(0, "n"), "`n` must be >= 1, given: 0.", fixed = TRUE)
  expect_error(check_count(-1, "n", positive = FALSE), "`n` must be >= 0, given: -1.", fixed = TRUE)
  expect_error(check_count(1.5, "n"), "`n` must be a single whole number, not numeric 1.5.", fixed = TRUE)
  expect_error(check_count(Inf, "n"), "`n` must be a single whole number, not numeric Inf.", fixed = TRUE)
  expect_error(check_count("3", "n"), "`n` must be a single whole number, not character \"3\".", fixed = TRUE)
  expect_error(check_count(NULL, "n"), "`n` must not be NULL.", fixed = TRUE)
  expect_error(check_count(11, "n", max = 10), "`n` must be <= 10, given: 11.", fixed = TRUE)
  expect_error(check_count(0, "n", message = "give a count"), "^give a count$")
  expect_identical(check_count(4, "n", message = "give a count"), 4)
})

test_that("check_whole() keeps its signature: min, NULL allowed by default, max", {
  expect_null(check_whole(NULL, "k"))
  expect_identical(check_whole(-1, "k", min = -1), -1)
  expect_error(check_whole(-2, "k", min = -1), "`k` must be >= -1, given: -2.", fixed = TRUE)
  expect_error(check_whole(NULL, "k", null_ok = FALSE), "`k` must not be NULL.", fixed = TRUE)
})

test_that("check_string() takes one string, not NA, and not empty unless empty_ok", {
  expect_identical(check_string("a", "s"), "a")
  expect_identical(check_string("", "s", empty_ok = TRUE), "")
  expect_null(check_string(NULL, "s", null_ok = TRUE))
  expect_error(check_string("", "s"), "`s` must be a non-empty string, not character \"\".", fixed = TRUE)
  expect_error(check_string(NA_character_, "s"), "`s` must be a non-empty string, not character NA_character_.",
               fixed = TRUE)
  expect_error(check_string(c("a", "b"), "s"), "`s` must be a non-empty string, not a character vector of length 2.",
               fixed = TRUE)
  expect_error(check_string(1, "s", null_ok = TRUE), "`s` must be NULL or a non-empty string, not numeric 1.",
               fixed = TRUE)
  expect_error(check_string(1, "s", empty_ok = TRUE), "`s` must be a string, not numeric 1.", fixed = TRUE)
  expect_error(check_string(1, "s", must = "a name"), "`s` must be a name, not numeric 1.", fixed = TRUE)
})

test_that("check_flag() takes TRUE or FALSE only", {
  expect_true(check_flag(TRUE, "f"))
  expect_false(check_flag(FALSE, "f"))
  expect_error(check_flag(NA, "f"), "`f` must be TRUE or FALSE, not logical NA.", fixed = TRUE)
  expect_error(check_flag(1, "f"), "`f` must be TRUE or FALSE, not numeric 1.", fixed = TRUE)
  expect_error(check_flag(c(TRUE, FALSE), "f"), "`f` must be TRUE or FALSE, not a logical vector of length 2.",
               fixed = TRUE)
  expect_error(check_flag("yes", "f", message = "say TRUE"), "^say TRUE$")
})

test_that("check_choice() takes one of the choices and lists them when refusing", {
  expect_identical(check_choice("b", "mode", c("a", "b")), "b")
  expect_null(check_choice(NULL, "mode", c("a", "b"), null_ok = TRUE))
  expect_error(check_choice("c", "mode", c("a", "b", "d")),
               "`mode` must be one of \"a\", \"b\" or \"d\", not character \"c\".", fixed = TRUE)
  expect_error(check_choice(NA_character_, "mode", "a"), "`mode` must be one of \"a\", not character NA_character_.",
               fixed = TRUE)
  expect_error(check_choice(1, "mode", c("a", "b"), null_ok = TRUE),
               "`mode` must be NULL or one of \"a\" or \"b\", not numeric 1.", fixed = TRUE)
  expect_error(check_choice(c("a", "b"), "mode", c("a", "b")), "not a character vector of length 2", fixed = TRUE)
})

test_that("check_path() takes a path, and with `exists` an existing file or directory", {
  f <- tempfile()
  writeLines("x", f)
  d <- tempfile()
  dir.create(d)
  expect_identical(check_path("no/such/place", "p"), "no/such/place")
  expect_identical(check_path(f, "p", exists = "file"), f)
  expect_identical(check_path(d, "p", exists = "dir"), d)
  expect_null(check_path(NULL, "p", exists = "file", null_ok = TRUE))
  expect_error(check_path(1, "p"), "`p` must be the path of a file, not numeric 1.", fixed = TRUE)
  expect_error(check_path(1, "p", exists = "dir"), "`p` must be the path of a directory, not numeric 1.", fixed = TRUE)
  expect_error(check_path(d, "p", exists = "file"), sprintf("`p`: no file at '%s'.", d), fixed = TRUE)
  expect_error(check_path(f, "p", exists = "dir"), sprintf("`p`: no directory at '%s'.", f), fixed = TRUE)
  expect_error(check_path(tempfile(), "p", exists = "dir", message = "no such dir"), "^no such dir$")
  expect_error(check_path(f, "p", exists = "elsewhere"), "should be one of")
})

test_that("check_seconds() and check_function() keep their messages", {
  expect_null(check_seconds(NULL, "secs"))
  expect_identical(check_seconds(Inf, "secs"), Inf)
  expect_error(check_seconds(0, "secs"), "`secs` must be a positive number of seconds, not numeric 0.", fixed = TRUE)
  expect_null(check_function(NULL, "fn"))
  expect_identical(check_function(identity, "fn"), identity)
  expect_error(check_function(1, "fn"), "`fn` must be a function or NULL, not numeric 1.", fixed = TRUE)
  expect_error(check_function(NULL, "fn", null_ok = FALSE), "`fn` must be a function, not NULL.", fixed = TRUE)
})
