#!/usr/bin/env bash
# cli_twins.sh MMTUNE DATA - a tune over a list of twin devices (--device A,B: a lane per
# device, tuner/cli/twins.h and tuner/tune/lanes.h), checked on the CPU listed twice (two
# lanes sharing it, as the run says): one run, one session row, every problem of the file
# tuned once (one line of progress each) with a best, one table with every problem, each
# row's note naming the lane that tuned it. A list
# with a device this machine lacks or an empty entry, and a list given to bench, are bad
# input with nothing written. On GPUs, --device all runs such a list per kind
# (cli_shard.sh).
set -u
MMTUNE=$1
DATA=$2
. "$(dirname "$0")/clilib.sh"
need_sqlite3
shapes=$DATA/shapes_tiny.yaml

check "a list naming a device this machine lacks" 2 "$MMTUNE" --device cpu,77 --shapes "$shapes" --db "$tmp/t.db"
check "a list with an empty entry" 2 "$MMTUNE" --device cpu, --shapes "$shapes" --db "$tmp/t.db"
expect_err "  it says which" 'an empty or overlong entry'
check "bench on a list" 2 "$MMTUNE" bench --device cpu,cpu --shapes "$shapes" --db "$tmp/t.db"
expect_err "  it says a list is for a tune" 'a list of devices is for a tune'
[ ! -e "$tmp/t.db" ] && echo "ok: nothing written" || { echo "FAIL: a database was written"; fail=1; }

check "a tune on two lanes" 0 "$MMTUNE" --device cpu,cpu --shapes "$shapes" --db "$tmp/t.db" --strategy random \
  --budget 3
expect_err "  it says the two lanes share the CPU" 'lists cpu twice'
expect_err "  and that it tunes twins" 'tuning 3 problem\(s\) on twins of .*devices cpu,cpu'
expect_eq "one session row" "$(q "$tmp/t.db" "select count(*) || ' ' || min(outcome) from session")" "1 complete"
expect_eq "a best for every problem" "$(q "$tmp/t.db" "select count(distinct problem_id) from best")" 3
expect_eq "one line of progress a problem" "$(grep -cE '^\[[123]/3\] ' "$tmp/err")" 3
for p in "f32 row NN 64x48x40" "f32 col TN 33x17x65" "f64 row NN 32x32x32"; do
  expect_eq "  $p tuned once" "$(grep -cE "^\[[123]/3\] $p:" "$tmp/err")" 1
  expect_eq "  and in the table once" "$(grep -cE "^$p +cpu/" "$tmp/out")" 1
done
expect_eq "one table" "$(grep -c '^best per shape on' "$tmp/out")" 1
expect_eq "each row's note names the lane that tuned it" "$(grep -c 'note: tuned on device cpu$' "$tmp/out")" 3
expect_err "what to run next names one device" 'mmtune bench --device cpu --shapes'
exit $fail
