#!/usr/bin/env bash
# cli_resume.sh - an interrupted tune loses nothing and says what it is: a tune stopped part
# way (SIGINT as Ctrl-C sends it, SIGTERM, SIGKILL as a lost machine would) keeps every trial
# it finished; stopped by SIGINT or SIGTERM it prints its partial table, exits 128 + the
# signal, ends its session row as interrupted and marks its best partial (a killed one
# leaves the best partial and the session open); the same command then measures only what
# is left, ending with every candidate measured exactly once and the marks cleared.
set -u
MMTUNE=$1
DATA=$2
. "$(dirname "$0")/clilib.sh"
command -v sqlite3 >/dev/null || { echo "sqlite3 is not installed: skipped"; exit 77; }
# trials of the search (the final round measures its finalists again and the vendor round
# the winner, as trials of their own)
searched() {
  sqlite3 "$1" "select count(*) from trial where coalesce(message, '') not like 'final round%'
                and coalesce(message, '') not like 'vendor round%'" 2>/dev/null || echo 0
}
trials() { searched "$tmp/r.db"; }
q() { sqlite3 "$tmp/r.db" "$1"; }
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
  "$MMTUNE" --device cpu --shapes "$tmp/s.yaml" --db "$tmp/r.db" --strategy exhaustive --budget 12 --quiet \
    >"$tmp/out" 2>&1 &
  pid=$!
  for _ in $(seq 600); do [ "$(trials)" -ge 3 ] && break; sleep 0.1; done
  kill -$sig $pid 2>/dev/null
  wait $pid 2>/dev/null
  rc=$?
  kept=$(trials)
  if [ "$kept" -lt 3 ] || [ "$kept" -ge "$total" ]; then
    echo "FAIL: SIG$sig: $kept of $total trials kept (wanted some, not all)"; fail=1; continue
  fi
  [ "$(q 'select partial from best')" = 1 ] || { echo "FAIL: SIG$sig: the best is not marked partial"; fail=1; }
  if [ $sig = KILL ]; then
    [ "$(q 'select count(*) from session where ended is null and outcome is null')" = 1 ] ||
      { echo "FAIL: SIGKILL: the session row says more than a killed run can"; fail=1; }
  else
    want=$((128 + $(kill -l $sig)))
    [ $rc = $want ] || { echo "FAIL: SIG$sig: exit $rc, wanted $want"; fail=1; }
    [ "$(q "select count(*) from session where ended is not null and outcome = 'interrupted'")" = 1 ] ||
      { echo "FAIL: SIG$sig: the session row is not ended as interrupted"; q 'select * from session'; fail=1; }
    grep -q "interrupted: a partial table" "$tmp/out" && grep -qE "note: partial: interrupted after [0-9]+ of 12" "$tmp/out" ||
      { echo "FAIL: SIG$sig: no partial table"; cat "$tmp/out"; fail=1; }
    # the table's row is the database's best, by the figure it has there (timed alone: no ratio)
    best=$(q 'select params from best_view')
    grep -qF "$best" "$tmp/out" || { echo "FAIL: SIG$sig: the table does not show the best $best"; fail=1; }
    [ "$(q 'select count(*) from baseline')" = 0 ] || { echo "FAIL: SIG$sig: a vendor figure after the stop"; fail=1; }
  fi
  "$MMTUNE" --device cpu --shapes "$tmp/s.yaml" --db "$tmp/r.db" --strategy exhaustive --budget 12 >"$tmp/out" 2>&1 ||
    { echo "FAIL: SIG$sig: the rerun failed"; cat "$tmp/out"; fail=1; continue; }
  now=$(trials)
  distinct=$(q "select count(distinct config_id) from trial")
  if [ "$now" != "$total" ] || [ "$distinct" != "$total" ]; then
    echo "FAIL: SIG$sig: $now trials ($distinct configurations) after the rerun, wanted $total"; fail=1
  elif [ "$(q 'select partial from best')" != 0 ] || [ "$(q 'select outcome from session order by id desc limit 1')" != complete ]; then
    echo "FAIL: SIG$sig: the complete rerun left the marks: $(q 'select partial from best') $(q 'select outcome from session')"; fail=1
  else
    echo "ok: SIG$sig after $kept trials: the rerun measured the other $((total - kept))"
  fi
done
exit $fail
