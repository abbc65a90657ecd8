#!/usr/bin/env bash
# cli_busy.sh MMTUNE DATA - a CPU tune on a busy machine. With busy loops on every core
# (started here), the tune's trials record cpu_wait above 0.25 (/proc/pressure/cpu), its
# table says busy in the problem's note and the footer, and `mmtune export` carries the
# column. Then the same trials are marked quiet (as a quiet run would have measured them),
# and the same command, busy again, reuses them, times the winner beside the vendor again,
# and leaves the quiet best, and whom libmmtuned serves, where they were. Skipped (77) where
# the kernel has no pressure stall information.
set -u
MMTUNE=$1
. "$(dirname "$0")/clilib.sh"
need_sqlite3
unset MMTUNE_CPU_WAIT # the suite turns it off for the other tests
[ -r /proc/pressure/cpu ] && grep -q '^some ' /proc/pressure/cpu ||
  skip "no /proc/pressure/cpu here (a kernel without pressure stall information)"

loops=()
busy_on() { for _ in $(seq 0 "$(nproc)"); do (while :; do :; done) & loops+=($!); done; }
busy_off() { [ ${#loops[@]} -gt 0 ] && kill "${loops[@]}" 2>/dev/null; wait "${loops[@]}" 2>/dev/null; loops=(); }
trap busy_off EXIT
tune() { "$MMTUNE" --device cpu --problem "f32 row NN 96x80x64" --budget 6 --db "$tmp/b.db"; }

busy_on
check "a tune beside busy loops" 0 tune
busy_off
ok=$(q "$tmp/b.db" "select count(*) from trial where status = 'ok'")
busy=$(q "$tmp/b.db" "select count(*) from trial where status = 'ok' and cpu_wait > 0.25")
[ "$ok" -gt 0 ] && [ $((2 * busy)) -ge "$ok" ] && echo "ok: $busy of $ok trials measured busy" ||
  { echo "FAIL: $busy of $ok trials measured busy"; q "$tmp/b.db" "select cpu_wait from trial"; fail=1; }
grep -qE 'busy: some task waited for a CPU [0-9]+% of the time' "$tmp/out" && echo "ok: the note says busy" ||
  { echo "FAIL: no busy note"; cat "$tmp/out"; fail=1; }
grep -qE '^busy: 1 of 1 problem' "$tmp/out" && echo "ok: the footer says busy" || { echo "FAIL: no busy footer"; fail=1; }
check "export" 0 "$MMTUNE" export --db "$tmp/b.db" -o "$tmp/b.csv"
head -1 "$tmp/b.csv" | grep -q 'cpu_wait' && echo "ok: the export has cpu_wait" || { echo "FAIL: no cpu_wait column"; fail=1; }

# as if a quiet run had measured them: a busy one must leave its best and the vendor's standing
q "$tmp/b.db" "update trial set cpu_wait = 0.01"
before=$(q "$tmp/b.db" "select group_concat(template_name || ' ' || trial_id, ', ') from best")
last=$(q "$tmp/b.db" "select max(id) from trial")
busy_on
check "the same command, busy again" 0 tune
busy_off
expect_eq "the quiet bests stay" "$(q "$tmp/b.db" "select group_concat(template_name || ' ' || trial_id, ', ') from best")" "$before"
new=$(q "$tmp/b.db" "select count(*) from trial where id > $last")
[ "$new" -gt 0 ] && echo "ok: the rerun recorded its $new vendor-round trial(s)" || { echo "FAIL: no new trial"; fail=1; }
expect_eq "none of the search's candidates measured again" \
  "$(q "$tmp/b.db" "select count(*) from trial where id > $last and message not like 'vendor round%'")" 0

exit $fail
