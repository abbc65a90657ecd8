#!/usr/bin/env bash
# test-sanitizers.sh - the test suite again under the sanitizers (`make test` runs it after
# the plain suite):
#   build-asan/  AddressSanitizer and UndefinedBehaviorSanitizer (leaks included), every CPU
#                test but the NVRTC compile test (NVRTC itself is not what it checks) and the
#                kill loop (processes killed at random moments: its code paths are the
#                tuner's, which the other CLI tests run under the sanitizers whole), with
#                the skips by cause (scripts/ctest-summary.sh: the tests that load the
#                libraries into programs built without the sanitizers skip here);
#   build-tsan/  ThreadSanitizer on the threading contract (tests/test_threads.c), on the
#                loops on plain threads and their kept pool (tests/test_parallel_for.c) and on
#                CPU strided batches spread over them (tests/test_batched.c), with the
#                CPU kernels the library compiles at run time instrumented too (MMTUNE_CC
#                wraps the compiler) and their OpenMP regions on one thread: libgomp is not
#                instrumented, so its barriers would read as races; and on the tuner's lanes
#                (tests/test_lanes.c, built from its three sources: the tuner's whole library
#                under TSan would double the build) and on the out-of-core GEMM's GPUs taking
#                a failed one's tiles (tests/test_ooc_faults.c, from its five).
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)

asan=${BUILD_ASAN:-build-asan}
cmake -S . -B "$asan" -DMMT_SANITIZE=address,undefined -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$asan" -j "$jobs" >/dev/null
UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 ASAN_OPTIONS=detect_leaks=1 \
  scripts/ctest-summary.sh "$asan" -j "$jobs" --exclude '^(test_cuda_compile|cli_kill_loop)$'
echo "the suite under AddressSanitizer and UndefinedBehaviorSanitizer: passed"

tsan=${BUILD_TSAN:-build-tsan}
cmake -S . -B "$tsan" -DMMT_SANITIZE=thread -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$tsan" -j "$jobs" --target test_threads test_batched test_grouped test_parallel_for >/dev/null
cc=$(command -v "${CC:-cc}")
printf '#!/bin/sh\nexec %s -fsanitize=thread "$@"\n' "$cc" >"$tsan/cc-tsan"
chmod +x "$tsan/cc-tsan"
rm -rf "$tsan/tsan-cache"
MMTUNE_CC="$PWD/$tsan/cc-tsan" OMP_NUM_THREADS=1 MMTUNE_CACHE_DIR="$PWD/$tsan/tsan-cache" \
  TSAN_OPTIONS="halt_on_error=1 exitcode=66" "$tsan/tests/test_threads"
echo "test_threads under ThreadSanitizer: passed"
MMTUNE_CC="$PWD/$tsan/cc-tsan" OMP_NUM_THREADS=1 MMTUNE_CACHE_DIR="$PWD/$tsan/tsan-cache" \
  TSAN_OPTIONS="halt_on_error=1 exitcode=66" "$tsan/tests/test_batched" >/dev/null
echo "test_batched under ThreadSanitizer: passed"
MMTUNE_CC="$PWD/$tsan/cc-tsan" OMP_NUM_THREADS=1 MMTUNE_CACHE_DIR="$PWD/$tsan/tsan-cache" \
  TSAN_OPTIONS="halt_on_error=1 exitcode=66" "$tsan/tests/test_grouped" >/dev/null
echo "test_grouped under ThreadSanitizer: passed"
# die_after_fork=0: the test's forked child makes threads, which TSan refuses by default
TSAN_OPTIONS="halt_on_error=1 exitcode=66 die_after_fork=0" "$tsan/tests/test_parallel_for" >/dev/null
echo "test_parallel_for under ThreadSanitizer: passed"
"$cc" -std=gnu11 -O1 -g -fsanitize=thread -Isrc -Iinclude -Ituner/tune -Itests tests/test_lanes.c tuner/tune/lanes.c \
  src/problem.c -o "$tsan/test_lanes" -lpthread -lm
TSAN_OPTIONS="halt_on_error=1 exitcode=66" "$tsan/test_lanes" >/dev/null
echo "test_lanes under ThreadSanitizer: passed"
"$cc" -std=gnu11 -O1 -g -fsanitize=thread -Isrc -Iinclude -Itests tests/test_ooc_faults.c src/ooc.c src/ooc_plan.c \
  src/err.c src/problem.c -o "$tsan/test_ooc_faults" -lpthread -lm
TSAN_OPTIONS="halt_on_error=1 exitcode=66" "$tsan/test_ooc_faults" >/dev/null
echo "test_ooc_faults under ThreadSanitizer: passed"
