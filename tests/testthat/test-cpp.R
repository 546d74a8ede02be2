# The engine's Catch tests (src/test-*.cpp), when this build holds them:
# `make test` and .ci/check.sh install with CPPESTIMATORS_CATCH_TESTS=true,
# and `make test-engine` runs the same tests without R. An ordinary install
# leaves them out (half the compile time).
if (cppestimators:::cpp_catch_tests_built()) {
  run_cpp_tests("cppestimators")
} else {
  test_that("the engine's Catch tests are built only on request", {
    skip("the engine's Catch tests are not in this build: install with CPPESTIMATORS_CATCH_TESTS=true")
  })
}
