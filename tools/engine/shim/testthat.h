// testthat's C++ testing API (context(), test_that(), expect_*()) mapped
// onto a plain Catch 1.x single header, for building the engine's tests
// without R: the same src/test-*.cpp files compile in the R package (against
// testthat's own testthat.h) and here (against this one). CMakeLists.txt puts
// the directory holding catch.h on the include path.
#pragma once

#define CATCH_CONFIG_PREFIX_ALL
#include <catch.h>

#define context(name) CATCH_TEST_CASE(name " | " __FILE__)
#define test_that CATCH_SECTION
#define expect_true CATCH_CHECK
#define expect_false CATCH_CHECK_FALSE
#define expect_error CATCH_CHECK_THROWS
#define expect_error_as CATCH_CHECK_THROWS_AS
