#!/usr/bin/env bash
# Paired runs of the step-path benches against two installed builds of the
# package: the MLP at 1 and 2 threads (bench/mlp.R), the linear grid
# (bench/grid.R), boosted trees (bench/trees.R, uniform task, 1e5 rows), the
# custom estimator against the canned DNN (bench/custom.R) and the per-call
# bench (bench/percall.R). Each bench runs A B B A (A and B being the
# library directories given), and each build's faster run of the two is
# printed, so that a drift of the machine's load shows in both.
#   bash bench/paired.sh LIB_A LIB_B [ROUNDS]
# prints one line per bench and build: bench, build (A or B), figure(s).
set -euo pipefail
cd "$(dirname "$0")"
a=$1
b=$2
run() { R_LIBS="$1" Rscript --vanilla "${@:2}" 2>/dev/null; }
mlp() { BENCH_MLP_THREADS=$2 run "$1" mlp.R | awk '{print $2}'; }
grid() { BENCH_GRID_SECONDS=0.3 run "$1" grid.R | awk -F, 'NR > 1 {printf "%s:%s=%s ", $1, $2, $3}'; }
trees() { BENCH_TREES_TASK=uniform BENCH_TREES_ROWS=100000 run "$1" trees.R | awk '{print $3, $4}'; }
custom() { run "$1" custom.R | awk -F'|' 'NR > 2 && NF > 4 {gsub(/^ +| +$/, "", $2); printf "%s: canned=%s custom=%s; ", $2, $3 + 0, $4 + 0}'; }
percall() { BENCH_PERCALL_REPS=30 BENCH_PERCALL_COLUMNS=5,500 run "$1" percall.R csv | awk -F, 'NR > 1 {printf "p%s train=%.3f evaluate=%.3f predict=%.3f; ", $1, $2, $3, $4}'; }
for bench in "mlp 1" "mlp 2" grid trees custom percall; do
  for lib in "$a" "$b" "$b" "$a"; do
    tag=$([ "$lib" = "$a" ] && echo A || echo B)
    # shellcheck disable=SC2086
    echo "$bench | $tag | $(set -- $bench; "$1" "$lib" ${2:-})"
  done
done
