#!/usr/bin/env bash
# gpu_run.sh - one full GPU session in one command (for the device machine, where nothing
# can be installed from a registry): build (scripts/gpu-build.sh), run every test (GPU tests
# included), tune a shapes file on GPU 0 and benchmark it against cuBLAS. Logs and the
# database go to $OUT.
#   OUT=/tmp/out BUDGET=150 bash bench/gpu_run.sh [shapes.yaml]
# SPACE=search_spaces/X.yaml tunes with that space alone; TESTS is a ctest -R pattern; TUNE=0
# stops after the tests.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/mmtune-gpu}
SHAPES=${1:-examples/shapes_gpu.yaml}
BUDGET=${BUDGET:-150}
STRATEGY=${STRATEGY:-random}
TESTS=${TESTS:-.}
mkdir -p "$OUT"
exec > >(tee "$OUT/run.log") 2>&1

nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
BUILD=build-gpu
. scripts/gpu-build.sh
export MMTUNE_CACHE_DIR=/tmp/mmtune-cache
(cd build-gpu && ctest -R "$TESTS" --output-on-failure -j 4 --timeout 300) >"$OUT/ctest.log" 2>&1
tail -25 "$OUT/ctest.log"
[ "${TUNE:-1}" = 1 ] || exit 0
DB=$OUT/gpu.db
t1=$(date +%s)
build-gpu/mmtune --device 0 --shapes "$SHAPES" --db "$DB" --strategy "$STRATEGY" --budget "$BUDGET" \
  ${SPACE:+--space "$SPACE"} >"$OUT/tune.log" 2>&1
echo "tune exit $? in $(( $(date +%s) - t1 )) s"
tail -30 "$OUT/tune.log"
build-gpu/mmtune bench --device 0 --shapes "$SHAPES" --db "$DB" 2>&1 | tee "$OUT/bench.log" | tail -20
