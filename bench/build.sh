#!/usr/bin/env bash
# The cost of building the package from a fresh clone of a commit:
#   bash bench/build.sh REF [REF ...]
# For each commit, in a fresh clone (in a temporary directory, removed after):
#  - "demo install": the install `make demo` does (R CMD INSTALL --preclean,
#    two jobs, debugging information stripped);
#  - "check install": the same with CPPESTIMATORS_CATCH_TESTS=true, the
#    setting under which R CMD check installed the package up to the commit
#    that moved the engine's tests out of it (ignored after it);
#  - "engine tests": make test-engine's CMake build of the engine and its
#    Catch tests (only where tests/engine/ exists).
# Prints per build: wall seconds, user + sys CPU seconds, and for the installs
# the size of the installed libs/ directory.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
timed() {  # label, command...: runs it, prints wall and CPU from /usr/bin/time
  local label=$1 t
  shift
  t=$(mktemp)
  if ! /usr/bin/time -f "%e %U %S" -o "$t" "$@" >"$t.log" 2>&1; then
    tail -20 "$t.log" >&2
    echo "$label failed" >&2
    exit 1
  fi
  read -r wall user sys <"$t"
  printf '%s | wall %.0f s | CPU %.0f s (user %.0f + sys %.0f)' "$label" "$wall" "$(echo "$user + $sys" | bc)" "$user" "$sys"
  rm -f "$t" "$t.log"
}
for ref in "$@"; do
  tmp=$(mktemp -d)
  git clone -q "$repo" "$tmp/src"
  git -C "$tmp/src" checkout -q "$ref"
  sha=$(git -C "$tmp/src" rev-parse --short HEAD)
  export MAKEFLAGS=-j2 _R_SHLIB_STRIP_=true R_STRIP_SHARED_LIB="strip --strip-debug"
  for kind in ${BENCH_BUILD_KINDS:-demo check}; do
    mkdir -p "$tmp/lib-$kind"
    (cd "$tmp/src" && git clean -qfdx)
    if [ "$kind" = check ]; then export CPPESTIMATORS_CATCH_TESTS=true; else unset CPPESTIMATORS_CATCH_TESTS; fi
    timed "$sha $kind install" R CMD INSTALL --preclean --no-test-load -l "$tmp/lib-$kind" "$tmp/src"
    echo " | libs $(du -sk "$tmp/lib-$kind/cppestimators/libs" | cut -f1) KiB"
  done
  unset CPPESTIMATORS_CATCH_TESTS
  if [ -d "$tmp/src/tests/engine" ]; then
    timed "$sha engine tests" sh -c "cmake -S '$tmp/src/tools/engine' -B '$tmp/engine' && cmake --build '$tmp/engine' -j2"
    echo
  fi
  rm -rf "$tmp"
done
