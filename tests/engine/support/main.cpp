// The runner of the engine's Catch tests (tests/engine/**/test-*.cpp): the
// test cases register themselves; Catch parses the command line (e.g. a
// test name, -s to show every assertion, -r junit, --list-test-names-only).
#if defined(__has_include)
#if __has_include(<R.h>) || __has_include(<Rinternals.h>) || __has_include(<Rcpp.h>)
#error "R's or Rcpp's headers are on the include path: the engine's tests must build without them"
#endif
#endif

#define CATCH_CONFIG_RUNNER
#include "testthat.h"

int main(int argc, char* argv[]) { return Catch::Session().run(argc, argv); }
