#!/usr/bin/env bash
# Run one benchmark on two checkouts, alternated, so that load that comes and goes hits both
# alike: `benchmarks/alternate.sh BEFORE_DIR AFTER_DIR ROUNDS -- benchmarks/bench_tournament.py --sandbox`.
# Each checkout runs its own copy of the benchmark with its own .venv (python3 -m venv .venv &&
# pip install -e '.[test]' in each); the machine's load is printed before each run.
set -euo pipefail
before=$1 after=$2 rounds=$3
shift 3
[ "${1:-}" = "--" ] && shift
for round in $(seq "$rounds"); do
    for tree in "$before" "$after"; do
        echo "=== $tree, round $round, $(date +%H:%M:%S), load $(cut -d' ' -f1-3 /proc/loadavg)"
        (cd "$tree" && . .venv/bin/activate && python "$@")
    done
done
