#!/usr/bin/env bash
# cli_blas_numpy.sh - the drop-in BLAS under a client no one here wrote: Debian's numpy
# (its matmul calls cblas_sgemm / cblas_dgemm of libblas.so.3) gives results within the
# error bound of a long double reference (tests/data/blas_numpy.py) with the system BLAS,
# with libmmtuned_blas.so preloaded, and with it in libblas.so.3's place through Debian's
# alternatives (in a private alternatives directory: the system's is left alone). The
# calls reach libmmtuned: the tuned shape runs its tuned kernel, the others are counted
# in the database's miss table, and MMTUNE_BLAS_STATS=1 counts them. Also: a CBLAS error
# names the parameter as reference CBLAS does; MMTUNE_BLAS_FORWARD picks the library of
# the forwarded routines, and one that is this library is refused; MMTUNE_OFFLOAD runs the
# GEMMs on the GPU where there is one, and without one says so once and computes on the CPU.
set -u
MMTUNE=$1
LIB=$(dirname "$MMTUNE")/blas/libmmtuned_blas.so
PY=/usr/bin/python3 # Debian's, whose numpy links libblas.so.3 (not a pyenv one)
SCRIPT=$2/blas_numpy.py
[ -e "$LIB" ] || { echo "libmmtuned_blas.so is not built (x86-64 only): skipped"; exit 77; }
if ldd "$LIB" | grep -q -E 'lib(a|t|ub)san'; then
  echo "libmmtuned_blas.so is built with sanitizers: a program built without them cannot load it: skipped"; exit 77
fi
"$PY" -c "import numpy" 2>/dev/null || { echo "Debian's python3-numpy is not installed: skipped"; exit 77; }
command -v sqlite3 >/dev/null || { echo "sqlite3 is not installed: skipped"; exit 77; }
. "$(dirname "$0")/clilib.sh"
expect() { # expect DESCRIPTION ACTUAL WANTED
  [ "$2" = "$3" ] || { echo "FAIL: $1: '$2', wanted '$3'"; fail=1; }
}
export MMTUNE_DB="$tmp/app.db"
unset MMTUNE_BLAS_FORWARD MMTUNE_OFFLOAD MMTUNE_OFFLOAD_MIN

check "numpy with the system BLAS" 0 "$PY" "$SCRIPT"
grep -q libmmtuned "$tmp/out" && { echo "FAIL: libmmtuned_blas loaded without being asked"; fail=1; }

# one shape tuned (numpy's 64x48x40 float32 matmul is the row-major f32 NN problem)
check "tune one shape" 0 "$MMTUNE" --device cpu --problem "f32 row NN 64x48x40" --budget 1 --db "$MMTUNE_DB" --quiet

check "numpy with libmmtuned_blas preloaded" 0 env LD_PRELOAD="$LIB" MMTUNE_BLAS_STATS=1 "$PY" "$SCRIPT"
cat "$tmp/out" "$tmp/err"
grep -q "libmmtuned_blas.so" "$tmp/out" || { echo "FAIL: the library was not loaded"; fail=1; }
# 7 shapes x 4 ways per type, less the 3 vector-like shapes numpy sends to gemv
expect "sgemm served" "$(grep -o 'sgemm: [0-9]* served by libmmtuned ([0-9]* tuned' "$tmp/err")" \
  "sgemm: 16 served by libmmtuned (2 tuned"
expect "dgemm served" "$(grep -o 'dgemm: [0-9]* served' "$tmp/err")" "dgemm: 16 served"
expect "others forwarded" "$(grep -c 'other routines go to /' "$tmp/err")" 1
# the untuned shapes, in their row-major forms, each called twice (C @ C and np.dot; F @ F and views)
expect "miss table" "$(sqlite3 "$MMTUNE_DB" "select count(*) || ' ' || sum(calls) || ' ' || sum(tuned) from miss_view")" \
  "15 30 0"
expect "the tuned shape is no miss" \
  "$(sqlite3 "$MMTUNE_DB" "select count(*) from miss_view where mode = 'f32' and trans = 'NN' and m = 64")" 0
expect "one device row" "$(sqlite3 "$MMTUNE_DB" "select count(*) from device")" 1

# Debian's alternatives: libblas.so.3 -> (alternatives link) -> libmmtuned_blas.so, in a
# private altdir/admindir so the system's selection is not touched; the system's own BLAS
# registered too, so the selection is a real choice between the two.
alt=$tmp/alternatives
mkdir -p "$alt/etc" "$alt/admin" "$alt/lib"
ua() { update-alternatives --altdir "$alt/etc" --admindir "$alt/admin" --log /dev/null "$@"; }
system_blas=$(readlink -f /usr/lib/x86_64-linux-gnu/libblas.so.3 || true)
if command -v update-alternatives >/dev/null && [ -e "$system_blas" ]; then
  check "alternatives: the system BLAS" 0 ua --install "$alt/lib/libblas.so.3" libblas.so.3 "$system_blas" 100
  check "alternatives: libmmtuned_blas" 0 ua --install "$alt/lib/libblas.so.3" libblas.so.3 "$(readlink -f "$LIB")" 50
  check "alternatives: select it" 0 ua --set libblas.so.3 "$(readlink -f "$LIB")"
  expect "alternatives: the link" "$(readlink -f "$alt/lib/libblas.so.3")" "$(readlink -f "$LIB")"
  check "numpy with libblas.so.3 from the alternatives" 0 env LD_LIBRARY_PATH="$alt/lib" MMTUNE_BLAS_STATS=1 "$PY" "$SCRIPT"
  grep -q "libmmtuned_blas.so" "$tmp/out" || { echo "FAIL: numpy did not load it"; tail -1 "$tmp/out"; fail=1; }
  expect "alternatives: served" "$(grep -o 'sgemm: [0-9]* served' "$tmp/err")" "sgemm: 16 served"
  expect "alternatives: the system BLAS forwarded to" "$(grep -o 'other routines go to .*' "$tmp/err")" \
    "other routines go to $system_blas"
  expect "alternatives: misses add up" "$(sqlite3 "$MMTUNE_DB" "select sum(calls) from miss_view")" 60
else
  echo "no update-alternatives or no system libblas.so.3: the alternatives part is skipped"
fi

# A CBLAS error: reference CBLAS's message and exit status, the row-major M named as M (4)
cblas_bad='import ctypes, sys
lib = ctypes.CDLL(sys.argv[1])
lib.cblas_sgemm(101, 111, 111, -1, 2, 2, ctypes.c_float(1), None, 2, None, 2, ctypes.c_float(0), None, 2)
print("returned")'
check "a bad CBLAS argument" 255 "$PY" -c "$cblas_bad" "$LIB"
grep -q "^Parameter 4 to routine cblas_sgemm was incorrect" "$tmp/err" || { echo "FAIL: $(cat "$tmp/err")"; fail=1; }

# The forwarded library: chosen by MMTUNE_BLAS_FORWARD; this library itself is refused, and a
# forwarded call then stops with a message that says what was tried.
gemv='import numpy as np; a = np.ones((3, 4)); print((a @ np.ones(4))[0])'
ref=/usr/lib/x86_64-linux-gnu/blas/libblas.so.3
if [ -e "$ref" ]; then
  check "MMTUNE_BLAS_FORWARD: the reference BLAS" 0 env LD_PRELOAD="$LIB" MMTUNE_BLAS_FORWARD="$ref" MMTUNE_BLAS_STATS=1 \
    "$PY" -c "$gemv; print((np.ones((8, 8), np.float32) @ np.ones((8, 8), np.float32))[0, 0])"
  expect "forwarded result" "$(tr '\n' ' ' <"$tmp/out")" "4.0 8.0 "
  expect "forwarded to" "$(grep -o 'other routines go to .*' "$tmp/err")" "other routines go to $ref"
fi
check "MMTUNE_BLAS_FORWARD: this library" 134 env LD_PRELOAD="$LIB" MMTUNE_BLAS_FORWARD="$LIB" "$PY" -c "$gemv"
grep -q "none was found (tried .*libmmtuned_blas.so (is this library))" "$tmp/err" ||
  { echo "FAIL: $(cat "$tmp/err")"; fail=1; }

# The GPU offload: with a GPU numpy's GEMMs run there out of core (small tiles: many of them)
# and give the same results; without one it says so once and every GEMM runs on the CPU. A
# value it does not know is said once and ignored.
check "MMTUNE_OFFLOAD=cuda:0" 0 env LD_PRELOAD="$LIB" MMTUNE_OFFLOAD=cuda:0 MMTUNE_OFFLOAD_MIN=1 \
  MMTUNE_OOC_TILE=48x40 MMTUNE_OOC_PANEL=24 MMTUNE_BLAS_STATS=1 "$PY" "$SCRIPT"
if nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then
  line=$(grep -o 'sgemm: [0-9]* served.* [0-9]* offloaded' "$tmp/err")
  served=$(echo "$line" | sed -n 's/^sgemm: \([0-9]*\) served.*/\1/p')
  offloaded=$(echo "$line" | sed -n 's/.* \([0-9]*\) offloaded$/\1/p')
  expect "offload: every GEMM reached libmmtuned" "$(( ${served:-0} + ${offloaded:-0} ))" 16
  [ "${offloaded:-0}" -ge 1 ] || { echo "FAIL: offload: no GEMM ran on the GPU: $line"; fail=1; }
else
  expect "offload: said once" "$(grep -c 'MMTUNE_OFFLOAD=cuda:0: the GPU does not open' "$tmp/err")" 1
  expect "offload: on the CPU" "$(grep -o 'sgemm: [0-9]* served' "$tmp/err")" "sgemm: 16 served"
fi
check "MMTUNE_OFFLOAD=gpu" 0 env LD_PRELOAD="$LIB" MMTUNE_OFFLOAD=gpu "$PY" "$SCRIPT"
expect "offload: a bad value" "$(grep -c 'MMTUNE_OFFLOAD=gpu: the values are off' "$tmp/err")" 1
[ $fail = 0 ] && echo "cli_blas_numpy: all passed"
exit $fail
