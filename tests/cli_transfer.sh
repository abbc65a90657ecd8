#!/usr/bin/env bash
# cli_transfer.sh MMTUNE DATA - results that travel: a real tune exported as CSV and JSON
# and imported into an empty database gives the same rows back, keeping the device's
# fingerprint (served there, not on another device), the template hash (a changed one
# stays stale), each vendor figure's pairing with the trial it was timed beside (best_view's
# ratio), a cut-short search's partial best and its session's outcome; importing twice, or
# into the database it came from, adds nothing; a file written before the pairing, partial
# and outcome columns existed still imports (unpaired: no ratio); a malformed file is
# refused with its line and nothing is written. mmtune merge keeps every trial, the faster
# best and the vendor figure beside it, changes nothing when run again or in another
# order, never writes its inputs, migrates an older input and refuses a newer one.
set -u
MMTUNE=$1
DATA=$2
. "$(dirname "$0")/clilib.sh"
need_sqlite3
tune() { # DB SEED [options]: a tiny CPU tune, two candidates per problem
  local db=$1 seed=$2; shift 2
  "$MMTUNE" --device cpu --shapes "$DATA/shapes_tiny.yaml" --db "$db" --strategy random --budget 2 --seed "$seed" \
    --quiet "$@" >/dev/null 2>"$tmp/tune.err" || { echo "FAIL: tune $db: $(cat "$tmp/tune.err")"; exit 1; }
}
# --- export and import ------------------------------------------------------------------------
tune "$tmp/a.db" 1
check "export as CSV" 0 "$MMTUNE" export --db "$tmp/a.db" -o "$tmp/a.csv"
check "export as JSON (by the file's name)" 0 "$MMTUNE" export --db "$tmp/a.db" -o "$tmp/a.json"
rows=$(($(q "$tmp/a.db" "select count(*) from trial") + $(q "$tmp/a.db" "select count(*) from baseline")))
expect_eq "one CSV line per trial and baseline, and the header" "$(wc -l <"$tmp/a.csv")" $((rows + 1))
expect_eq "the JSON file says what it is" "$(head -c 49 "$tmp/a.json")" '{"format": "mmtune-results", "version": 3, "rows"'
"$MMTUNE" export --db "$tmp/a.db" --format csv --quiet >"$tmp/stdout.csv"
expect_same "export to stdout is the same CSV" "$tmp/a.csv" "$tmp/stdout.csv"
(cd "$tmp" && "$MMTUNE" export --db "$tmp/a.db" -o - --quiet >"$tmp/dash.csv")
expect_same "export -o - is stdout too" "$tmp/a.csv" "$tmp/dash.csv"
[ ! -e "$tmp/-" ] || { echo "FAIL: export -o - wrote a file named -"; fail=1; }

check "import the CSV into a new database" 0 "$MMTUNE" import "$tmp/a.csv" --db "$tmp/b.db"
"$MMTUNE" export --db "$tmp/b.db" -o "$tmp/b.csv" --quiet
expect_same "what was imported exports the same (every value exact)" "$tmp/a.csv" "$tmp/b.csv"
check "import the JSON into another" 0 "$MMTUNE" import "$tmp/a.json" --db "$tmp/c.db"
"$MMTUNE" export --db "$tmp/c.db" -o "$tmp/c.csv" --quiet
expect_same "JSON carries the same rows" "$tmp/a.csv" "$tmp/c.csv"
check "stdin, twice more" 0 sh -c "\"$MMTUNE\" import - --db \"$tmp/b.db\" <\"$tmp/a.json\" && \"$MMTUNE\" import \"$tmp/a.csv\" --db \"$tmp/b.db\""
expect_err "importing again adds nothing" "added 0 trials, 0 sessions, 0 devices; set 0 best and 0 baselines"
"$MMTUNE" export --db "$tmp/b.db" -o "$tmp/b2.csv" --quiet
expect_same "and changes nothing" "$tmp/a.csv" "$tmp/b2.csv"
check "import into the database it came from" 0 "$MMTUNE" import "$tmp/a.json" --db "$tmp/a.db"
expect_err "adds nothing there either" "added 0 trials"
expect_eq "the device keeps its fingerprint" "$(q "$tmp/b.db" "select fingerprint from device")" \
  "$(q "$tmp/a.db" "select fingerprint from device")"
expect_eq "best_view is the same" "$(q "$tmp/b.db" "select * from best_view")" "$(q "$tmp/a.db" "select * from best_view")"
expect_eq "  every best with the vendor figure timed beside it, and the ratio" \
  "$(q "$tmp/b.db" "select count(*) from best_view where ratio is not null")" 3
expect_eq "  the session's outcome" "$(q "$tmp/b.db" "select outcome from session")" complete

# a search the time budget cut short: its best stays partial, its session's outcome too
"$MMTUNE" --device cpu --shapes "$DATA/shapes_budget.yaml" --db "$tmp/p.db" --budget 1s --quiet >/dev/null 2>&1
expect_eq "a cut-short tune (the premise)" "$(q "$tmp/p.db" "select outcome || ' ' || partial from session, best")" \
  "partial 1"
"$MMTUNE" export --db "$tmp/p.db" -o "$tmp/p.json" --quiet
check "import it" 0 "$MMTUNE" import "$tmp/p.json" --db "$tmp/pi.db"
expect_eq "  partial and outcome arrive" "$(q "$tmp/pi.db" "select outcome || ' ' || partial from session, best")" \
  "partial 1"
expect_eq "  best_view is the same" "$(q "$tmp/pi.db" "select * from best_view")" \
  "$(q "$tmp/p.db" "select * from best_view")"

# files written before the pairing, partial and outcome columns existed (tests/data: a tune
# of shapes_tiny.yaml exported by that mmtune, as CSV and as JSON version 1)
check "import an older CSV and JSON" 0 "$MMTUNE" import "$DATA/export_v1.csv" "$DATA/export_v1.json" --db "$tmp/old.db"
expect_err "  the same rows, once" "32 rows read; added 13 trials, 1 sessions, 1 devices; set 3 best and 3 baselines"
expect_eq "  bests not partial, their vendor figures unpaired: no ratio" \
  "$(q "$tmp/old.db" "select count(*) || ' ' || sum(partial) || ' ' || count(vendor) || ' ' || count(ratio)
                     from best_view")" \
  "3 0 0 0"
expect_eq "  the figures kept" "$(q "$tmp/old.db" "select count(*) || ' ' || count(trial_id) from baseline")" "3 0"
expect_eq "  the session's outcome unknown" "$(q "$tmp/old.db" "select coalesce(outcome, 'unknown') from session")" \
  unknown
check "  and again" 0 "$MMTUNE" import "$DATA/export_v1.csv" --db "$tmp/old.db"
expect_err "  adds nothing" "added 0 trials, 0 sessions, 0 devices; set 0 best and 0 baselines"

# served on this device; a file from another device (fingerprint) or of another template
# source (hash) imports, and is not served here
"$MMTUNE" bench --device cpu --shapes "$DATA/shapes_tiny.yaml" --db "$tmp/b.db" >"$tmp/bench" 2>&1
expect_eq "libmmtuned serves the imported results" "$(grep -c 'note: tuned$' "$tmp/bench")" 3
sed 's/^\(trial\|baseline\),cpu,\([^,]*\),\([^,]*\),cpu|/\1,cpu,\2,\3,cpu|another machine|/' "$tmp/a.csv" >"$tmp/other.csv"
sed 's/,cpu\/gemm_avx\.c,[0-9a-f]\{64\},/,cpu\/gemm_avx.c,0000000000000000000000000000000000000000000000000000000000000000,/' \
  "$tmp/a.csv" >"$tmp/stale.csv"
check "import another device's results" 0 "$MMTUNE" import "$tmp/other.csv" --db "$tmp/d.db"
check "import results of another template source" 0 "$MMTUNE" import "$tmp/stale.csv" --db "$tmp/e.db"
expect_eq "the other device is its own" "$(q "$tmp/d.db" "select fingerprint like 'cpu|another machine|%' from device")" 1
expect_eq "the template hash is kept" "$(q "$tmp/e.db" "select distinct source_hash from template")" \
  0000000000000000000000000000000000000000000000000000000000000000
for db in d e; do
  "$MMTUNE" bench --device cpu --shapes "$DATA/shapes_tiny.yaml" --db "$tmp/$db.db" >"$tmp/bench" 2>&1
  expect_eq "$db.db's results are not served on this device" "$(grep -c 'note: tuned$' "$tmp/bench")" 0
done

# malformed files: the line, exit 2, nothing written
before=$(q "$tmp/b.db" "select count(*) from trial")
bad() { # NAME PATTERN: the file $tmp/NAME is refused with PATTERN, b.db unchanged, no new database
  check "refuse $1" 2 "$MMTUNE" import "$tmp/a.csv" "$tmp/$1" --db "$tmp/new.db"
  expect_err "  which says $2" "$2"
  [ ! -e "$tmp/new.db" ] || { echo "FAIL: a refused import made $tmp/new.db"; fail=1; }
  check "  refused where a database exists" 2 "$MMTUNE" import "$tmp/$1" --db "$tmp/b.db"
  expect_eq "  which is unchanged" "$(q "$tmp/b.db" "select count(*) from trial")" "$before"
}
ok=$(grep -n ',ok,' "$tmp/a.csv" | sed -n 2p | cut -d: -f1) # the line of an ok trial
sed "${ok}s/,ok,[0-9.e-]*,/,ok,fast,/" "$tmp/a.csv" >"$tmp/number.csv"
bad number.csv "number.csv:$ok: time_ms_median: not a finite number \('fast'\)"
sed '1s/,gflops,/,gflop,/' "$tmp/a.csv" >"$tmp/column.csv"
bad column.csv "column.csv:1: unknown column 'gflop'"
{ head -4 "$tmp/a.csv"; printf 'trial,"cpu\n'; } >"$tmp/quote.csv"
bad quote.csv "quote.csv:5: a quoted field is not closed"
sed '4s/"status": "[a-z_]*"/"status": "crashed"/; 4s/"best": 0/"best": 1/' "$tmp/a.json" >"$tmp/best.json"
bad best.json "best.json:4: best is an ok trial"
sed '3s/"m": [0-9]*/"m": -1/' "$tmp/a.json" >"$tmp/size.json"
bad size.json "size.json:3: m, n and k are at least 1"
sed '4s/"k": \([0-9]*\)/"k": "\1"/' "$tmp/a.json" >"$tmp/type.json"
bad type.json "type.json:4:[0-9]+: k: a number"
sed '5s/"kind"/"kind/' "$tmp/a.json" >"$tmp/syntax.json"
bad syntax.json "syntax.json:5:[0-9]+: "

# --- merge ------------------------------------------------------------------------------------
tune "$tmp/x.db" 2
tune "$tmp/y.db" 3
# a kernel in an input's binary table (as older versions kept them, or as someone planted
# it) is code, and code does not travel
q "$tmp/x.db" "insert into binary (key, template_name, params, target, compiler, data, size)
               values ('planted', 'cpu/gemm_avx.c', '', '', '', x'7f454c46', 4)" >/dev/null
sums() { sha256sum "$tmp/x.db" "$tmp/y.db" "$tmp/b.db" | cut -c1-64; }
inputs=$(sums)
check "merge three databases" 0 "$MMTUNE" merge "$tmp/x.db" "$tmp/y.db" "$tmp/b.db" -o "$tmp/m.db"
expect_eq "no compiled code is merged" "$(q "$tmp/m.db" "select count(*) from binary")" 0
total=0
for db in x y b; do total=$((total + $(q "$tmp/$db.db" "select count(*) from trial"))); done
expect_eq "every trial is kept" "$(q "$tmp/m.db" "select count(*) from trial")" "$total"
# the best of each problem is the fastest of the inputs' bests
bests() { q "$1" "select p.mode, p.layout, p.m, p.n, p.k, b.template_name, b.time_ms from best b
                   join problem p on p.id = b.problem_id"; }
fastest=$(for db in x y b; do bests "$tmp/$db.db"; done |
  awk -F'|' '{ k = $1 FS $2 FS $3 FS $4 FS $5 FS $6; if (!(k in t) || $7 + 0 < t[k] + 0) t[k] = $7 }
             END { for (k in t) print k FS t[k] }' | sort)
expect_eq "each best is the fastest of the inputs'" "$(bests "$tmp/m.db" | sort)" "$fastest"
view=$(q "$tmp/m.db" "select * from best_view")
check "merge the same again" 0 "$MMTUNE" merge "$tmp/x.db" "$tmp/y.db" "$tmp/b.db" -o "$tmp/m.db"
expect_err "which adds nothing" "added 0 trials, 0 sessions, 0 devices; set 0 best and 0 baselines"
check "merge in another order into another file" 0 "$MMTUNE" merge "$tmp/b.db" "$tmp/y.db" "$tmp/x.db" -o "$tmp/n.db"
expect_eq "the same best, whatever the order" "$(q "$tmp/n.db" "select * from best_view")" "$view"
# each merged best keeps the vendor figure timed beside it: its best_view row, ratio and
# all, is the row of the input it came from
expect_eq "every merged best has its ratio" "$(q "$tmp/m.db" "select count(*) from best_view where ratio is null")" 0
for db in x y b; do q "$tmp/$db.db" "select * from best_view"; done | sort >"$tmp/input_rows"
q "$tmp/m.db" "select * from best_view" | sort >"$tmp/merged_rows"
expect_eq "  the input's row, ratio and all" "$(comm -23 "$tmp/merged_rows" "$tmp/input_rows")" ""
check "merge the cut-short tune" 0 "$MMTUNE" merge "$tmp/x.db" "$tmp/p.db" -o "$tmp/pm.db"
expect_eq "  its best stays partial, its session's outcome too" \
  "$(q "$tmp/pm.db" "select s.outcome || ' ' || b.partial from best b join trial t on t.id = b.trial_id
                      join session s on s.id = t.session_id where s.budget = '1s'")" "partial 1"
expect_eq "the inputs are untouched" "$(sums)" "$inputs"
check "a merged database merges into itself as nothing new" 0 "$MMTUNE" merge "$tmp/n.db" -o "$tmp/m.db"
expect_err "nothing new" "added 0 trials"
check "the output is no input" 2 "$MMTUNE" merge "$tmp/x.db" "$tmp/m.db" -o "$tmp/m.db"
check "a missing input" 2 "$MMTUNE" merge "$tmp/x.db" "$tmp/none.db" -o "$tmp/z.db"
[ ! -e "$tmp/z.db" ] || { echo "FAIL: a refused merge made its output"; fail=1; }
# databases mmtune must not use (as tests/cli_bad_db.sh): refused with exit 1, unchanged
printf 'problems:\n  - {m: 1, n: 1, k: 1}\n' >"$tmp/text.db"
cp "$tmp/x.db" "$tmp/corrupt.db"
size=$(stat -c %s "$tmp/corrupt.db")
head -c $((size - 100)) /dev/urandom | dd of="$tmp/corrupt.db" bs=1 seek=100 conv=notrunc status=none
for kind in text corrupt; do
  before=$(sha256sum "$tmp/$kind.db")
  check "merge refuses a $kind database" 1 "$MMTUNE" merge "$tmp/x.db" "$tmp/$kind.db" -o "$tmp/z.db"
  expect_err "  naming it" "$tmp/$kind.db"
  check "import refuses to write into it" 1 "$MMTUNE" import "$tmp/a.csv" --db "$tmp/$kind.db"
  expect_eq "  which is unchanged" "$(sha256sum "$tmp/$kind.db")" "$before"
done
[ ! -e "$tmp/z.db" ] || { echo "FAIL: a refused merge made its output"; fail=1; }

# an input of schema version 3 is migrated in memory (the file stays version 3); one newer
# than this mmtune is refused and nothing is written
sqlite3 "$tmp/v3.db" <"$DATA/schema_v3.sql"
hash=$(printf '%064d' 7)
sqlite3 "$tmp/v3.db" "PRAGMA user_version = 3;
  INSERT INTO device VALUES (1, 'cpu', 'Old CPU', 'x86_64-avx2', 'old-cpu', 'cores=2', '2024-01-01 00:00:00');
  INSERT INTO template VALUES (1, 'cpu/gemm_avx.c', '$hash', '2024-01-01 00:00:00');
  INSERT INTO config VALUES (1, 1, 'MR=6,NV=2');
  INSERT INTO problem VALUES (1, 'f64', 'f64', 'f64', 'row', 0, 0, 100, 100, 100);
  INSERT INTO trial VALUES (1, NULL, 1, 1, 1, 'ok', 2.0, 1.9, 2.5, 1.0, 1e-15, 5, NULL, '2024-01-01 00:00:01');
  INSERT INTO best VALUES (1, 1, 'cpu/gemm_avx.c', 1, 1, 1, 2.0, 1.0);"
check "merge a version-3 database" 0 "$MMTUNE" merge "$tmp/v3.db" -o "$tmp/m.db"
expect_eq "its best arrives" "$(q "$tmp/m.db" "select params from best_view where device = 'Old CPU'")" "MR=6,NV=2"
expect_eq "the input stays version 3" "$(q "$tmp/v3.db" "pragma user_version")" 3
cp "$tmp/v3.db" "$tmp/v99.db"
q "$tmp/v99.db" "pragma user_version = 99"
check "refuse a newer database" 1 "$MMTUNE" merge "$tmp/x.db" "$tmp/v99.db" -o "$tmp/z.db"
expect_err "saying so" "schema version 99 is newer"
[ ! -e "$tmp/z.db" ] || { echo "FAIL: a refused merge made its output"; fail=1; }

exit $fail
