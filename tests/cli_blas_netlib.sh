#!/usr/bin/env bash
# cli_blas_netlib.sh - conformance: the netlib reference BLAS level-3 test programs, as
# Debian's libblas-test ships them (xblat3s, xblat3d: Fortran BLAS; xscblat3, xdcblat3:
# CBLAS, both layouts), pass with libmmtuned_blas.so in place of the reference library:
# preloaded, and as libblas.so.3 on the library path with the reference BLAS as the
# forwarded one. They test every GEMM argument error (through their own XERBLA and
# cblas_xerbla), the results of 17,496 GEMM calls per program and layout against their
# own reference, and that nothing outside C changes; the other level-3 routines go to the
# forwarded library. MMTUNE_BLAS_STATS=1 shows the GEMMs were served by libmmtuned.
set -u
MMTUNE=$1
LIB=$(dirname "$MMTUNE")/blas/libmmtuned_blas.so
BIN=/usr/lib/x86_64-linux-gnu/blas # libblas-test's programs and their input files
[ -e "$LIB" ] || { echo "libmmtuned_blas.so is not built (x86-64 only): skipped"; exit 77; }
if ldd "$LIB" | grep -q -E 'lib(a|t|ub)san'; then
  echo "libmmtuned_blas.so is built with sanitizers: a program built without them cannot load it: skipped"; exit 77
fi
[ -x "$BIN/xblat3s" ] || { echo "Debian's libblas-test is not installed: skipped"; exit 77; }
. "$(dirname "$0")/clilib.sh"
export MMTUNE_DB="$tmp/none.db" # no database: nothing recorded
unset MMTUNE_BLAS_FORWARD MMTUNE_OFFLOAD
mkdir -p "$tmp/lib"
ln -s "$(readlink -f "$LIB")" "$tmp/lib/libblas.so.3"
cd "$tmp"

# run HOW PROGRAM INPUT SUMMARY PASSES GEMM: the program passes (its PASSES lines, no failure
# line) and libmmtuned served its GEMMs
run() {
  local how=$1 program=$2 input=$3 summary=$4 passes=$5 gemm=$6
  rm -f "$summary"
  if [ "$how" = preload ]; then
    check "$program, preloaded" 0 env LD_PRELOAD="$LIB" MMTUNE_BLAS_STATS=1 "$BIN/$program" <"$BIN/$input"
  else
    check "$program, as libblas.so.3" 0 env LD_LIBRARY_PATH="$tmp/lib" MMTUNE_BLAS_FORWARD="$BIN/libblas.so.3" \
      MMTUNE_BLAS_STATS=1 "$BIN/$program" <"$BIN/$input"
  fi
  [ -n "$summary" ] && cp "$summary" "$tmp/out"
  local passed
  passed=$(grep -c "PASSED THE" "$tmp/out")
  if [ "$passed" != "$passes" ] || grep -q -E "FAIL|\*\*\*\*\*|SUSPECT" "$tmp/out"; then
    echo "FAIL: $program ($how): $passed of $passes routines passed"; cat "$tmp/out"; fail=1
  fi
  grep -E "PASSED THE|FAIL" "$tmp/out" | sed 's/^/    /'
  grep -q -E "^libmmtuned_blas: $gemm: [1-9][0-9]* served by libmmtuned" "$tmp/err" ||
    { echo "FAIL: $program ($how): libmmtuned served no $gemm"; cat "$tmp/err"; fail=1; }
  sed 's/^/    /' "$tmp/err"
}

for how in preload libblas; do
  run $how xblat3s sblat3.in sblat3.out 12 sgemm
  run $how xblat3d dblat3.in dblat3.out 12 dgemm
  run $how xscblat3 sin3 "" 18 sgemm
  run $how xdcblat3 din3 "" 18 dgemm
done
[ $fail = 0 ] && echo "cli_blas_netlib: all passed"
exit $fail
