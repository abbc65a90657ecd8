#!/usr/bin/env bash
# cli_demote.sh MMTUNE DATA - a tuned template that a later run finds slower than the vendor
# beyond noise is demoted, never served silently. The CPU family's template is replaced by
# cli_final's paced one (tests/data/templates/cpu/gemm_paced.c: 100-500 us a call whatever
# the knobs, copied to cpu/gemm_avx.c of a MMTUNE_TEMPLATE_DIR, which the tuner and
# libmmtuned both read); a tune with the vendor off (a yardstick) makes it the best of f32
# 64^3; `mmtune bench`, paired with OpenBLAS (microseconds), says so in its row and footer
# and records the vendor's figure as the vendor family's best (a verified trial of a
# session "mmtune bench"), so libmmtuned serves the vendor from then on, which the next
# bench runs. With MMTUNE_VENDOR=off a bench demotes nothing.
set -u
MMTUNE=$1
DATA=$2
. "$(dirname "$0")/clilib.sh"
need_sqlite3
unset MMTUNE_VENDOR
mkdir -p "$tmp/templates/cpu" && cp "$DATA/templates/cpu/gemm_paced.c" "$tmp/templates/cpu/gemm_avx.c"
export MMTUNE_TEMPLATE_DIR="$tmp/templates"
db=$tmp/d.db
problem="f32 row NN 64x64x64"
bench() { "$MMTUNE" bench --device cpu --problem "$problem" --db "$db"; }
vendor_bests() { q "$db" "select count(*) from best where template_name = 'vendor'"; }

check "a tune of the paced stand-in, the vendor off" 0 env MMTUNE_VENDOR=off "$MMTUNE" --device cpu \
  --problem "$problem" --budget 2 --db "$db"
grep -q "vendor: OpenBLAS" "$tmp/out" || skip "OpenBLAS is not installed: there is no vendor to demote to"
expect_eq "the template's best, no vendor family best" \
  "$(q "$db" "select template, chosen from best_view")|$(vendor_bests)" "cpu/gemm_avx.c|1|0"

check "mmtune bench with the vendor off" 0 env MMTUNE_VENDOR=off "$MMTUNE" bench --device cpu --problem "$problem" \
  --db "$db"
expect_eq "it demotes nothing" "$(vendor_bests)" 0

check "mmtune bench" 0 bench
grep -q 'note: tuned; demoted: the vendor serves it from now on' "$tmp/out" &&
  grep -q '^demoted: 1 tuned problem' "$tmp/out" && echo "ok: the row and the footer say it is demoted" ||
  { echo "FAIL: no demotion said"; cat "$tmp/out"; fail=1; }
expect_eq "the vendor family's best, chosen, from a verified trial of the bench's session" \
  "$(q "$db" "select chosen from best_view where template = 'vendor'")|$(q "$db" "select c.params,
              t.rel_error between 0 and 1e-5, s.command,
              t.message like 'mmtune bench:%the template 0.%x the vendor, beyond noise; libmmtuned serves it'
              from best b join config c on c.id = b.config_id join trial t on t.id = b.trial_id
              join session s on s.id = t.session_id where b.template_name = 'vendor'")" \
  "1|ROUTINE=cblas_sgemm|1|mmtune bench|1"

check "mmtune bench again" 0 bench
grep -qE 'config: LIBRARY=OpenBLAS[^,]*,ROUTINE=cblas_sgemm' "$tmp/out" && grep -qE 'note: tuned *$' "$tmp/out" &&
  ! grep -q 'demoted' "$tmp/out" && echo "ok: libmmtuned serves the vendor as the tuned entry, nothing more to demote" ||
  { echo "FAIL: the vendor is not served"; cat "$tmp/out"; fail=1; }
exit $fail
