#!/usr/bin/env bash
# cpu_server.sh - the CPU figures of a server-sized host (the GPU machine's 16 AVX-512 cores
# or any other) in one call: a tune of bench/shapes_cpu_server.yaml ($BUDGET a problem),
# mmtune bench on it beside OpenBLAS at its best core type (paired), and bench/coresident
# (libmmtuned's sgemm and OpenBLAS's alternating in one process) from that tune's database,
# with libmmtuned's bounded spinning and with both runtimes' defaults. Builds as
# bench/gpu_run.sh does (scripts/gpu-build.sh); on a machine without OpenBLAS it takes the
# libopenblas0-pthread, libgfortran5 and libquadmath0 packages carried in .debs/. Logs and
# the database to $OUT.
#   OUT=/tmp/cpu BUDGET=10s bash bench/cpu_server.sh
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/mmtune-cpu-server}
BUDGET=${BUDGET:-10s}
mkdir -p "$OUT"
exec > >(tee "$OUT/run.log") 2>&1
BUILD=${BUILD:-build-gpu}
. scripts/gpu-build.sh
[ -d /tmp/deps/usr/lib/x86_64-linux-gnu/openblas-pthread ] &&
  export LD_LIBRARY_PATH=/tmp/deps/usr/lib/x86_64-linux-gnu/openblas-pthread:${LD_LIBRARY_PATH:-}
export MMTUNE_CACHE_DIR=/tmp/mmtune-cache
echo "$(nproc) cores: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
DB=$OUT/cpu.db
t0=$(date +%s)
$BUILD/mmtune --device cpu --shapes bench/shapes_cpu_server.yaml --db "$DB" --budget "$BUDGET" --quiet \
  >"$OUT/tune.log" 2>&1
echo "tune exit $? in $(( $(date +%s) - t0 )) s"
$BUILD/mmtune bench --device cpu --shapes bench/shapes_cpu_server.yaml --db "$DB" >"$OUT/bench.log" 2>&1
grep -E '^f(32|64) ' "$OUT/bench.log" | cut -c1-200
grep -E '^(vendor|  )' "$OUT/bench.log" | head -4
# an application's OpenBLAS at its best (the tuner sets this for its own vendor rounds)
export OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-SKYLAKEX}
MMTUNE_DB=$DB $BUILD/bench/coresident | tee "$OUT/coresident.log"
MMTUNE_DB=$DB GOMP_SPINCOUNT=300000 OPENBLAS_THREAD_TIMEOUT=28 $BUILD/bench/coresident |
  tee "$OUT/coresident_defaults.log"
