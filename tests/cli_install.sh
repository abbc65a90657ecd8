#!/usr/bin/env bash
# cli_install.sh - the normal install: `cmake --install` into a fresh prefix puts mmtune,
# libmmtuned (.so exporting the public API alone, and .a), the drop-in libmmtuned_blas.so
# (exporting the reference libblas.so.3's symbols alone), mmtuned.h, mmtuned.pc, the CMake
# package and the man page in place; examples/sgemm_example.c builds against the installed
# tree with pkg-config and with CMake's find_package(mmtuned) and runs; the installed
# mmtune tunes with no source tree around; under MMTUNE_AUTOTUNE=background the installed
# library finds the installed mmtune (bin/ of its prefix, with no mmtune on PATH) and it
# tunes the example's shape, and without it the example says so once and runs all the same.
set -u
MMTUNE=$1
build=$(dirname "$MMTUNE")
# under the sanitizers (scripts/test-sanitizers.sh) the libraries carry their runtimes,
# which programs built without them cannot load
if ldd "$build/libmmtuned.so" | grep -q -E 'lib(a|t|ub)san'; then
  echo "libmmtuned.so is built with sanitizers: programs built without them cannot load it: skipped"; exit 77
fi
. "$(dirname "$0")/clilib.sh"
src=$(cd "$(dirname "$0")/.." && pwd)
prefix="$tmp/prefix"
check "cmake --install" 0 cmake --install "$build" --prefix "$prefix"
for f in bin/mmtune lib/libmmtuned.so lib/libmmtuned.a include/mmtuned.h lib/pkgconfig/mmtuned.pc \
         lib/cmake/mmtuned/mmtunedConfig.cmake share/man/man1/mmtune.1; do
  [ -e "$prefix/$f" ] || { echo "FAIL: $f is not installed"; fail=1; }
done
exported=$(nm -D --defined-only "$prefix/lib/libmmtuned.so" | awk '{print $3}' | grep -v '^mmt_' | grep -v '^_' || true)
[ -z "$exported" ] || { echo "FAIL: libmmtuned.so exports more than the API: $exported"; fail=1; }

# The drop-in BLAS: exactly the symbols of the reference libblas.so.3 (Debian's, where it is
# installed), the two GEMM names of pip's numpy and the four of the batch extensions,
# and an unmodified BLAS program linked against it runs from the install.
if [ -e "$build/blas/libmmtuned_blas.so" ]; then
  blas=$prefix/lib/libmmtuned_blas.so
  [ -e "$blas" ] || { echo "FAIL: lib/libmmtuned_blas.so is not installed"; fail=1; }
  nm -D --defined-only "$blas" | awk '{print $3}' | grep -v '^_' | LC_ALL=C sort >"$tmp/all.syms"
  [ "$(grep -c '^scipy_cblas_[sd]gemm64_$' "$tmp/all.syms")" = 2 ] || { echo "FAIL: pip numpy's two names are not exported"; fail=1; }
  [ "$(grep -c -E '^cblas_[sd]gemm_batch(_strided)?$' "$tmp/all.syms")" = 4 ] || { echo "FAIL: the batch names are not exported"; fail=1; }
  grep -v -E '^(scipy_cblas_[sd]gemm64_|cblas_[sd]gemm_batch(_strided)?)$' "$tmp/all.syms" >"$tmp/blas.syms"
  [ "$(wc -l <"$tmp/blas.syms")" = 324 ] || { echo "FAIL: libmmtuned_blas.so exports $(wc -l <"$tmp/blas.syms") symbols, not 324"; fail=1; }
  grep -q -E '^mmt|^mmtb' "$tmp/blas.syms" && { echo "FAIL: libmmtuned_blas.so exports mmtune's own symbols"; fail=1; }
  ref=/usr/lib/x86_64-linux-gnu/blas/libblas.so.3
  if [ -e "$ref" ]; then
    nm -D --defined-only "$ref" | awk '{print $3}' | LC_ALL=C sort | diff - "$tmp/blas.syms" >"$tmp/out" ||
      { echo "FAIL: the exports differ from the reference libblas.so.3's:"; cat "$tmp/out"; fail=1; }
  fi
  printf '%s\n' '#include <stdio.h>' \
    'void cblas_sgemm(int, int, int, int, int, int, float, const float *, int, const float *, int, float, float *, int);' \
    'int main(void) { float a[4] = {1, 2, 3, 4}, b[4] = {1, 0, 0, 1}, c[4];' \
    '  cblas_sgemm(101, 111, 111, 2, 2, 2, 1, a, 2, b, 2, 0, c, 2);' \
    '  printf("%g %g %g %g\n", c[0], c[1], c[2], c[3]); return 0; }' >"$tmp/blas_app.c"
  cc "$tmp/blas_app.c" -L"$prefix/lib" -lmmtuned_blas -Wl,-rpath,"$prefix/lib" -o "$tmp/blas_app" 2>"$tmp/err" ||
    { echo "FAIL: linking a program against libmmtuned_blas"; cat "$tmp/err"; fail=1; }
  check "a program linked against the installed libmmtuned_blas" 0 env MMTUNE_BLAS_STATS=1 "$tmp/blas_app"
  grep -q "^1 2 3 4$" "$tmp/out" && grep -q "sgemm: 1 served by libmmtuned" "$tmp/err" ||
    { echo "FAIL: $(cat "$tmp/out" "$tmp/err")"; fail=1; }
fi

export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
# a library built with sanitizers (scripts/test-sanitizers.sh) needs its runtime first in
# the application: the example is built with the same -fsanitize
san=$(sed -n 's/^MMT_SANITIZE:[A-Z]*=//p' "$build/CMakeCache.txt" 2>/dev/null)
sanflags=${san:+-fsanitize=$san}
cc -O1 $sanflags "$src/examples/sgemm_example.c" $(pkg-config --cflags --libs mmtuned) -lm -Wl,-rpath,"$prefix/lib" \
  -o "$tmp/ex-pkg" 2>"$tmp/err" || { echo "FAIL: building with pkg-config"; cat "$tmp/err"; fail=1; }
cmake -S "$src/examples" -B "$tmp/ex-cmake" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_RPATH="$prefix/lib" \
  -DCMAKE_C_FLAGS="$sanflags" >"$tmp/out" 2>&1 && cmake --build "$tmp/ex-cmake" >>"$tmp/out" 2>&1 ||
  { echo "FAIL: building with find_package(mmtuned)"; cat "$tmp/out"; fail=1; }
cd "$tmp" # no source tree here
export MMTUNE_DB="$tmp/app.db"
check "the example, built with pkg-config" 0 "$tmp/ex-pkg"
check "the example, built with CMake" 0 "$tmp/ex-cmake/sgemm_example"
# background tuning from the installed library: only the prefix's bin/ holds an mmtune
export MMTUNE_AUTOTUNE=background MMTUNE_AUTOTUNE_BUDGET=2
unset MMTUNE_BIN
check "background tuning from the installed library" 0 env PATH=/usr/bin:/bin MMTUNE_DB="$tmp/bg.db" "$tmp/ex-pkg"
grep -q "no mmtune was found" "$tmp/err" && { echo "FAIL: the installed mmtune was not found:"; cat "$tmp/err"; fail=1; }
# The detached run holds its lock until it ends; reads wait for its writes (a busy
# timeout: without one a read that meets a write gets nothing), and their errors are kept
# to be shown.
bgq() { q "$tmp/bg.db" "$1" 2>>"$tmp/bgq.err"; }
ended=0
for _ in $(seq 600); do
  [ -s "$tmp/bg.db" ] && [ -n "$(bgq 'select 1 from best_view where m = 120 and n = 96 and k = 80')" ] &&
    [ "$(bgq 'select count(*) from session where ended is not null')" = 1 ] && { ended=1; break; }
  sleep 0.2
done
[ $ended = 1 ] || echo "the background run had not ended after 120 s; what the reads said: $(tail -3 "$tmp/bgq.err")"
: >"$tmp/bgq.err"
ran=$(bgq 'select command from session')
case "$ran" in
  "$(cd "$prefix/bin" && pwd -P)/mmtune --device cpu --problem 'f32 row NN 120x96x80' "*) echo "ok: the installed mmtune ran: $ran" ;;
  *) echo "FAIL: background tuning ran '$ran'"; cat "$tmp/bgq.err" "$tmp/bg.db.autotune/log" 2>/dev/null; fail=1 ;;
esac
# without it: said once on stderr, and the example runs on its fallback
mv "$prefix/bin/mmtune" "$tmp/mmtune.away"
check "no mmtune anywhere" 0 env PATH=/usr/bin:/bin MMTUNE_DB="$tmp/none.db" "$tmp/ex-pkg"
[ "$(grep -c 'libmmtuned: MMTUNE_AUTOTUNE=background, but no mmtune was found' "$tmp/err")" = 1 ] ||
  { echo "FAIL: a missing mmtune was not said once:"; cat "$tmp/err"; fail=1; }
mv "$tmp/mmtune.away" "$prefix/bin/mmtune"
unset MMTUNE_AUTOTUNE MMTUNE_AUTOTUNE_BUDGET

check "the installed mmtune tunes" 0 "$prefix/bin/mmtune" --device cpu --problem "f32 row NN 120x96x80" --db "$tmp/app.db" --budget 2 --quiet
check "and the example then runs the tuned kernel" 0 "$tmp/ex-pkg"
grep -q "(tuned)" "$tmp/out" || { echo "FAIL: the example did not run the tuned kernel:"; cat "$tmp/out"; fail=1; }
exit $fail
