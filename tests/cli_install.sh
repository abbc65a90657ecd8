#!/usr/bin/env bash
# cli_install.sh - the normal install: `cmake --install` into a fresh prefix puts mmtune,
# libmmtuned (.so exporting the public API alone, and .a), mmtuned.h, mmtuned.pc, the CMake
# package and the man page in place; examples/sgemm_example.c builds against the installed
# tree with pkg-config and with CMake's find_package(mmtuned) and runs; the installed
# mmtune tunes with no source tree around.
set -u
MMTUNE=$1
. "$(dirname "$0")/clilib.sh"
src=$(cd "$(dirname "$0")/.." && pwd)
build=$(dirname "$MMTUNE")
prefix="$tmp/prefix"
check "cmake --install" 0 cmake --install "$build" --prefix "$prefix"
for f in bin/mmtune lib/libmmtuned.so lib/libmmtuned.a include/mmtuned.h lib/pkgconfig/mmtuned.pc \
         lib/cmake/mmtuned/mmtunedConfig.cmake share/man/man1/mmtune.1; do
  [ -e "$prefix/$f" ] || { echo "FAIL: $f is not installed"; fail=1; }
done
exported=$(nm -D --defined-only "$prefix/lib/libmmtuned.so" | awk '{print $3}' | grep -v '^mmt_' | grep -v '^_' || true)
[ -z "$exported" ] || { echo "FAIL: libmmtuned.so exports more than the API: $exported"; fail=1; }

export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
# a library built under AddressSanitizer (scripts/test-sanitizers.sh) loads only into a
# program that starts with its runtime: the examples are built with the same flags then
san=""
ldd "$prefix/lib/libmmtuned.so" | grep -q libasan && san="-fsanitize=address,undefined"
cc -O1 $san "$src/examples/sgemm_example.c" $(pkg-config --cflags --libs mmtuned) -lm -Wl,-rpath,"$prefix/lib" \
  -o "$tmp/ex-pkg" 2>"$tmp/err" || { echo "FAIL: building with pkg-config"; cat "$tmp/err"; fail=1; }
cmake -S "$src/examples" -B "$tmp/ex-cmake" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_RPATH="$prefix/lib" \
  -DCMAKE_C_FLAGS="$san" \
  >"$tmp/out" 2>&1 && cmake --build "$tmp/ex-cmake" >>"$tmp/out" 2>&1 ||
  { echo "FAIL: building with find_package(mmtuned)"; cat "$tmp/out"; fail=1; }
cd "$tmp" # no source tree here
export MMTUNE_DB="$tmp/app.db"
check "the example, built with pkg-config" 0 "$tmp/ex-pkg"
check "the example, built with CMake" 0 "$tmp/ex-cmake/sgemm_example"
check "the installed mmtune tunes" 0 "$prefix/bin/mmtune" --device cpu --problem "f32 row NN 120x96x80" --db "$tmp/app.db" --budget 2 --quiet
check "and the example then runs the tuned kernel" 0 "$tmp/ex-pkg"
grep -q "(tuned)" "$tmp/out" || { echo "FAIL: the example did not run the tuned kernel:"; cat "$tmp/out"; fail=1; }
exit $fail
