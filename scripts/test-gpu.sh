#!/usr/bin/env bash
# test-gpu.sh - the GPU tests in one command, on a machine with an NVIDIA GPU:
#   scripts/test-gpu.sh quick     every template, mode, orientation and alignment class with a
#                                 sampled set (MMTUNE_TEST_TIER=quick); run it before any change
#                                 to a template or to the launch path lands
#   scripts/test-gpu.sh full      everything the GPU tests have (test_gpu_gemm in shards, one
#                                 process each), then `sanitize`: before a release
#   scripts/test-gpu.sh sanitize  compute-sanitizer memcheck over a sample of every template:
#                                 each family's default refused and run (test_gpu_launch_check),
#                                 the tensor-core families' sample, Strassen's additions
# Builds into $BUILD (default build-gpu; scripts/gpu-build.sh); logs to $OUT (default
# $BUILD/test-gpu). A GPU test that skips here is a failure: the tier is for a GPU machine.
set -uo pipefail
cd "$(dirname "$0")/.."
tier=${1:-quick}
case $tier in quick | full | sanitize) ;; *) echo "usage: $0 quick|full|sanitize" >&2; exit 2 ;; esac
BUILD=${BUILD:-build-gpu}
OUT=${OUT:-$BUILD/test-gpu}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || { echo "no GPU here" >&2; exit 1; }
. scripts/gpu-build.sh
export MMTUNE_CACHE_DIR=${MMTUNE_CACHE_DIR:-$PWD/$BUILD/test-gpu-cache}
gpu_tests='test_gpu_|cli_gpu_|test_blas_offload|test_stream_k'
failed=0
t0=$(date +%s)

run_ctest() { # extra ctest arguments; the table of results to stdout, the log to $OUT
  (cd "$BUILD" && ctest -R "$gpu_tests" "$@" --output-on-failure -j 4 --timeout 600) >"$OUT/ctest-$tier.log" 2>&1
  grep -E '^ *[0-9]+/[0-9]+ Test' "$OUT/ctest-$tier.log"
  if grep -qE 'Not Run|\*\*\*Failed|Skipped|Timeout' "$OUT/ctest-$tier.log" ||
     ! grep -q '100% tests passed' "$OUT/ctest-$tier.log"; then
    echo "ctest: not every GPU test passed (log: $OUT/ctest-$tier.log)"
    failed=1
  fi
}

if [ "$tier" = quick ]; then
  MMTUNE_TEST_TIER=quick run_ctest
elif [ "$tier" = full ]; then
  # the two longest tests in shares, one process each (spread over the GPUs where there are
  # several), beside the others: test_gpu_gemm's configurations, test_gpu_mma's families
  gpus=$(nvidia-smi -L | wc -l) shards=${SHARDS:-8} pids=() names=()
  share() { # name, environment assignment, test binary
    CUDA_VISIBLE_DEVICES=$(( ${#pids[@]} % gpus )) env "$2" "$BUILD/tests/$3" >"$OUT/$1.log" 2>&1 &
    pids+=($!) names+=("$1")
  }
  for i in $(seq 0 $((shards - 1))); do share "test_gpu_gemm-$i" "MMTUNE_TEST_SHARD=$i/$shards" test_gpu_gemm; done
  for f in mma wgmma dmma dmma_tma; do share "test_gpu_mma-$f" "MMTUNE_TEST_FAMILY=$f" test_gpu_mma; done
  share test_cuda_compile-full MMTUNE_TEST_TIER=full test_cuda_compile # every spread sample (make test: half)
  run_ctest -E 'test_gpu_gemm$|test_gpu_mma'
  for j in "${!pids[@]}"; do
    wait "${pids[$j]}"
    rc=$?
    echo "${names[$j]}: exit $rc, $(grep -c ' ok' "$OUT/${names[$j]}.log") lines ok (log: $OUT/${names[$j]}.log)"
    [ $rc -eq 0 ] || failed=1
  done
fi

if [ "$tier" != quick ]; then
  sanitize() { # name, command...: memcheck's summary line, a failure unless it found nothing
    local name=$1
    shift
    compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 99 "$@" >"$OUT/memcheck-$name.log" 2>&1
    local rc=$?
    echo "memcheck $name: $(grep -m1 'ERROR SUMMARY' "$OUT/memcheck-$name.log") (exit $rc)"
    [ $rc -eq 0 ] || failed=1
  }
  sanitize launch_check "$BUILD/tests/test_gpu_launch_check"
  sanitize mma "$BUILD/tests/test_gpu_mma" sanitize
  MMTUNE_TEST_TIER=quick sanitize strassen "$BUILD/tests/test_gpu_strassen"
  sanitize epilogue "$BUILD/tests/test_gpu_epilogue"
fi

echo "scripts/test-gpu.sh $tier: $([ $failed = 0 ] && echo passed || echo FAILED) in $(( $(date +%s) - t0 )) s"
exit $failed
