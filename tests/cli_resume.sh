#!/usr/bin/env bash
# cli_resume.sh - an interrupted tune loses nothing: a tune killed part way (SIGINT as
# Ctrl-C sends it, SIGTERM, SIGKILL as a lost machine would) keeps every trial it
# finished, and the same command measures only what is left, ending with every candidate
# measured exactly once.
set -u
MMTUNE=$1
DATA=$2
. "$(dirname "$0")/clilib.sh"
# trials of the search (the final round measures its finalists again, as trials of its own)
searched() { sqlite3 "$1" "select count(*) from trial where coalesce(message, '') not like 'final round%'" 2>/dev/null || echo 0; }
trials() { searched "$tmp/r.db"; }
cat >"$tmp/s.yaml" <<'YAML'
problems:
  - {m: 256, n: 256, k: 256}
YAML
# the number of candidates: what a complete run measures
"$MMTUNE" --device cpu --shapes "$tmp/s.yaml" --db "$tmp/full.db" --strategy exhaustive --budget 12 --quiet >/dev/null 2>&1 ||
  { echo "FAIL: a complete tune"; exit 1; }
total=$(searched "$tmp/full.db")

set -m # job control: a background job must not ignore SIGINT, as it would without it
for sig in INT TERM KILL; do
  rm -f "$tmp/r.db"*
  "$MMTUNE" --device cpu --shapes "$tmp/s.yaml" --db "$tmp/r.db" --strategy exhaustive --budget 12 --quiet >/dev/null 2>&1 &
  pid=$!
  for _ in $(seq 600); do [ "$(trials)" -ge 3 ] && break; sleep 0.1; done
  kill -$sig $pid 2>/dev/null
  wait $pid 2>/dev/null
  kept=$(trials)
  if [ "$kept" -lt 3 ] || [ "$kept" -ge "$total" ]; then
    echo "FAIL: SIG$sig: $kept of $total trials kept (wanted some, not all)"; fail=1; continue
  fi
  "$MMTUNE" --device cpu --shapes "$tmp/s.yaml" --db "$tmp/r.db" --strategy exhaustive --budget 12 >"$tmp/out" 2>&1 ||
    { echo "FAIL: SIG$sig: the rerun failed"; cat "$tmp/out"; fail=1; continue; }
  now=$(trials)
  distinct=$(sqlite3 "$tmp/r.db" "select count(distinct config_id) from trial")
  if [ "$now" != "$total" ] || [ "$distinct" != "$total" ]; then
    echo "FAIL: SIG$sig: $now trials ($distinct configurations) after the rerun, wanted $total"; fail=1
  else
    echo "ok: SIG$sig after $kept trials: the rerun measured the other $((total - kept))"
  fi
done
exit $fail
