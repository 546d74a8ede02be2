// testthat's C++ testing API (context(), test_that(), expect_*()), in which
// the engine's tests are written, mapped onto a plain Catch 1.x single
// header: each context() is one Catch test case (and one ctest test, see
// tools/engine/discover_tests.cmake), each test_that() one section of it.
// tools/engine/CMakeLists.txt puts the directory holding catch.h on the
// include path.
#pragma once

#define CATCH_CONFIG_PREFIX_ALL
#include <catch.h>

#define context(name) CATCH_TEST_CASE(name)
#define test_that CATCH_SECTION
#define expect_true CATCH_CHECK
#define expect_false CATCH_CHECK_FALSE
#define expect_error CATCH_CHECK_THROWS
#define expect_error_as CATCH_CHECK_THROWS_AS
