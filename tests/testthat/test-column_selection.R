col_names <- function(cols) {
  if (inherits(cols, "cppestimators_feature_column")) return(cols$name)
  vapply(cols, function(col) col$name, "")
}

iris_names <- c("Sepal.Length", "Sepal.Width", "Petal.Length", "Petal.Width", "Species")

test_that("the three forms of tfestimators select the same columns", {
  a <- feature_columns(column_numeric(starts_with("Sepal")), names = iris)
  b <- feature_columns(starts_with("Sepal") ~ column_numeric(), names = iris)
  c <- with_columns(iris, feature_columns(column_numeric(starts_with("Sepal"))))
  expect_equal(col_names(a), c("Sepal.Length", "Sepal.Width"))
  expect_equal(b, a)
  expect_equal(c, a)
  expect_s3_class(a, "cppestimators_feature_columns")
  # extra arguments of the constructor follow the injected selection
  d <- feature_columns(starts_with("Petal") ~ column_numeric(shape = 2, dtype = "float64"),
                       names = iris)
  e <- feature_columns(column_numeric(starts_with("Petal"), shape = 2, dtype = "float64"),
                       names = iris)
  expect_equal(d, e)
  expect_equal(vapply(d, function(col) col$width, 0L), c(2L, 2L))
  expect_equal(vapply(d, function(col) col$dtype, ""), c("float64", "float64"))
})

test_that("each re-exported tidyselect helper selects among the active names", {
  nms <- c("x1", "x2", "x3", "y_a", "y_b", "z")
  sel <- function(...) col_names(feature_columns(..., names = nms))
  expect_equal(sel(column_numeric(starts_with("y"))), c("y_a", "y_b"))
  expect_equal(sel(column_numeric(ends_with("b"))), "y_b")
  expect_equal(sel(column_numeric(contains("_"))), c("y_a", "y_b"))
  expect_equal(sel(column_numeric(matches("^x[12]$"))), c("x1", "x2"))
  expect_equal(sel(column_numeric(one_of("z", "x3"))), c("z", "x3"))
  expect_equal(sel(column_numeric(num_range("x", 2:3))), c("x2", "x3"))
  expect_equal(sel(column_numeric(everything())), nms)
  expect_equal(sel(column_numeric(last_col())), "z")
  expect_equal(sel(column_numeric(all_of(c("x1", "z")))), c("x1", "z"))
  expect_equal(sel(column_numeric(any_of(c("x1", "nope")))), "x1")
  expect_equal(sel(column_numeric(-starts_with("x"))), c("y_a", "y_b", "z"))
  expect_equal(sel(column_numeric(x2:y_a)), c("x2", "x3", "y_a"))
  expect_equal(sel(column_numeric(c(1, 6))), c("x1", "z"))
  expect_equal(sel(column_numeric(starts_with("x"), -x2)), c("x1", "x3"))
  expect_equal(sel(column_numeric(z, starts_with("y"))), c("z", "y_a", "y_b"))
  for (helper in c("starts_with", "ends_with", "contains", "matches", "one_of", "num_range",
                   "everything", "last_col", "all_of", "any_of")) {
    expect_identical(getExportedValue("cppestimators", helper),
                     getExportedValue("tidyselect", helper), label = helper)
  }
})

test_that("`names` may be a character vector, a data frame, a named list or a matrix", {
  expected <- c("Petal.Length", "Petal.Width")
  expect_equal(col_names(feature_columns(column_numeric(starts_with("Petal")),
                                         names = iris_names)), expected)
  expect_equal(col_names(feature_columns(column_numeric(starts_with("Petal")),
                                         names = as.list(iris))), expected)
  expect_equal(col_names(feature_columns(column_numeric(starts_with("Petal")),
                                         names = as.matrix(iris[1:4]))), expected)
  expect_error(feature_columns(column_numeric("a"), names = 1:3),
               "`names` must be a character vector of feature names, or a data frame")
  expect_error(feature_columns(column_numeric("a"), names = unname(as.matrix(iris[1:4]))),
               "`names` must be a character vector")
  expect_error(set_columns(c("a", NA)), "must not contain missing or empty feature names")
})

test_that("names and strings work without a scope; helpers need one", {
  expect_null(scoped_columns())
  expect_equal(col_names(column_numeric(drat, cyl)), c("drat", "cyl"))
  expect_equal(col_names(column_numeric("drat")), "drat")
  expect_equal(col_names(column_numeric(c("a", "b"))), c("a", "b"))
  expect_equal(col_names(column_numeric(c(a, "b"))), c("a", "b"))
  held <- c("wt", "hp")
  expect_equal(col_names(column_numeric(held)), c("wt", "hp"))
  expect_equal(col_names(column_numeric(paste0("x", 1:2))), c("x1", "x2"))
  # base R's character vectors are not taken for variables
  expect_equal(col_names(column_numeric(letters)), "letters")
  make <- function(name) column_numeric(name)
  expect_equal(col_names(make("qsec")), "qsec")
  msg <- paste0("selects among the active feature names, but none are set: ",
                "give them with feature_columns\\(\\.\\.\\., names = \\) or with_columns")
  expect_error(column_numeric(starts_with("Sepal")), msg)
  expect_error(column_numeric(one_of("a")), msg)
  expect_error(column_numeric(tidyselect::everything()), msg)
  expect_error(column_numeric(-drat), msg)
  expect_error(column_numeric(1:2), msg)
  expect_error(column_numeric(3), msg)
  expect_error(column_numeric(TRUE), "feature names must be bare names or strings, not logical TRUE")
  expect_error(column_numeric(""), "feature names must be non-empty")
  expect_error(column_numeric(), "no feature names")
  expect_error(column_numeric("a", shap = 2),
               "`...` takes feature names, not named arguments \\(`shap = `\\)")
})

test_that("inside a scope, unknown names and empty selections list the active names", {
  expect_error(feature_columns(column_numeric(Sepal.Lenght), names = iris),
               paste("unknown feature name 'Sepal.Lenght': the active names are",
                     "Sepal.Length, Sepal.Width, Petal.Length, Petal.Width, Species."),
               fixed = TRUE)
  expect_error(with_columns(iris, column_numeric("zz", Species, yy)),
               "unknown feature names 'zz', 'yy': the active names are Sepal.Length,", fixed = TRUE)
  expect_error(feature_columns(column_numeric(all_of(c("Species", "nope"))), names = iris),
               "unknown feature name 'nope': the active names are", fixed = TRUE)
  expect_error(feature_columns(column_numeric(starts_with("zz")), names = iris),
               "`starts_with(\"zz\")` selected none of the active names (Sepal.Length,", fixed = TRUE)
  expect_error(feature_columns(column_numeric(7), names = iris),
               "position 7 is past the 5 active names", fixed = TRUE)
  many <- paste0("v", 1:40)
  err <- expect_error(feature_columns(column_numeric(w), names = many), "unknown feature name 'w'")
  expect_match(conditionMessage(err), "v30, ... (10 more).", fixed = TRUE)
})

test_that("inside a scope, active names win over variables; other variables give their names", {
  Species <- c("Sepal.Length", "Sepal.Width")
  expect_equal(col_names(with_columns(iris, column_numeric(Species))), "Species")
  held <- c("Petal.Width", "Sepal.Width")
  expect_equal(col_names(with_columns(iris, column_numeric(held))), held)
  expect_equal(col_names(with_columns(iris, column_numeric(one_of(held)))), held)
  expect_equal(col_names(with_columns(iris, column_numeric(c(held, Species)))),
               c(held, "Species"))
  wrong <- c("Petal.Width", "nope")
  expect_error(with_columns(iris, column_numeric(wrong)), "unknown feature name 'nope'")
  expect_no_warning(with_columns(iris, column_numeric(held)))
})

test_that("with_columns(), set_columns() and scoped_columns() manage the active names", {
  expect_null(scoped_columns())
  inside <- with_columns(iris, scoped_columns())
  expect_equal(inside, iris_names)
  expect_null(scoped_columns())
  # restored even when the expression fails
  expect_error(with_columns(iris, stop("boom")), "boom")
  expect_null(scoped_columns())
  # nested scopes restore the outer names
  with_columns(mtcars, {
    expect_equal(with_columns(letters[1:3], scoped_columns()), c("a", "b", "c"))
    expect_equal(scoped_columns(), names(mtcars))
  })
  fcs <- with_columns(mtcars, {
    inner <- feature_columns(column_numeric(starts_with("Sepal")), names = iris)
    list(inner = inner, after = scoped_columns())
  })
  expect_equal(col_names(fcs$inner), c("Sepal.Length", "Sepal.Width"))
  expect_equal(fcs$after, names(mtcars))
  expect_null(scoped_columns())
  # set_columns() returns the previous set invisibly
  expect_invisible(old <- set_columns(iris))
  expect_null(old)
  expect_equal(scoped_columns(), iris_names)
  expect_equal(col_names(column_numeric(ends_with("Width"))), c("Sepal.Width", "Petal.Width"))
  expect_equal(set_columns(NULL), iris_names)
  expect_null(scoped_columns())
  # scoped_columns(columns) lasts until the calling function returns
  f <- function() {
    old <- scoped_columns(mtcars)
    list(old = old, now = scoped_columns(), cols = col_names(column_numeric(last_col())))
  }
  res <- f()
  expect_null(res$old)
  expect_equal(res$now, names(mtcars))
  expect_equal(res$cols, "carb")
  expect_null(scoped_columns())
  g <- function() {
    scoped_columns(iris)
    scoped_columns(mtcars)
    stop("fails")
  }
  expect_error(g(), "fails")
  expect_null(scoped_columns())
})

test_that("feature_columns() flattens, skips NULL and keeps the later duplicate by name", {
  fcs <- feature_columns(column_numeric(starts_with("a")), column_numeric(ends_with("a")),
                         names = "aa")
  expect_length(fcs, 1)
  fcs <- feature_columns(
    column_numeric(everything()),
    list(NULL, list(column_numeric("Sepal.Width", normalizer_fn = function(x) x / 2))),
    NULL,
    names = iris
  )
  expect_equal(col_names(fcs), c("Sepal.Length", "Petal.Length", "Petal.Width", "Species",
                                 "Sepal.Width"))
  expect_true(is.function(fcs[[5]]$normalizer_fn))
  # an earlier feature_columns() result, and columns of any subclass
  other <- structure(list(name = "other", key = "other"),
                     class = c("some_new_column", "cppestimators_feature_column"))
  fcs2 <- feature_columns(fcs, other)
  expect_equal(col_names(fcs2), c(col_names(fcs), "other"))
  expect_s3_class(fcs2[[6]], "some_new_column")
  expect_error(feature_columns(NULL), "feature_columns must not be empty.", fixed = TRUE)
  expect_error(feature_columns(iris),
               "takes feature columns made by column_\\*\\(\\), not an object of class 'data.frame'")
})

test_that("formulas inject their selection into the constructor call", {
  held <- c("Sepal.Width", "Petal.Width")
  expect_equal(col_names(feature_columns(held ~ column_numeric(), names = iris)), held)
  expect_equal(col_names(feature_columns(c(Species, "Petal.Length") ~ column_numeric(),
                                         names = iris)), c("Species", "Petal.Length"))
  # a bare name on the left needs no scope
  expect_equal(col_names(feature_columns(drat ~ column_numeric(shape = 3))), "drat")
  expect_equal(feature_columns(drat ~ column_numeric(shape = 3))[[1]]$width, 3L)
  # the right-hand side may name the constructor without a call
  expect_equal(col_names(feature_columns(ends_with("Length") ~ column_numeric, names = iris)),
               c("Sepal.Length", "Petal.Length"))
  # a formula kept in a variable works too
  f <- starts_with("Petal") ~ column_numeric(normalizer_fn = log)
  fcs <- feature_columns(f, names = iris)
  expect_equal(col_names(fcs), c("Petal.Length", "Petal.Width"))
  expect_identical(fcs[[1]]$normalizer_fn, log)
  # formulas and plain columns mix; arguments refer to the caller's variables
  k <- 4L
  fcs <- feature_columns(starts_with("Sepal") ~ column_numeric(shape = k),
                         column_numeric(Species), names = iris)
  expect_equal(col_names(fcs), c("Sepal.Length", "Sepal.Width", "Species"))
  expect_equal(fcs[[1]]$width, 4L)
  expect_equal(fcs[[3]]$width, 1L)
  expect_error(feature_columns(~ column_numeric(), names = iris),
               "a formula in feature_columns() needs a selection on its left-hand side", fixed = TRUE)
  expect_error(feature_columns(Species ~ "x", names = iris),
               "the right-hand side of `Species ~ ...` must be a column_*() call", fixed = TRUE)
  expect_error(feature_columns(zz ~ column_numeric(), names = iris), "unknown feature name 'zz'")
})

test_that("capture_names() serves any constructor that passes on its `...`", {
  capture_names <- getFromNamespace("capture_names", "cppestimators")
  column_probe <- function(..., width = 1) {
    names <- capture_names(...)
    lapply(names, function(nm) {
      structure(list(name = nm, key = nm, width = width),
                class = c("probe_column", "cppestimators_feature_column"))
    })
  }
  expect_equal(capture_names(a, "b", c("c", "d")), c("a", "b", "c", "d"))
  expect_equal(capture_names(a, a, "a"), "a")
  expect_equal(col_names(feature_columns(column_probe(starts_with("Sepal")), names = iris)),
               c("Sepal.Length", "Sepal.Width"))
  fcs <- feature_columns(contains("Width") ~ column_probe(width = 2), names = iris)
  expect_equal(col_names(fcs), c("Sepal.Width", "Petal.Width"))
  expect_equal(fcs[[1]]$width, 2)
  # names travel through wrappers that forward `...`
  wrapper <- function(...) column_probe(...)
  outer <- function() {
    held <- c("Species", "Petal.Length")
    with_columns(iris, wrapper(held, starts_with("Sepal")))
  }
  expect_equal(col_names(outer()), c("Species", "Petal.Length", "Sepal.Length", "Sepal.Width"))
  expect_error(column_probe(matches("x")), "none are set")
})

test_that("input_fn() selects features and response with tidyselect", {
  f <- function(...) suppressMessages(input_fn(iris, ...))
  expect_equal(names(f(features = starts_with("Petal"), response = Species)$features),
               c("Petal.Length", "Petal.Width"))
  held <- c("Sepal.Width", "Petal.Width")
  expect_equal(names(f(features = one_of(held), response = "Species")$features), held)
  expect_equal(names(f(features = all_of(held), response = "Species")$features), held)
  expect_equal(names(f(features = held, response = "Species")$features), held)
  expect_equal(names(f(features = -Species, response = Species)$features), iris_names[1:4])
  expect_equal(names(f(features = c(1, 3), response = 5)$features),
               c("Sepal.Length", "Petal.Length"))
  expect_equal(f(features = 1, response = last_col())$response, "Species")
  expect_equal(names(f(features = Sepal.Length:Petal.Length, response = Species)$features),
               iris_names[1:3])
  # a variable of the caller reaches the matrix and default methods too
  g <- function() {
    cols <- c("drat", "wt")
    list(matrix = input_fn(as.matrix(mtcars), features = cols, response = mpg),
         list = input_fn(as.list(mtcars), features = all_of(cols), response = "mpg"))
  }
  res <- g()
  expect_equal(names(res$matrix$features), c("drat", "wt"))
  expect_equal(names(res$list$features), c("drat", "wt"))
  expect_equal(res$matrix$response, "mpg")
  no_response <- NULL
  expect_null(input_fn(mtcars, features = "drat", response = no_response)$response)
})

test_that("input_fn() selection errors name the argument and the data's columns", {
  expect_error(input_fn(mtcars, features = c(drat, "zz", yy), response = "mpg"),
               "`features`: columns 'zz', 'yy' not found; the data have mpg, cyl,", fixed = TRUE)
  expect_error(input_fn(mtcars, features = one_of("drat"), response = nope),
               "`response`: column 'nope' not found", fixed = TRUE)
  expect_error(input_fn(mtcars, features = 12, response = "mpg"),
               "`features`: column position 12 not found; the data have 11 columns", fixed = TRUE)
  expect_error(input_fn(mtcars, features = starts_with("zz"), response = "mpg"),
               "`features`: `starts_with(\"zz\")` selected no columns; the data have mpg,", fixed = TRUE)
  expect_error(input_fn(mtcars, features = NULL, response = "mpg"),
               "`features` must name at least one column.", fixed = TRUE)
  expect_error(input_fn(mtcars, features = "drat", response = starts_with("c")),
               "`response` must name one column.", fixed = TRUE)
})

test_that("an estimator trains on columns chosen by selection helpers", {
  df <- data.frame(x1 = c(1, 2, 3, 4), x2 = c(0, 1, 0, 1), noise = 1:4, y = c(2, 4, 6, 8))
  fcs <- feature_columns(starts_with("x") ~ column_numeric(), names = df)
  expect_equal(col_names(fcs), c("x1", "x2"))
  est <- suppressMessages(linear_regressor(fcs, optimizer = "SGD"))
  quietly(train(est, input_fn(df, features = starts_with("x"), response = y,
                              batch_size = 4L, shuffle = FALSE), steps = 1))
  p <- predict(est, input_fn(df, features = c(x1, x2)))
  # one SGD step from zero on the summed squared error, learning rate 0.2
  w1 <- 0.2 * 2 * sum(df$x1 * df$y)
  w2 <- 0.2 * 2 * sum(df$x2 * df$y)
  b <- 0.2 * 2 * sum(df$y)
  expect_equal(p$predictions, w1 * df$x1 + w2 * df$x2 + b, tolerance = 1e-5)
})
