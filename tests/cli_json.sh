#!/usr/bin/env bash
# cli_json.sh MMTUNE DATA - --json on the commands that print tables (tune, bench, show):
# stdout is one JSON document (python3's json module reads it) holding the figures the text
# table prints, which goes to stderr instead (nowhere with --quiet); tune's figures are the
# database's best and vendor figures, each with the relative error of its result (the table's
# error and vendor error columns), show's rows are best_view's; --device all gives one
# document on a host of one kind of GPU and refuses it on a host of several (a run each).
set -u
MMTUNE=$1
DATA=$2
. "$(dirname "$0")/clilib.sh"
need_sqlite3
command -v python3 >/dev/null || skip "python3 is missing (scripts/install-deps.sh installs it with python3-numpy)"
db=$tmp/t.db
check "tune --json" 0 "$MMTUNE" --device cpu --shapes "$DATA/shapes_tiny.yaml" --db "$db" --budget 2 --json
cp "$tmp/out" "$tmp/tune.json"
cp "$tmp/err" "$tmp/tune.err"
# the document against the text table (stderr) and the database: the same figures
check "  its figures are the table's and the database's" 0 python3 - "$tmp/tune.json" "$tmp/tune.err" "$db" <<'PY'
import json, sqlite3, sys
doc = json.load(open(sys.argv[1]))
table = open(sys.argv[2]).read().splitlines()
db = sqlite3.connect(sys.argv[3])
assert doc["command"] == "tune" and not doc["interrupted"] and doc["database"] == sys.argv[3], doc
assert doc["device"]["backend"] == "cpu" and doc["notes"], doc
assert len(doc["rows"]) == 3, doc["rows"]
header = [l for l in table if l.startswith("problem ")]
assert len(header) == 1 and header[0].split()[-4:] == ["ratio", "error", "vendor", "error"], header
for r in doc["rows"]:
    at = [i for i, l in enumerate(table) if l.startswith(r["problem"] + " ") and table[i + 1].split() == ["config:", r["config"]]]
    assert len(at) == 1, (r["problem"], table)
    line = [table[at[0]]]
    words = line[0].split()
    assert "%.1f" % r["tuned"]["gflops"] in words, (r, line)
    assert "%.1f" % r["vendor"]["gflops"] in words and "%.2fx" % r["ratio"] in words, (r, line)
    assert abs(r["ratio"] - r["tuned"]["gflops"] / r["vendor"]["gflops"]) < 1e-9 * r["ratio"]
    # each result verified on the rounds' inputs: f32 and f64 come well within 1e-3
    for fig in (r["tuned"], r["vendor"]):
        assert 0 < fig["rel_error"] < 1e-3 and "%.1e" % fig["rel_error"] in words, (r, line)
    lo, hi = r["tuned"]["interval_ms"]
    assert lo <= r["tuned"]["median_ms"] <= hi and 0.5 < r["tuned"]["coverage"] < 1, r
    assert r["pipeline"]["measured"] + r["pipeline"]["reused"] >= 1 and r["final"] and r["figures"], r
    best, vendor = db.execute(
        "select b.gflops, v.gflops from best b join problem p on p.id = b.problem_id join config c on c.id = b.config_id "
        "join baseline v on v.trial_id = b.trial_id where p.m = ? and p.n = ? and p.k = ? and p.mode = ? and c.params = ?",
        (r["m"], r["n"], r["k"], r["mode"], r["config"])).fetchone()
    assert abs(best - r["tuned"]["gflops"]) < 1e-6 * best and abs(vendor - r["vendor"]["gflops"]) < 1e-6 * vendor, r
print("3 rows: the table's figures, the database's best and vendor figures")
PY
cat "$tmp/out" "$tmp/err"
check "tune --json --quiet" 0 "$MMTUNE" --device cpu --shapes "$DATA/shapes_tiny.yaml" --db "$db" --budget 2 --json --quiet
expect_eq "  says nothing on stderr" "$(cat "$tmp/err")" ""
cp "$tmp/out" "$tmp/quiet.json"
check "  and writes JSON alone on stdout" 0 python3 -c 'import json, sys; assert len(json.load(open(sys.argv[1]))["rows"]) == 3' \
  "$tmp/quiet.json"

check "bench --json" 0 "$MMTUNE" bench --device cpu --shapes "$DATA/shapes_tiny.yaml" --db "$db" --json --quiet
cp "$tmp/out" "$tmp/bench.json"
check "  the runtime's figures, a row per problem" 0 python3 - "$tmp/bench.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc["command"] == "bench" and len(doc["rows"]) == 3, doc
for r in doc["rows"]:
    assert r["note"] == "tuned" and r["config"] and r["tuned"]["gflops"] > 0, r
    assert r["vendor"]["library"].startswith("OpenBLAS") and r["ratio"] > 0, r
    assert 0 < r["tuned"]["rel_error"] < 1e-3 and 0 < r["vendor"]["rel_error"] < 1e-3, r
PY
cat "$tmp/err"

check "show --json" 0 "$MMTUNE" show --db "$db" --json
grep -q "^database: $db" "$tmp/err" || { echo "FAIL: show --json's table is not on stderr"; fail=1; }
cp "$tmp/out" "$tmp/show.json"
check "  best_view's rows, column by column" 0 python3 - "$tmp/show.json" "$db" <<'PY'
import json, sqlite3, sys
doc = json.load(open(sys.argv[1]))
db = sqlite3.connect(sys.argv[2])
cur = db.execute("select * from best_view")
want = [dict(zip([c[0] for c in cur.description], row)) for row in cur]
assert doc["database"] == sys.argv[2] and doc["device"] is None and doc["rows"] == want, (doc, want)
print("%d rows, %d columns each" % (len(want), len(want[0])))
PY
cat "$tmp/out" "$tmp/err"
"$MMTUNE" --device all --shapes "$DATA/shapes_tiny.yaml" --db "$tmp/x.db" --json --budget 2 >"$tmp/out" 2>"$tmp/err"
rc=$?
if grep -q "has none" "$tmp/err"; then
  expect_eq "--json with --device all on a host without a GPU is bad input" "$rc" 2
else # one kind of GPU: one run, one JSON document; several kinds: bad input
  kinds=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | sort -u | wc -l)
  expect_eq "--json with --device all on $kinds kind(s) of GPU" "$rc" "$([ "$kinds" -gt 1 ] && echo 2 || echo 0)"
fi
[ $fail = 0 ] && echo "cli_json: all passed"
exit $fail
