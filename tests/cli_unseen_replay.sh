#!/usr/bin/env bash
# cli_unseen_replay.sh - `mmtune replay --unseen` on the shipped landscapes: each tuned problem
# is left out in turn and served by libmmtuned's rule from the rest, scored with the
# database's figures at it. Every problem of landscape_cpu.db (8 f32, 4 f64, all timed
# beside OpenBLAS) has a row and every mode a summary (geometric mean, p10, minimum) for the
# prediction and for the nearest configuration always; the output is the same on every run;
# where the vendor is chosen its figure over the vendor's is exactly 1, where a template is
# it is the nearest configuration's (the landscapes have vendor choices, serving_h200.db, a
# serving suite's 4 s tunes of tf32 and f32x3 on an H200, template ones too: f32x3 against
# SGEMM); the JSON summaries are the rows' figures. Bad input exits 2. No device.
set -u
MMTUNE=$1
DATA=$2
. "$(dirname "$0")/clilib.sh"
cpu=$DATA/landscape_cpu.db

check "a strategy option" 2 "$MMTUNE" replay --unseen --landscape "$cpu" --strategy random
check "--landscape and --db" 2 "$MMTUNE" replay --unseen --landscape "$cpu" --db "$cpu"
check "--json without --unseen" 2 "$MMTUNE" replay --landscape "$cpu" --json
check "a device the database lacks" 2 "$MMTUNE" replay --unseen --landscape "$cpu" --device cuda
check "a missing file" 2 "$MMTUNE" replay --unseen --db "$tmp/none.db"

check "landscape_cpu.db" 0 "$MMTUNE" replay --unseen --landscape "$cpu"
cp "$tmp/out" "$tmp/first"
expect_eq "a row per tuned problem" "$(grep -cE '^f(32|64) row NN [0-9]+x[0-9]+x[0-9]+ ' "$tmp/first")" 12
for mode in f32 f64; do
  n=$([ $mode = f32 ] && echo 8 || echo 4)
  grep -q "^summary $mode: $n scored of $n (0 unscorable)" "$tmp/first" &&
    echo "ok: $mode: a summary over its $n problems" || { echo "FAIL: $mode: no summary over $n problems"; fail=1; }
done
expect_eq "a geometric mean, p10 and minimum per mode for the prediction" \
  "$(grep -cE '^  served by the rule \(prediction\) +[0-9.]+x +[0-9.]+x +[0-9.]+x$' "$tmp/first")" 2
expect_eq "... and for the nearest configuration always" \
  "$(grep -cE '^  nearest only \(no vendor\) +[0-9.]+x +[0-9.]+x +[0-9.]+x$' "$tmp/first")" 2
grep -q "8 timed alone" "$tmp/first" && echo "ok: it says the vendor figures were timed alone" ||
  { echo "FAIL: the old database's unpaired vendor figures are not said"; fail=1; }
check "again" 0 "$MMTUNE" replay --unseen --landscape "$cpu"
expect_same "deterministic" "$tmp/first" "$tmp/out"
check "--db reads the same" 0 "$MMTUNE" replay --unseen --db "$cpu" --device cpu
expect_same "  the same output" "$tmp/first" "$tmp/out"

# the table's columns: problem (4 words), served by, predicted, transfer, served, nearest, tuned
all_vendor=0 all_templ=0
for land in "$DATA"/landscape_*.db "$DATA"/serving_h200.db; do
  name=$(basename "$land")
  check "$name" 0 "$MMTUNE" replay --unseen --landscape "$land"
  awk '$1 ~ /^f(32|64|32x3|16|bf16|tf32)/ && $3 ~ /^(NN|NT|TN|TT)$/ {
         rows++
         if ($5 == "vendor") { vendor++; if ($8 != "1.00x") bad = bad " " $4 }
         else if ($5 == "template" || $5 == "default") { templ++; if ($8 != $9) bad = bad " " $4 }
       }
       END { printf "%d %d %d%s\n", rows, vendor, templ, bad ? " wrong:" bad : "" }' "$tmp/out" >"$tmp/counts"
  read -r rows vendor templ rest <"$tmp/counts"
  [ "$rows" -gt 0 ] && [ -z "$rest" ] && echo "ok: $name: served is 1 for the vendor ($vendor), the nearest's for a template ($templ)" ||
    { echo "FAIL: $name: $(cat "$tmp/counts")"; cat "$tmp/out"; fail=1; }
  all_vendor=$((all_vendor + vendor)) all_templ=$((all_templ + templ))
done
[ "$all_vendor" -gt 0 ] && [ "$all_templ" -gt 0 ] && echo "ok: the landscapes choose the vendor and a template" ||
  { echo "FAIL: the landscapes no longer exercise both choices ($all_vendor vendor, $all_templ template)"; fail=1; }

command -v python3 >/dev/null || { echo "note: python3 is missing: the JSON is not checked"; exit $fail; }
for land in "$DATA"/landscape_*.db "$DATA"/serving_h200.db; do
  name=$(basename "$land")
  check "$name --json" 0 "$MMTUNE" replay --unseen --landscape "$land" --json --quiet
  cp "$tmp/out" "$tmp/json"
  [ -s "$tmp/err" ] && { echo "FAIL: --quiet wrote to stderr"; cat "$tmp/err"; fail=1; }
  check "  its rows and summaries agree" 0 python3 - "$tmp/json" <<'PY'
import json, math, sys
d = json.load(open(sys.argv[1]))
assert d["groups"], "no group"
for g in d["groups"]:
    rows = [r for r in g["rows"] if r["scored"]]
    for r in rows:
        if r["served_by"] == "vendor":
            assert r["served_over_vendor"] == 1, r
        else:
            assert r["served_over_vendor"] == r["nearest_over_vendor"], r
            assert r["predicted_ratio"] * r["transfer"] >= d["rule"]["margin"], r
            assert r["transfer_samples"] >= d["rule"]["samples"] and r["distance"] <= r["reach"], r
        assert abs(r["nearest_over_vendor"] - r["template_gflops"] / r["vendor_gflops"]) < 1e-12, r
    for key, col in (("prediction", "served_over_vendor"), ("nearest_only", "nearest_over_vendor")):
        s, v = g["summary"][key], sorted(r[col] for r in rows)
        assert s["n"] == len(v), (key, s)
        gm = math.exp(sum(map(math.log, v)) / len(v))
        assert abs(s["geomean"] - gm) < 1e-9 * gm and s["min"] == v[0] and v[0] <= s["p10"] <= v[-1], (key, s, gm)
    assert g["summary"]["served_vendor"] + g["summary"]["served_template"] == g["summary"]["scored"]
PY
done
exit $fail
