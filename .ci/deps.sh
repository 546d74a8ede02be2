#!/usr/bin/env bash
# Installs the R packages the package, its tests and its checks need, when
# missing: Debian's prebuilt r-cran-* packages when run as root with apt,
# otherwise from CRAN through the repository R is configured with.
# `deps.sh lint` installs only what `make lint` needs (lintr), which the
# build and the tests do not need; `deps.sh test` adds the tidymodels
# packages that the tests of the parsnip engines and the tidymodels vignette
# use (make demo does not need them).
set -euo pipefail
# Debian's packages, as root: with the package lists as they are, or
# refreshed when that fails.
can_apt() { [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; }
apt_install() {
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y --no-install-recommends "$@" >/dev/null 2>&1 ||
    { apt-get update >/dev/null 2>&1 && apt-get install -y --no-install-recommends "$@" >/dev/null; }
}
# (DBI and RSQLite: sqlite_dataset() and its tests; Debian has them as
# r-cran-dbi and r-cran-rsqlite)
pkgs="Rcpp RcppEigen magrittr rlang tidyselect generics testthat xml2 callr processx ps parallelly future httpuv jsonlite ggplot2 knitr rmarkdown data.table DBI RSQLite"
# the vignettes are R Markdown: R CMD build renders them with pandoc, and
# R CMD check --as-cran checks the size of PDFs with qpdf; make test-engine
# builds the engine's C++ tests with cmake; make format-check runs
# clang-format
tools=""
for t in pandoc qpdf cmake clang-format; do command -v "$t" >/dev/null 2>&1 || tools="$tools $t"; done
if [ "${1:-}" = "lint" ]; then
  pkgs="lintr"
  tools=""
fi
if [ -n "$tools" ]; then
  if can_apt; then
    echo "Installing$tools"
    apt_install $tools
  else
    echo "needed to build and check the vignettes and the engine's tests:$tools (Debian: apt-get install$tools)" >&2
    exit 1
  fi
fi
# `deps.sh test` also installs chromium, the headless browser in which the
# tests of tensorboard()'s page run, and curl, their HTTP client (the tests
# are skipped without them)
browser=""
if [ "${1:-}" = "test" ]; then
  for t in chromium curl; do command -v "$t" >/dev/null 2>&1 || browser="$browser $t"; done
fi
if [ -n "$browser" ]; then
  if can_apt; then
    echo "Installing$browser"
    apt_install $browser
  else
    echo "the tests of tensorboard() need$browser (Debian: apt-get install$browser); they are skipped without" >&2
  fi
fi
# `deps.sh test` also installs Open MPI and Rmpi, for the tests of training
# under mpirun (skipped without them); Rmpi is looked for without loading
# it, which would start MPI in this process
if [ "${1:-}" = "test" ]; then
  if ! command -v mpirun >/dev/null 2>&1 ||
    [ -z "$(Rscript --vanilla -e "cat(system.file(package = 'Rmpi'))")" ]; then
    if can_apt; then
      echo "Installing Open MPI and Rmpi"
      apt_install openmpi-bin libopenmpi-dev r-cran-rmpi
    else
      echo "the tests of training under MPI need Open MPI and Rmpi (Debian: apt-get install openmpi-bin libopenmpi-dev r-cran-rmpi); they are skipped without" >&2
    fi
  fi
fi
missing=$(Rscript --vanilla -e "p <- strsplit('$pkgs', ' ')[[1]]; cat(p[!vapply(p, requireNamespace, TRUE, quietly = TRUE)])")
if [ -z "$missing" ]; then
  [ "${1:-}" = "test" ] && exec bash .ci/deps-tidymodels.sh
  exit 0
fi
echo "Installing missing R packages: $missing"
if can_apt; then
  debs=""
  for p in $missing; do debs="$debs r-cran-$(echo "$p" | tr '[:upper:]' '[:lower:]')"; done
  apt_install $debs
else
  Rscript --vanilla -e "repos <- getOption('repos'); if (is.null(repos) || identical(unname(repos['CRAN']), '@CRAN@')) stop('set a CRAN mirror in options(repos) to install: $missing'); install.packages(strsplit('$missing', ' ')[[1]])"
fi
still=$(Rscript --vanilla -e "p <- strsplit('$pkgs', ' ')[[1]]; cat(p[!vapply(p, requireNamespace, TRUE, quietly = TRUE)])")
if [ -n "$still" ]; then echo "could not install: $still" >&2; exit 1; fi
[ "${1:-}" = "test" ] && exec bash .ci/deps-tidymodels.sh
exit 0
