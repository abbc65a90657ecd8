#!/usr/bin/env bash
# cli_replay.sh - `mmtune replay` on the shipped landscapes (tests/data/landscape_*.db,
# exhaustive tunes recorded on real devices): bad input exits 2, every strategy runs on
# every problem, the output is the same on every run (replay is deterministic), an
# unlimited budget finds the optimum, a budget is kept, and a database that holds no
# exhaustive tune says so. No device is used.
set -u
MMTUNE=$1
DATA=$2
. "$(dirname "$0")/clilib.sh"

check "no landscape" 2 "$MMTUNE" replay
check "unknown strategy" 2 "$MMTUNE" replay --landscape "$DATA/landscape_gpu.db" --strategy greedy
check "time budget" 2 "$MMTUNE" replay --landscape "$DATA/landscape_gpu.db" --budget 90s
check "bad seeds" 2 "$MMTUNE" replay --landscape "$DATA/landscape_gpu.db" --seeds 0
check "missing file" 2 "$MMTUNE" replay --landscape "$tmp/none.db"

for land in "$DATA"/landscape_*.db; do
  name=$(basename "$land")
  check "$name: all strategies" 0 "$MMTUNE" replay --landscape "$land" --strategy all --seeds 3
  cp "$tmp/out" "$tmp/first"
  for s in exhaustive random anneal model; do
    grep -q "median over problems and seeds *$s .*0.0% *(\([0-9]*\) of \1 runs within 3%)" "$tmp/first" ||
      { echo "FAIL: $name: $s with an unlimited budget does not always find the optimum"; fail=1; }
  done
  check "$name: again" 0 "$MMTUNE" replay --landscape "$land" --strategy all --seeds 3
  cmp -s "$tmp/first" "$tmp/out" || { echo "FAIL: $name: replay is not deterministic"; fail=1; }
  check "$name: budget" 0 "$MMTUNE" replay --landscape "$land" --strategy model --budget 5 --seeds 2 --warm
  awk '$2 == "model" && $4 + 0 > 5 { bad = 1 } END { exit bad }' "$tmp/out" ||
    { echo "FAIL: $name: more than 5 measurements with --budget 5"; fail=1; }
done

# a database without an exhaustive tune: a budgeted tiny tune
check "tiny tune" 0 "$MMTUNE" --device cpu --shapes "$DATA/shapes_tiny.yaml" --db "$tmp/t.db" --strategy random \
  --budget 2 --quiet
check "not a landscape" 2 "$MMTUNE" replay --landscape "$tmp/t.db"
grep -q "not an exhaustive landscape" "$tmp/out" "$tmp/err" || { echo "FAIL: the reason is not given"; fail=1; }
exit $fail
