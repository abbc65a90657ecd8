#!/usr/bin/env bash
# cli_term.sh MMTUNE DATA - SIGTERM as `timeout` and `kill -TERM -PGID` send it: one to the
# tuner and, a moment later, one to its whole process group (its workers and compilers
# too). The tune stops in order all the same: the candidate in flight ends, the partial
# table is printed, the session row says interrupted, and the exit status is 128 + 15.
set -u
MMTUNE=$1
DATA=$2
. "$(dirname "$0")/clilib.sh"
need_sqlite3
command -v setsid >/dev/null || skip "setsid is missing"
export MMTUNE_CACHE_DIR="$tmp/kernels"
tune() { # DB: a tune whose every candidate takes 0.1 s or more, in a process group of its own;
  # returns once it has measured
  setsid "$MMTUNE" --device cpu --shapes "$DATA/shapes_budget.yaml" --budget 60s --db "$1" >"$tmp/out" 2>"$tmp/err" &
  pid=$!
  for _ in $(seq 100); do # until it measures
    [ -e "$1" ] && [ "$(q "$1" "select count(*) from trial" 2>/dev/null)" -gt 0 ] 2>/dev/null && break
    sleep 0.1
  done
}
tune "$tmp/t.db"
kill -TERM "$pid"; sleep 0.2; kill -TERM -- "-$pid"
wait "$pid"; rc=$?
expect_eq "the exit status" "$rc" 143
grep -q "interrupted: a partial table" "$tmp/out" && echo "ok: the partial table is printed" ||
  { echo "FAIL: no partial table"; cat "$tmp/out" "$tmp/err"; fail=1; }
expect_eq "the session is ended, interrupted" "$(q "$tmp/t.db" "select outcome from session")" interrupted

exit $fail
