library(testthat)
library(cppestimators)

test_check("cppestimators")
