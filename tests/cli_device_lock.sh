#!/usr/bin/env bash
# cli_device_lock.sh - one measurement of a device at a time: while a tune measures the CPU,
# a second tune or a bench with --no-wait exits 1 naming the first's pid (the refused tune
# writes no database); without it a tune waits, saying for whom, and its session starts
# only once the first's has ended.
set -u
MMTUNE=$1
. "$(dirname "$0")/clilib.sh"
need_sqlite3
"$MMTUNE" --device cpu --problem "f32 row NN 300x300x300" --db "$tmp/a.db" --budget 3s --quiet >/dev/null 2>&1 &
first=$!
lock="$XDG_CACHE_HOME/mmtune/locks/cpu.lock"
for _ in $(seq 100); do [ -s "$lock" ] && break; sleep 0.1; done
expect_eq "the first tune holds the lock, its pid in the file" "$(cat "$lock" 2>/dev/null)" "$first"
check "a second tune with --no-wait refuses" 1 \
  "$MMTUNE" --device cpu --problem "f32 row NN 30x30x30" --db "$tmp/b.db" --budget 1 --no-wait --quiet
expect_err "  naming the process that measures" "being measured by another mmtune \(pid $first\)"
[ ! -e "$tmp/b.db" ] || { echo "FAIL: the refused tune made its database"; fail=1; }
check "bench with --no-wait refuses" 1 "$MMTUNE" bench --device cpu --problem "f32 row NN 30x30x30" --db "$tmp/b.db" --no-wait
check "a second tune waits" 0 "$MMTUNE" --device cpu --problem "f32 row NN 30x30x30" --db "$tmp/b.db" --budget 1 --quiet
expect_err "  saying for whom" "waiting for another mmtune \(pid $first\)"
wait "$first"
ended=$(q "$tmp/a.db" "select ended from session")
started=$(q "$tmp/b.db" "select started from session")
[ -n "$ended" ] && [[ ! "$started" < "$ended" ]] && echo "ok: it began measuring at $started, the first ended at $ended" ||
  { echo "FAIL: the second began at '$started', the first ended at '$ended'"; fail=1; }
exit $fail
