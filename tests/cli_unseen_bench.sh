#!/usr/bin/env bash
# cli_unseen_bench.sh - `mmtune bench --unseen N`: shapes nobody tuned, drawn between the
# tuned ones of a tiny database (a quick tune of three f32 problems), timed through
# libmmtuned beside the vendor as any bench. The shapes are of the tuned kinds, inside the
# tuned range and never a tuned problem; the table's footer has the draw's line and a summary
# for f32 (geometric mean, p10 and minimum of the ratios where the vendor was timed, and
# what served the shapes); the same seed draws the same shapes, another seed others. Bad
# input exits 2. The vendor competes here (MMTUNE_VENDOR unset), as it does for users.
set -u
MMTUNE=$1
DATA=$2
. "$(dirname "$0")/clilib.sh"
need_sqlite3
unset MMTUNE_VENDOR
db=$tmp/t.db
cat >"$tmp/s.yaml" <<'EOF'
problems:
  - {m: 24, n: 16, k: 32}
  - {m: 64, n: 48, k: 40}
  - {m: 40, n: 64, k: 24, trans_b: true}
EOF

check "a quick tune" 0 "$MMTUNE" --device cpu --shapes "$tmp/s.yaml" --db "$db" --strategy random --budget 2 --quiet
check "--unseen needs a count" 2 "$MMTUNE" bench --device cpu --db "$db" --unseen
check "--unseen 0" 2 "$MMTUNE" bench --device cpu --db "$db" --unseen 0
check "--unseen and --problem" 2 "$MMTUNE" bench --device cpu --db "$db" --unseen 2 --problem "f32 row NN 8x8x8"
check "--seed without --unseen" 2 "$MMTUNE" bench --device cpu --db "$db" --problem "f32 row NN 8x8x8" --seed 2
check "a database with nothing tuned" 2 "$MMTUNE" bench --device cpu --db "$tmp/none.db" --unseen 2

shapes() { grep -oE '^f32 row (NN|NT) [0-9]+x[0-9]+x[0-9]+' "$tmp/out"; }
check "bench --unseen 4 --seed 7" 0 "$MMTUNE" bench --device cpu --db "$db" --unseen 4 --seed 7
cp "$tmp/out" "$tmp/bench"
shapes | sort >"$tmp/drawn"
expect_eq "4 shapes drawn" "$(wc -l <"$tmp/drawn")" 4
q "$db" "select mode || ' ' || layout || ' ' || trans || ' ' || m || 'x' || n || 'x' || k from best_view" |
  sort -u >"$tmp/tuned"
expect_eq "the tuned problems read back" "$(wc -l <"$tmp/tuned")" 3
expect_eq "none of them tuned" "$(comm -12 "$tmp/drawn" "$tmp/tuned")" ""
awk '{ split($4, d, "x"); if (d[1] < 24 || d[1] > 64 || d[2] < 16 || d[2] > 64 || d[3] < 24 || d[3] > 40) print }' \
  "$tmp/drawn" >"$tmp/outside"
expect_eq "each inside the tuned range of M, N and K" "$(cat "$tmp/outside")" ""
grep -q "^unseen: 4 shape(s) per mode drawn with seed 7, none tuned on this device" "$tmp/bench" &&
  echo "ok: the draw's line" || { echo "FAIL: no draw line"; cat "$tmp/bench"; fail=1; }
if grep -q "^vendor: OpenBLAS" "$tmp/bench"; then
  grep -qE "^unseen f32: 4 shape\(s\), 4 timed beside the vendor; libmmtuned's GFLOP/s over the vendor's: geomean [0-9.]+x, p10 [0-9.]+x, min [0-9.]+x; what served them: [a-z]" "$tmp/bench" &&
    echo "ok: the f32 summary" || { echo "FAIL: no f32 summary"; cat "$tmp/bench"; fail=1; }
else
  grep -qE "^unseen f32: 4 shape\(s\), 0 timed beside the vendor; what served them: [a-z]" "$tmp/bench" &&
    echo "ok: the f32 summary (no vendor library here)" || { echo "FAIL: no f32 summary"; cat "$tmp/bench"; fail=1; }
fi

check "the same seed again" 0 "$MMTUNE" bench --device cpu --db "$db" --unseen 4 --seed 7 --quiet
expect_eq "the same shapes" "$(shapes | sort)" "$(cat "$tmp/drawn")"
check "another seed" 0 "$MMTUNE" bench --device cpu --db "$db" --unseen 4 --seed 8 --quiet
[ "$(shapes | sort)" != "$(cat "$tmp/drawn")" ] && echo "ok: other shapes" ||
  { echo "FAIL: seed 8 drew seed 7's shapes"; fail=1; }
exit $fail
