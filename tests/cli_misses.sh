#!/usr/bin/env bash
# cli_misses.sh - the real mmtune with problems from the command line and from the
# database's miss table: --problem, and its bad input (exit 2, nothing written);
# --from-misses --top 1 tunes this device's most called miss, the next run the next one
# (never one tuned since), then nothing is left; other devices' misses are never tuned,
# and every run's session row says what it tuned.
set -u
MMTUNE=$1
DATA=$2
command -v sqlite3 >/dev/null || { echo "sqlite3 is not installed: skipped"; exit 77; }
. "$(dirname "$0")/clilib.sh"
expect() { # expect DESCRIPTION ACTUAL WANTED
  [ "$2" = "$3" ] || { echo "FAIL: $1: '$2', wanted '$3'"; fail=1; }
}
db=$tmp/m.db

check "problem: bad text" 2 "$MMTUNE" --device cpu --problem "f32 row NN 8x8" --db "$db"
grep -q "MxNxK" "$tmp/err" || { echo "FAIL: no hint in: $(cat "$tmp/err")"; fail=1; }
check "problem: unknown mode" 2 "$MMTUNE" --device cpu --problem "f31 row NN 8x8x8" --db "$db"
check "problem: no CPU template" 2 "$MMTUNE" --device cpu --problem "bf16 row NN 8x8x8" --db "$db"
check "problem and shapes" 2 "$MMTUNE" --device cpu --problem "f32 row NN 8x8x8" --shapes "$DATA/shapes_tiny.yaml" --db "$db"
check "from-misses and shapes" 2 "$MMTUNE" --device cpu --from-misses --shapes "$DATA/shapes_tiny.yaml" --db "$db"
check "from-misses without device" 2 "$MMTUNE" --from-misses --db "$db"
check "top without from-misses" 2 "$MMTUNE" --device cpu --problem "f32 row NN 8x8x8" --top 2 --db "$db"
check "top 0" 2 "$MMTUNE" --device cpu --from-misses --top 0 --db "$db"
check "top not a number" 2 "$MMTUNE" --device cpu --from-misses --top many --db "$db"
check "bench from misses" 2 "$MMTUNE" bench --device cpu --from-misses --db "$db"
[ -e "$db" ] && { echo "FAIL: bad input wrote a database"; fail=1; }

check "problem: tune one" 0 "$MMTUNE" --device cpu --problem "f64 col TN 9x7x5" --budget 1 --db "$db" --quiet
grep -q "f64 col TN 9x7x5" "$tmp/out" || { echo "FAIL: the table lacks the problem"; cat "$tmp/out"; fail=1; }
expect "problem: best" "$(sqlite3 "$db" "select mode || layout || trans || m || n || k from best_view")" "f64colTN975"

# An empty miss table: nothing to tune, a session row that says so, and this device's row.
check "from-misses: none" 0 "$MMTUNE" --device cpu --from-misses --db "$db"
grep -q "nothing left to tune" "$tmp/err" || { echo "FAIL: $(cat "$tmp/err")"; fail=1; }
expect "session: nothing" "$(sqlite3 "$db" "select command like '%from misses: nothing left to tune' from session order by id desc limit 1")" 1

# Misses as libmmtuned records them (row-major forms): this device's three, another
# device's most called one, and one of this device already tuned (the f64 problem above,
# recorded as the row-major problem it equals) that must not be tuned again.
sqlite3 "$db" "
  INSERT INTO device (backend, name, arch, fingerprint) VALUES ('cpu', 'Elsewhere', 'x', 'another-device');
  INSERT INTO problem (dtype, out_dtype, mode, layout, trans_a, trans_b, m, n, k) VALUES
    ('f32', 'f32', 'f32', 'row', 0, 0, 24, 20, 16), ('f64', 'f64', 'f64', 'row', 0, 1, 12, 10, 8),
    ('f32', 'f32', 'f32', 'row', 0, 0, 40, 40, 40), ('f64', 'f64', 'f64', 'row', 0, 1, 7, 9, 5);
  INSERT INTO miss (device_id, problem_id, calls)
    SELECT d.id, p.id, CASE p.m WHEN 24 THEN 70 WHEN 12 THEN 30 WHEN 7 THEN 500 ELSE 9999 END
    FROM device d, problem p
    WHERE (d.fingerprint = 'another-device') = (p.m = 40) AND p.m IN (24, 12, 40, 7);" ||
  { echo "FAIL: seeding the miss table"; fail=1; }
expect "seeded" "$(sqlite3 "$db" "select group_concat(m || 'x' || n || 'x' || k || ' ' || calls || ' ' || tuned, ', ') from (select * from miss_view order by calls desc)")" \
  "40x40x40 9999 0, 7x9x5 500 1, 24x20x16 70 0, 12x10x8 30 0"

check "from-misses --top 1" 0 "$MMTUNE" --device cpu --from-misses --top 1 --budget 2 --db "$db" --quiet
cat "$tmp/out"
expect "first: tuned" "$(sqlite3 "$db" "select group_concat(m || 'x' || n || 'x' || k, ' ') from (select * from best_view order by m)")" "9x7x5 24x20x16"
expect "first: session" "$(sqlite3 "$db" "select command like '%from misses: f32 row NN 24x20x16 (70 calls)' from session order by id desc limit 1")" 1
trials=$(sqlite3 "$db" "select count(*) from trial")

check "from-misses --top 1 again" 0 "$MMTUNE" --device cpu --from-misses --top 1 --budget 2 --db "$db" --quiet
expect "second: tuned" "$(sqlite3 "$db" "select group_concat(m || 'x' || n || 'x' || k, ' ') from (select * from best_view order by m)")" "9x7x5 12x10x8 24x20x16"
expect "second: session" "$(sqlite3 "$db" "select command like '%from misses: f64 row NT 12x10x8 (30 calls)' from session order by id desc limit 1")" 1
expect "second: the first was not measured again" "$(sqlite3 "$db" "select count(*) from trial t join problem p on p.id = t.problem_id where p.m = 24")" \
  "$(sqlite3 "$db" "select count(*) from trial t join problem p on p.id = t.problem_id where p.m = 24 and t.id <= $trials")"

trials=$(sqlite3 "$db" "select count(*) from trial")
check "from-misses: all tuned" 0 "$MMTUNE" --device cpu --from-misses --db "$db"
grep -q "nothing left to tune" "$tmp/err" || { echo "FAIL: $(cat "$tmp/err")"; fail=1; }
expect "third: no new trial" "$(sqlite3 "$db" "select count(*) from trial")" "$trials"
expect "other device: untuned" "$(sqlite3 "$db" "select count(*) from best_view where m = 40")" 0
expect "history stays" "$(sqlite3 "$db" "select count(*) || ' ' || sum(tuned) from miss_view")" "4 3"
# a best cut short (partial: a time budget, an interrupt) is picked again, and the run goes on with it
sqlite3 "$db" "update best set partial = 1 where problem_id in (select id from problem where m = 24)"
check "from-misses: a partial best again" 0 "$MMTUNE" --device cpu --from-misses --top 1 --budget 2 --db "$db" --quiet
expect "partial: picked again" "$(sqlite3 "$db" "select command like '%from misses: f32 row NN 24x20x16 (70 calls)' from session order by id desc limit 1")" 1
expect "partial: complete after" "$(sqlite3 "$db" "select max(b.partial) from best b join problem p on p.id = b.problem_id where p.m = 24")" 0
[ $fail = 0 ] && echo "cli_misses: all passed"
exit $fail
