#!/usr/bin/env bash
# The tidymodels packages the tests of the parsnip engines use, and the
# explainers (shapviz, treeshap) the tests of the explanations compare to, and
# quantreg, the reference of the linear quantile fits. Debian's
# r-cran-* packages come built and install in seconds, but Debian's parsnip
# stack is older than current parsnip needs; so Debian's packages are
# installed first for whatever of the dependency tree Debian has, then
# .ci/cran-resolve.R installs from CRAN what is missing or too old.
set -euo pipefail
cd "$(dirname "$0")/.."
targets="parsnip workflows recipes rsample tune yardstick hardhat modeldata tibble dials glmnet bit64 haven shapviz treeshap quantreg sparsevctrs"
ok=$(Rscript --vanilla -e "p <- strsplit('$targets', ' ')[[1]]; cat(all(vapply(p, requireNamespace, TRUE, quietly = TRUE)))")
[ "$ok" = "TRUE" ] && exit 0
start=$(date +%s)
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  # the packages of the tree that are not installed, as Debian names them
  wanted=$(Rscript -e "
    db <- available.packages()
    t <- strsplit('$targets', ' ')[[1]]
    d <- unique(c(t, unlist(tools::package_dependencies(t, db, recursive = TRUE,
                                                        which = c('Depends', 'Imports', 'LinkingTo')))))
    d <- d[!d %in% rownames(installed.packages())]
    cat(paste0('r-cran-', tolower(d)))")
  debs=""
  for d in $wanted; do
    apt-cache show "$d" >/dev/null 2>&1 && debs="$debs $d"
  done
  if [ -n "$debs" ]; then
    echo "Installing from Debian:$debs"
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y --no-install-recommends $debs >/dev/null 2>&1 ||
      { apt-get update >/dev/null 2>&1 && apt-get install -y --no-install-recommends $debs >/dev/null; }
  fi
fi
# not --vanilla: the CRAN mirror is set in R's site profile
Rscript .ci/cran-resolve.R $targets
echo "tidymodels packages installed in $(( $(date +%s) - start )) s"
