#!/usr/bin/env bash
# f32_odd_gpu.sh - the odd and skinny fp32 suite on a GPU (bench/shapes_f32_odd.yaml), one
# step a device call (each under its 10 minutes; a warm machine keeps build-gpu/ between calls):
#   OUT=/tmp/out bash bench/f32_odd_gpu.sh tests|sk|wide|two|splitk
# tests: build (bench/gpu_run.sh, from .debs where the image lacks the headers), test_stream_k
#   and test_gpu_gemm's stream-K samples (MMTUNE_TEST_KNOB=STREAMK).
# sk: the odd problems of bench/shapes_f32_odd.yaml tuned exhaustively over large tiles with
#   and without stream-K (and split-K in order), the thin ones by the default tune, then the
#   paired bench of the whole suite against SGEMM.
# wide: after sk, into its database: the odd problems but 4097^3 over 64 x 128 and 128 x 64
#   tiles with split-K of 1-6 slices atomic too, and STREAMK up to 4 (304-384 configs
#   each), then the paired bench of the suite again.
# two: the two problems still below 0.9x (2500x300x7000, 777x1234x4321) over 64-128 x 64-256
#   tiles with split-K of 1-8 slices, atomic or in the order of K (the last slice sums), and
#   STREAMK up to 3, then benched; first test_gpu_gemm's and test_gpu_mma's SERIAL checks.
# splitk: the cost of reproducible split-K: bench/shapes_splitk.yaml tuned, then benched as it
#   is and with MMTUNE_REPRODUCIBLE=1.
# Logs and databases go to $OUT.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/mmtune-gpu}
mkdir -p "$OUT"
step=${1:?"which step: tests, sk, wide, two or splitk"}
tests=NONE
[ "$step" = tests ] && tests='test_stream_k|test_gpu_gemm'
[ "$step" = two ] && tests='test_gpu_measured'
OUT=$OUT/build TUNE=0 TESTS=$tests MMTUNE_TEST_KNOB=STREAMK bash bench/gpu_run.sh || exit 1
export MMTUNE_CACHE_DIR=/tmp/mmtune-cache
mm=build-gpu/mmtune
# The CUDA-core space narrowed to 64-128 x 64-256 tiles, 8 x 8 a thread, cp.async, with the
# split-K slice counts $1 (atomic or in the order of K) and STREAMK values $2; its default
# 128 x 64 with $3.
mid_tiles() {
  bench/subspace.sh search_spaces/cuda_gemm_simt.yaml 'BM=[64, 128]' 'BN=[64, 128, 256]' 'BK=[8]' \
    'WM=[32, 64]' 'WN=[32, 64]' 'TM=[8]' 'TN=[8]' 'VEC=[1]' 'STAGES=[3, 4]' 'ASYNC=[1]' 'PIPE=[0, 1]' 'REGCAP=[0]' \
    'PAD=[4]' "SPLITK=[$1]" 'SERIAL=[0, 1]' "STREAMK=[$2]" 'GROUP_M=[1]' 'KC=[0]' 'LEVELS=[0]' \
    "default:{BM: 128, BN: 64, BK: 8, WM: 64, WN: 32, TM: 8, TN: 8, VEC: 1, STAGES: 3, ASYNC: 1, PIPE: 1, REGCAP: 0, PAD: 4, $3, STREAMK: 0, GROUP_M: 1, EVEN: 0, KC: 0, LEVELS: 0}"
}
case $step in
tests) ;;
sk)
  db=$OUT/odd.db
  sed -n '1,/^  - {m: 96,/p' bench/shapes_f32_odd.yaml >/tmp/odd.yaml # the odd problems, not the thin ones
  { echo problems:; sed -n '/^  - {m: 1,/,$p' bench/shapes_f32_odd.yaml; } >/tmp/thin.yaml
  bench/subspace.sh search_spaces/cuda_gemm_simt.yaml 'BM=[32, 64, 128, 256]' 'BN=[64, 128, 256]' 'BK=[8]' \
    'WM=[32, 64]' 'WN=[32, 64]' 'TM=[8, 16]' 'TN=[8]' 'VEC=[1]' 'STAGES=[3, 4]' 'ASYNC=[1]' 'PIPE=[1]' 'REGCAP=[0]' \
    'PAD=[4]' 'SPLITK=[1, 5, 6]' 'SERIAL=[0, 1]' 'prune:SPLITK == 1 || SERIAL == 1' 'STREAMK=[0, 1, 2]' \
    'GROUP_M=[1, 8]' 'KC=[0]' 'LEVELS=[0]' \
    'default:{BM: 128, BN: 128, BK: 8, WM: 64, WN: 64, TM: 16, TN: 8, VEC: 1, STAGES: 4, ASYNC: 1, PIPE: 1, REGCAP: 0, PAD: 4, SPLITK: 1, SERIAL: 0, STREAMK: 0, GROUP_M: 8, EVEN: 0, KC: 0, LEVELS: 0}' \
    >/tmp/sk.yaml
  t0=$(date +%s)
  $mm --device 0 --shapes /tmp/odd.yaml --db "$db" --space /tmp/sk.yaml --strategy exhaustive \
    --budget "${SK_BUDGET:-80s}" --classic-only >"$OUT/sk_tune.log" 2>&1
  echo "odd problems, exhaustive subspace (88-192 configs each): exit $? in $(( $(date +%s) - t0 )) s"
  tail -12 "$OUT/sk_tune.log"
  $mm --device 0 --shapes /tmp/thin.yaml --db "$db" --budget "${THIN_BUDGET:-15s}" >"$OUT/thin_tune.log" 2>&1
  echo "thin problems, default tune: exit $?"
  $mm bench --device 0 --shapes bench/shapes_f32_odd.yaml --db "$db" 2>&1 | tee "$OUT/odd_bench.log" | tail -16
  ;;
wide)
  db=$OUT/odd.db
  sed -n '1,/^  - {m: 96,/p' bench/shapes_f32_odd.yaml | grep -v 'm: 4097' >/tmp/odd.yaml
  mid_tiles '1, 2, 3, 4, 5, 6' '0, 1, 2, 3, 4' 'SPLITK: 1, SERIAL: 0' >/tmp/wide.yaml
  $mm --device 0 --shapes /tmp/odd.yaml --db "$db" --space /tmp/wide.yaml --strategy exhaustive \
    --budget "${WIDE_BUDGET:-70s}" --classic-only >"$OUT/wide_tune.log" 2>&1
  echo "odd problems, the wider subspace: exit $?"
  grep -E '^\[' "$OUT/wide_tune.log"
  $mm bench --device 0 --shapes bench/shapes_f32_odd.yaml --db "$db" 2>&1 | tee "$OUT/wide_bench.log" | tail -16
  ;;
two)
  MMTUNE_TEST_KNOB=SERIAL build-gpu/tests/test_gpu_gemm >"$OUT/gemm_serial.log" 2>&1
  echo "test_gpu_gemm SERIAL samples: exit $?"; tail -3 "$OUT/gemm_serial.log"
  MMTUNE_TEST_FAMILY=none build-gpu/tests/test_gpu_mma >"$OUT/mma_bits.log" 2>&1
  echo "test_gpu_mma (same bits twice, f32x3 accuracy): exit $?"; tail -3 "$OUT/mma_bits.log"
  db=$OUT/two.db
  printf 'problems:\n  - {m: 2500, n: 300, k: 7000}\n  - {m: 777, n: 1234, k: 4321}\n' >/tmp/two.yaml
  mid_tiles '1, 2, 3, 4, 5, 6, 8' '0, 1, 2, 3' 'SPLITK: 6, SERIAL: 1' >/tmp/two_space.yaml
  $mm --device 0 --shapes /tmp/two.yaml --db "$db" --space /tmp/two_space.yaml --strategy exhaustive \
    --budget "${TWO_BUDGET:-80s}" --classic-only >"$OUT/two_tune.log" 2>&1
  echo "two problems: exit $?"
  grep -E '^\[' "$OUT/two_tune.log"
  $mm bench --device 0 --shapes /tmp/two.yaml --db "$db" 2>&1 | tee "$OUT/two_bench.log" | tail -6
  MMTUNE_REPRODUCIBLE=1 $mm bench --device 0 --shapes /tmp/two.yaml --db "$db" 2>&1 | tee "$OUT/two_bench_repro.log" | tail -6
  ;;
splitk)
  db=$OUT/splitk.db
  $mm --device 0 --shapes bench/shapes_splitk.yaml --db "$db" --budget "${SPLITK_BUDGET:-30s}" --classic-only \
    >"$OUT/splitk_tune.log" 2>&1
  echo "split-K problems, default tune: exit $?"
  for r in 0 1; do
    echo "MMTUNE_REPRODUCIBLE=$r"
    MMTUNE_REPRODUCIBLE=$r $mm bench --device 0 --shapes bench/shapes_splitk.yaml --db "$db" 2>&1 |
      tee "$OUT/splitk_bench_$r.log" | tail -9
  done
  ;;
*) echo "f32_odd_gpu.sh: what is step '$step'? (tests, sk, wide, two, splitk)" >&2; exit 2 ;;
esac
