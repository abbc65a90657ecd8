#!/usr/bin/env bash
# serving.sh - the serving figures of a device in one command: for each mode of $MODES, a
# tune of the device's serving suite (bench/shapes_serving_gpu.yaml or _cpu.yaml) with that
# mode ($BUDGET a problem), then, beside the vendor library in the same process, paired:
#   mmtune bench on the suite itself        tuned problems: none below 0.98x
#   mmtune bench --unseen $UNSEEN           shapes nobody tuned, drawn between them
#   mmtune replay --unseen                  leave-one-out on the tune's records
# and the first call of a never-tuned shape against the vendor's own (bench/first_call.c).
# Logs and the database to $OUT.
#   OUT=/tmp/out MODES="bf16 f32" BUDGET=10s UNSEEN=10 bash bench/serving.sh      (GPU 0)
#   DEVICE=cpu OUT=/tmp/out BUDGET=5s UNSEEN=20 bash bench/serving.sh             (the CPU)
# A GPU machine builds as bench/gpu_run.sh does (build-gpu), whichever device is measured;
# another as `make build` (build).
set -uo pipefail
cd "$(dirname "$0")/.."
DEVICE=${DEVICE:-0}
OUT=${OUT:-/tmp/mmtune-serving}
BUDGET=${BUDGET:-10s}
UNSEEN=${UNSEEN:-10}
mkdir -p "$OUT"
exec > >(tee "$OUT/run.log") 2>&1
if [ "$DEVICE" = cpu ]; then
  MODES=${MODES:-f32 f64} SUITE=bench/shapes_serving_cpu.yaml KIND=cpu
else
  MODES=${MODES:-bf16 f16 tf32 f32x3 f32 f64} SUITE=bench/shapes_serving_gpu.yaml KIND=cuda
fi
if command -v nvidia-smi >/dev/null; then
  BUILD=build-gpu
  . scripts/gpu-build.sh
else
  BUILD=build
  make -s build || exit 1
fi
export MMTUNE_CACHE_DIR=${MMTUNE_CACHE_DIR:-/tmp/mmtune-cache}
DB=$OUT/serving.db
for mode in $MODES; do
  sed "s/MODE/$mode/" "$SUITE" >"$OUT/shapes_$mode.yaml"
  t0=$(date +%s)
  $BUILD/mmtune --device "$DEVICE" --shapes "$OUT/shapes_$mode.yaml" --db "$DB" --budget "$BUDGET" --quiet \
    >"$OUT/tune_$mode.log" 2>&1
  echo "$mode: tune exit $? in $(( $(date +%s) - t0 )) s"
  $BUILD/mmtune bench --device "$DEVICE" --shapes "$OUT/shapes_$mode.yaml" --db "$DB" >"$OUT/bench_$mode.log" 2>&1
  grep -E '^(f|b|t)[a-z0-9>-]+ (row|col) ' "$OUT/bench_$mode.log" | awk '{print "  tuned:", $0}' | cut -c1-160
done
$BUILD/mmtune bench --device "$DEVICE" --unseen "$UNSEEN" --seed 1 --db "$DB" >"$OUT/unseen.log" 2>&1
tail -20 "$OUT/unseen.log"
$BUILD/mmtune replay --unseen --db "$DB" --device "$KIND" >"$OUT/replay_unseen.log" 2>&1
tail -12 "$OUT/replay_unseen.log"
MMTUNE_CACHE_DIR=$OUT/first-call-cache $BUILD/bench/first_call "$DEVICE" "$DB" 8 | tee "$OUT/first_call.log" | tail -1
