#!/usr/bin/env bash
# cli_explain.sh - mmtune explain: every knob of every search space, with the words of its
# line in the space (so a knob added without a comment shows here), one knob across the
# templates that have it, and an unknown knob refused (exit 2).
set -u
MMTUNE=$1
SRC=$(cd "$(dirname "$0")/.." && pwd)
. "$(dirname "$0")/clilib.sh"
check "explain" 0 "$MMTUNE" explain
knobs=$(for f in "$SRC"/search_spaces/*.yaml; do sed -n '/^params:/,/^[a-z]/p' "$f" | grep -cE '^ +[A-Z0-9_]+:'; done |
  awk '{ s += $1 } END { print s }')
expect_eq "every knob of every space" "$(grep -cE '^  [A-Z0-9_]+ ' "$tmp/out")" "$knobs"
expect_eq "each with its meaning" "$(grep -E '^  [A-Z0-9_]+ ' "$tmp/out" | awk 'NF < 3' | wc -l)" 0
expect_eq "every template" "$(grep -cE '^(cpu|cuda)/' "$tmp/out")" "$(ls "$SRC"/search_spaces/*.yaml | wc -l)"
check "explain KC" 0 "$MMTUNE" explain KC
grep -qE '^KC +cpu/gemm_avx.c +\[256, 384\] +depth of the packed blocks$' "$tmp/out" ||
  { echo "FAIL: $(cat "$tmp/out")"; fail=1; }
check "explain an unknown knob" 2 "$MMTUNE" explain NOPE
expect_err "  says so" "no template has a knob NOPE"
check "explain, two knobs" 2 "$MMTUNE" explain KC MC
[ $fail = 0 ] && echo "cli_explain: all passed"
exit $fail
