#!/usr/bin/env bash
# multi_gpu.sh - the figures of several GPUs of one host in one command (a machine with 2 or
# 4 GPUs; build as bench/gpu_run.sh does):
#   the GPU serving suite (bench/shapes_serving_gpu.yaml, $MODE, $BUDGET a problem) tuned on
#   GPU 0 alone and on every GPU (--device all: one run, a lane per twin), each from an empty
#   kernel cache: the wall times, their ratio, and each problem's figure in both runs;
#   the out-of-core GEMM on host matrices ($OOC_SIZES), pageable and pinned, on GPU 0 and on
#   every GPU (bench_ooc).
# Logs and the databases to $OUT.
#   OUT=/tmp/out MODE=bf16 BUDGET=10s OOC_SIZES="16384 32768" bash bench/multi_gpu.sh
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/mmtune-multi-gpu}
MODE=${MODE:-bf16}
BUDGET=${BUDGET:-10s}
OOC_SIZES=${OOC_SIZES-16384} # empty: no out-of-core runs
mkdir -p "$OUT"
exec > >(tee "$OUT/run.log") 2>&1
BUILD=build-gpu
. scripts/gpu-build.sh
nvidia-smi -L
sed "s/MODE/$MODE/" bench/shapes_serving_gpu.yaml >"$OUT/shapes.yaml"
for run in one all; do
  export MMTUNE_CACHE_DIR=$OUT/cache-$run # each run compiles its own kernels: the same work
  device=$([ $run = one ] && echo 0 || echo all)
  t0=$(date +%s%N)
  $BUILD/mmtune --device "$device" --shapes "$OUT/shapes.yaml" --db "$OUT/$run.db" --budget "$BUDGET" \
    >"$OUT/tune_$run.log" 2>&1
  rc=$?
  echo "$run (--device $device): exit $rc in $(( ($(date +%s%N) - t0) / 1000000 )) ms" | tee "$OUT/wall_$run.txt"
done
python3 - "$OUT" <<'PY'
import re, sqlite3, sys
out = sys.argv[1]
ms = {r: int(re.search(r"in (\d+) ms", open(f"{out}/wall_{r}.txt").read()).group(1)) for r in ("one", "all")}
print(f"wall time, every GPU over GPU 0 alone: {ms['all'] / ms['one']:.2f}x ({ms['all'] / 1000:.0f} s against {ms['one'] / 1000:.0f} s)")
def figures(db):
    c = sqlite3.connect(db)
    q = ("select mode || ' ' || layout || ' ' || trans || ' ' || m || 'x' || n || 'x' || k, max(gflops) "
         "from best_view where template != 'vendor' group by 1")
    return dict(c.execute(q).fetchall())
one, every = figures(f"{out}/one.db"), figures(f"{out}/all.db")
for p in sorted(one):
    if p in every:
        print(f"  {p:40s} {one[p]:9.1f} {every[p]:9.1f} GFLOP/s  {every[p] / one[p]:.2f}x")
print(f"problems with a best: GPU 0 alone {len(one)}, every GPU {len(every)}")
PY
for size in $OOC_SIZES; do
  for memory in pageable pinned; do # pinned: the copies read and write the matrices in place
    for devices in 0 all; do
      log=$OUT/ooc_${size}_${memory}_$devices.log
      $BUILD/bench/bench_ooc $([ $memory = pinned ] && echo --pinned) --modes fp32,bf16,fp64 --no-xt --no-device \
        --devices "$devices" "$size" >"$log" 2>&1
      echo "out-of-core $size^3, $memory host matrices, devices $devices:"
      tail -3 "$log"
    done
  done
done
