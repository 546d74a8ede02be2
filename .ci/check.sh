#!/usr/bin/env bash
# Builds the package (vignettes included) and runs R CMD check --as-cran (no manual, no network
# look-ups); fails on any ERROR or WARNING and prints the test totals.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out="$root/check"
rm -rf "$out" && mkdir -p "$out"
cd "$out"
# both R CMD build (which installs the package to build the vignettes) and
# R CMD check compile the package: on both cores unless MAKEFLAGS says else
export MAKEFLAGS="${MAKEFLAGS:--j2}"
R CMD build "$root" >build.log 2>&1 || { cat build.log; exit 1; }
tarball=$(ls cppestimators_*.tar.gz)
export _R_CHECK_CRAN_INCOMING_=false _R_CHECK_CRAN_INCOMING_REMOTE_=false
export _R_CHECK_FUTURE_FILE_TIMESTAMPS_=false _R_CHECK_SYSTEM_CLOCK_=0
export NOT_CRAN=true
# without TZ, R asks timedatectl for the time zone, which warns on machines
# without systemd when a package reads it (recipes does, on loading)
export TZ="${TZ:-UTC}"
# strip the debugging information of R's default -g from the installed
# library (R CMD INSTALL's own switch; R's compiler flags stay as they are),
# and the local symbols (--discard-all: the internal functions' long C++
# names, 370 KB), keeping the external and undefined symbols the check's
# `nm -Pg` reads to look for calls such as abort() or printf()
export _R_SHLIB_STRIP_=true R_STRIP_SHARED_LIB="strip --strip-debug --discard-all"
# a suggested package CRAN cannot serve for this R (.ci/cran-resolve.R
# leaves it out: shapviz, whose xgboost needs R >= 4.3) does not stop the
# check; the tests that need it are skipped, and counted below
missing=$(Rscript --vanilla -e "p <- trimws(strsplit(read.dcf('$root/DESCRIPTION', 'Suggests')[1, 1], ',')[[1]]); p <- sub('[^A-Za-z0-9.].*', '', p); cat(p[!vapply(p, requireNamespace, TRUE, quietly = TRUE)])")
if [ -n "$missing" ]; then
  echo "suggested packages not installed (checked without them; their tests are skipped): $missing" >&2
  export _R_CHECK_FORCE_SUGGESTS_=false
  # --as-cran then looks the missing package's maintainer up in CRAN's
  # package database (web/packages/packages.rds), which the repository this
  # machine reaches does not serve: the check reads a local, empty one (no
  # maintainer known, so no package counts as orphaned)
  web="$out/cran-web"
  mkdir -p "$web/web/packages"
  Rscript --vanilla -e "saveRDS(data.frame(Package = character(), Maintainer = character()), '$web/web/packages/packages.rds')"
  export R_CRAN_WEB="file://$web"
fi
status=0
R CMD check --as-cran --no-manual "$tarball" || status=$?
log=cppestimators.Rcheck/00check.log
rout=$(ls cppestimators.Rcheck/tests/testthat.Rout* 2>/dev/null | head -1 || true)
if [ -n "$rout" ]; then
  sed -n '/\[ FAIL/,$p' "$rout" | tail -40
  totals=$(grep -o '\[ FAIL [0-9]* | WARN [0-9]* | SKIP [0-9]* | PASS [0-9]* \]' "$rout" | tail -1)
  if [ -n "$totals" ]; then
    set -- $(echo "$totals" | tr -dc '0-9 ' )
    echo "$4 passed, $1 failed, $3 skipped"
  fi
fi
if grep -qE '^Status: .*(ERROR|WARNING)' "$log" || [ "$status" -ne 0 ]; then
  echo "R CMD check found errors or warnings:" >&2
  grep -E '^\* .*(ERROR|WARNING)' "$log" >&2 || true
  exit 1
fi
grep '^Status:' "$log"
