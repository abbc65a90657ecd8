#!/usr/bin/env bash
# cli_tune.sh - the real mmtune binary end to end: usage errors exit 2 and write nothing,
# a tiny tune records trials and a best per problem and prints its pipeline figures, a
# rerun resumes without measuring again and keeps the same winners, and `mmtune show`
# prints what the database holds.
set -u
MMTUNE=$1
DATA=$2
. "$(dirname "$0")/clilib.sh"

check "help" 0 "$MMTUNE" --help
grep -q -- "--shapes" "$tmp/out" || { echo "FAIL: help text"; fail=1; }
check "unknown option" 2 "$MMTUNE" --bogus
check "missing shapes" 2 "$MMTUNE" --device cpu --db "$tmp/x.db"
check "unknown device" 2 "$MMTUNE" --device tpu0 --shapes "$DATA/shapes_tiny.yaml" --db "$tmp/x.db"
check "absent GPU" 2 "$MMTUNE" --device 99 --shapes "$DATA/shapes_tiny.yaml" --db "$tmp/x.db"
check "bad budget" 2 "$MMTUNE" --device cpu --shapes "$DATA/shapes_tiny.yaml" --budget ten --db "$tmp/x.db"
check "bad jobs" 2 "$MMTUNE" --device cpu --shapes "$DATA/shapes_tiny.yaml" --jobs -3 --db "$tmp/x.db"
check "bad time budget" 2 "$MMTUNE" --device cpu --shapes "$DATA/shapes_tiny.yaml" --budget 5x --db "$tmp/x.db"
check "bad shapes file" 2 "$MMTUNE" --device cpu --shapes "$DATA/shapes_bad_key.yaml" --db "$tmp/x.db"
grep -q "shapes_bad_key.yaml:3:" "$tmp/err" || { echo "FAIL: no file:line in: $(cat "$tmp/err")"; fail=1; }
check "missing shapes file" 2 "$MMTUNE" --device cpu --shapes "$tmp/none.yaml" --db "$tmp/x.db"
[ -e "$tmp/x.db" ] && { echo "FAIL: bad input wrote a database"; fail=1; }

check "tiny tune" 0 "$MMTUNE" --device cpu --shapes "$DATA/shapes_tiny.yaml" --db "$tmp/t.db" --budget 3
cat "$tmp/out" "$tmp/err"
[ "$(grep -c 'x.*x' "$tmp/out")" -ge 3 ] || { echo "FAIL: the table lacks rows"; fail=1; }
# the pipeline figures of every problem: compile and measure throughput, the idle share
[ "$(grep -cE 'pipeline: .*compile [0-9.]+/s in turn, measure [0-9.]+/s; idle waiting for compile [0-9]+%' \
     "$tmp/out")" = 3 ] || { echo "FAIL: the table lacks the pipeline figures"; fail=1; }
grep -qE 'compile [0-9.]+/s +measure [0-9.]+/s' "$tmp/err" || { echo "FAIL: the progress lacks throughputs"; fail=1; }
# the configs of the table, in order: a rerun must print the same
configs() { sed -n '/^problem /,/^vendor:/p' "$tmp/out" | grep -oE '[A-Z_]+=[-0-9]+(,[A-Z_]+=[-0-9]+)*'; }
winners=$(configs)
check "show" 0 "$MMTUNE" show --db "$tmp/t.db"
cat "$tmp/out"
if command -v sqlite3 >/dev/null; then
  best=$(sqlite3 "$tmp/t.db" 'select count(*) from best_view')
  trials=$(sqlite3 "$tmp/t.db" 'select count(*) from trial')
  [ "$best" = 3 ] || { echo "FAIL: best_view has $best rows, wanted 3"; fail=1; }
  [ "$trials" -ge 3 ] || { echo "FAIL: $trials trials"; fail=1; }
  bests=$(sqlite3 "$tmp/t.db" 'select params from best_view order by params')
  check "resume" 0 "$MMTUNE" --device cpu --shapes "$DATA/shapes_tiny.yaml" --db "$tmp/t.db" --budget 3
  again=$(sqlite3 "$tmp/t.db" 'select count(*) from trial')
  [ "$again" = "$trials" ] || { echo "FAIL: the rerun measured again ($trials -> $again trials)"; fail=1; }
  [ "$(configs)" = "$winners" ] || { echo "FAIL: the rerun chose otherwise:"; echo "$winners"; configs; fail=1; }
  [ "$(sqlite3 "$tmp/t.db" 'select params from best_view order by params')" = "$bests" ] ||
    { echo "FAIL: the rerun moved a best"; fail=1; }
  [ "$(grep -c 'final: kept from an earlier run' "$tmp/out")" = 3 ] || { echo "FAIL: the rerun decided anew"; fail=1; }
  ok=$(sqlite3 "$tmp/t.db" "select count(*) from trial where status='ok' and rel_error >= 0")
  [ "$ok" -ge 3 ] || { echo "FAIL: only $ok verified trials"; fail=1; }
  # a time budget stops new candidates: each of this problem's takes 0.1 s or more to time,
  # so 1 s measures about 10 and the final round, never the 54 to 108 of the space
  check "time budget" 0 "$MMTUNE" --device cpu --shapes "$DATA/shapes_budget.yaml" --db "$tmp/s.db" --budget 1s
  timed=$(sqlite3 "$tmp/s.db" 'select count(*) from trial')
  [ "$timed" -ge 1 ] && [ "$timed" -lt 40 ] || { echo "FAIL: --budget 1s measured $timed trials"; fail=1; }
  [ "$(sqlite3 "$tmp/s.db" 'select budget from session')" = 1s ] || { echo "FAIL: session budget"; fail=1; }
else
  echo "sqlite3 is not installed: database checks skipped"
fi
[ $fail = 0 ] && echo "cli_tune: all passed"
exit $fail
