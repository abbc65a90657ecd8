#!/usr/bin/env bash
# cli_vendor.sh MMTUNE DATA - the vendor library as a family: a template the vendor beats
# beyond noise (tests/data/templates/cpu/gemm_paced.c: 200 us a call, against OpenBLAS's
# microseconds on 40x30x20) leaves the problem to the vendor. The vendor round records the
# vendor family's best (template `vendor`, ROUTINE=cblas_sgemm), chosen in best_view, with
# the template's best and its ratio beside it; the table and --json say the vendor serves;
# libmmtuned then calls the vendor for the problem (mmtune bench: tuned, LIBRARY=...). The
# vendor round also times the fastest template beside the vendor, calls alternating, both
# runtimes' idle threads bounded as libmmtuned bounds them (mmtune has no OpenMP of its own,
# so its kernels' libgomp loads after libmmtuned set them).
# MMTUNE_VENDOR=off keeps the vendor a yardstick: a tune records nothing of its family; a
# misspelt value is bad input with nothing written.
set -u
MMTUNE=$1
DATA=$2
. "$(dirname "$0")/clilib.sh"
need_sqlite3
export MMTUNE_TEMPLATE_DIR="$DATA/templates"
unset MMTUNE_VENDOR GOMP_SPINCOUNT OMP_WAIT_POLICY OPENBLAS_THREAD_TIMEOUT
tune() { "$MMTUNE" --device cpu --shapes "$DATA/shapes_faulty.yaml" --space "$DATA/space_twins.yaml" --db "$tmp/v.db" "$@"; }

check "a misspelt MMTUNE_VENDOR is bad input" 2 env MMTUNE_VENDOR=sometimes "$MMTUNE" --device cpu \
  --shapes "$DATA/shapes_faulty.yaml" --space "$DATA/space_twins.yaml" --db "$tmp/v.db"
expect_err "it names the variable" 'MMTUNE_VENDOR=sometimes'
[ ! -e "$tmp/v.db" ] && echo "ok: nothing written" || { echo "FAIL: a database was written"; fail=1; }

check "a tune with the vendor off" 0 env MMTUNE_VENDOR=off "$MMTUNE" --device cpu --shapes "$DATA/shapes_faulty.yaml" \
  --space "$DATA/space_twins.yaml" --db "$tmp/v.db"
grep -q "vendor: OpenBLAS" "$tmp/out" || skip "OpenBLAS is not installed: the vendor family cannot be checked"
expect_eq "no vendor family best with MMTUNE_VENDOR=off" "$(q "$tmp/v.db" "select count(*) from best where template_name = 'vendor'")" 0

check "a tune where the vendor wins" 0 tune --json
expect_eq "the vendor family's best" \
  "$(q "$tmp/v.db" "select template, params, chosen, partial from best_view where template = 'vendor'")" \
  "vendor|ROUTINE=cblas_sgemm|1|0"
expect_eq "the template's best beside it, not chosen, with its ratio under 1" \
  "$(q "$tmp/v.db" "select chosen, ratio < 1 from best_view where template = 'cpu/gemm_paced.c'")" "0|1"
expect_eq "the --json row says the vendor serves" "$(grep -c '"served_by": *"vendor"' "$tmp/out")" 1
expect_err "the table says so" 'served by OpenBLAS[^:]*: it was faster than every template in the same rounds'
expect_eq "the vendor's trial is verified and says why it is the best" \
  "$(q "$tmp/v.db" "select t.rel_error < 1e-5, t.message like '%libmmtuned serves it%' from best b join trial t on t.id = b.trial_id
                    where b.template_name = 'vendor'")" "1|1"

grep -qE 'idle threads: GOMP_SPINCOUNT=(300|10000), OPENBLAS_THREAD_TIMEOUT=4' "$tmp/out" &&
  echo "ok: the vendor's figures are of libmmtuned's idle-thread bounds" ||
  { echo "FAIL: the table does not name libmmtuned's bounds"; grep 'idle threads' "$tmp/out"; fail=1; }
expect_eq "the template's vendor round timed it beside the vendor in one process, calls alternating" \
  "$(q "$tmp/v.db" "select count(*) > 0 from trial where message like '%beside it in one process, calls alternating%'")" 1

# libmmtuned serves the vendor for that problem (its tuned entry), the same result
check "mmtune bench through libmmtuned" 0 "$MMTUNE" bench --device cpu --shapes "$DATA/shapes_faulty.yaml" --db "$tmp/v.db"
grep -qE 'LIBRARY=OpenBLAS[^ ]*.*ROUTINE=cblas_sgemm' "$tmp/out" && grep -q 'tuned' "$tmp/out" &&
  echo "ok: the bench ran the vendor as the tuned entry" || { echo "FAIL: bench did not serve the vendor"; cat "$tmp/out"; fail=1; }

# with the vendor off again, a later tune leaves the family's best as it is
check "a tune with the vendor off again" 0 env MMTUNE_VENDOR=off "$MMTUNE" --device cpu --shapes "$DATA/shapes_faulty.yaml" \
  --space "$DATA/space_twins.yaml" --db "$tmp/v.db"
expect_eq "the vendor family's best stays" "$(q "$tmp/v.db" "select count(*) from best where template_name = 'vendor'")" 1
exit $fail
