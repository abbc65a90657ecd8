#!/usr/bin/env bash
# test-threads-tsan.sh - the threading contract (tests/test_threads.c) under ThreadSanitizer:
# the library built with -fsanitize=thread in build-tsan/, and the CPU kernels it compiles
# at run time instrumented too (MMTUNE_CC wraps the compiler), their OpenMP regions on one
# thread (libgomp is not instrumented: its barriers would read as races). `make test` runs it.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${BUILD_TSAN:-build-tsan}
cmake -S . -B "$dir" -DMMT_SANITIZE=thread -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$dir" -j "$(nproc)" --target test_threads >/dev/null
cc=$(command -v "${CC:-cc}")
printf '#!/bin/sh\nexec %s -fsanitize=thread "$@"\n' "$cc" >"$dir/cc-tsan"
chmod +x "$dir/cc-tsan"
rm -rf "$dir/tsan-cache"
MMTUNE_CC="$PWD/$dir/cc-tsan" OMP_NUM_THREADS=1 MMTUNE_CACHE_DIR="$PWD/$dir/tsan-cache" \
  TSAN_OPTIONS="halt_on_error=1 exitcode=66" "$dir/tests/test_threads"
echo "test_threads under ThreadSanitizer: passed"
