#!/usr/bin/env bash
# serving_gpu.sh - the serving figures of a GPU in one call (the device machine; build as
# bench/gpu_run.sh does): for each mode of $MODES, a tune of bench/shapes_serving.yaml with
# that mode ($BUDGET a problem), then, beside cuBLAS in the same process, paired:
#   mmtune bench on the suite itself        tuned problems: none below 0.98x
#   mmtune bench --unseen $UNSEEN           shapes nobody tuned, drawn between them
#   mmtune replay --unseen                  leave-one-out on the tune's records
# and the first call of a never-tuned shape against cuBLAS's own (bench/first_call.c).
# Logs and the database to $OUT.
#   OUT=/tmp/out MODES="bf16 f32" BUDGET=10s UNSEEN=10 bash bench/serving_gpu.sh
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/mmtune-serving}
MODES=${MODES:-bf16 f16 tf32 f32x3 f32 f64}
BUDGET=${BUDGET:-10s}
UNSEEN=${UNSEEN:-10}
mkdir -p "$OUT"
exec > >(tee "$OUT/run.log") 2>&1
BUILD=build-gpu
. scripts/gpu-build.sh
export MMTUNE_CACHE_DIR=/tmp/mmtune-cache
DB=$OUT/serving.db
for mode in $MODES; do
  sed "s/MODE/$mode/" bench/shapes_serving.yaml >"$OUT/shapes_$mode.yaml"
  t0=$(date +%s)
  $BUILD/mmtune --device 0 --shapes "$OUT/shapes_$mode.yaml" --db "$DB" --budget "$BUDGET" --quiet \
    >"$OUT/tune_$mode.log" 2>&1
  echo "$mode: tune exit $? in $(( $(date +%s) - t0 )) s"
  $BUILD/mmtune bench --device 0 --shapes "$OUT/shapes_$mode.yaml" --db "$DB" >"$OUT/bench_$mode.log" 2>&1
  grep -E '^(f|b|t)[a-z0-9>-]+ (row|col) ' "$OUT/bench_$mode.log" | awk '{print "  tuned:", $0}' | cut -c1-160
done
$BUILD/mmtune bench --device 0 --unseen "$UNSEEN" --seed 1 --db "$DB" >"$OUT/unseen.log" 2>&1
tail -20 "$OUT/unseen.log"
$BUILD/mmtune replay --unseen --db "$DB" --device cuda >"$OUT/replay_unseen.log" 2>&1
tail -12 "$OUT/replay_unseen.log"
MMTUNE_CACHE_DIR=$OUT/first-call-cache $BUILD/bench/first_call 0 "$DB" 8 | tee "$OUT/first_call.log" | tail -1
