#!/usr/bin/env bash
# cli_blas_pip_numpy.sh - the drop-in BLAS under pip's numpy, whose wheels bundle their own
# OpenBLAS under renamed 64-bit-integer names (scipy_cblas_sgemm64_): with
# libmmtuned_blas.so preloaded, numpy's GEMMs reach libmmtuned (MMTUNE_BLAS_STATS=1 counts
# them) and give results within the error bound of a long double reference
# (tests/data/blas_numpy.py); sizes beyond 32 bits and arguments CBLAS refuses go to
# numpy's own routine; a process whose BLAS calls never came says so. The numpy is the one
# scripts/install-deps.sh test puts in .venv-numpy (pip's, from PyPI).
set -u
MMTUNE=$1
LIB=$(dirname "$MMTUNE")/blas/libmmtuned_blas.so
PY=${MMTUNE_PIP_PYTHON:-$(dirname "$0")/../.venv-numpy/bin/python}
. "$(dirname "$0")/clilib.sh"
[ -e "$LIB" ] || skip "libmmtuned_blas.so is not built (x86-64 only)"
ldd "$LIB" | grep -q -E 'lib(a|t|ub)san' && skip "libmmtuned_blas.so is built with sanitizers"
"$PY" -c "import numpy" 2>/dev/null || skip "no pip numpy in .venv-numpy (scripts/install-deps.sh test makes it)"

check "pip's numpy with libmmtuned_blas preloaded" 0 env LD_PRELOAD="$LIB" MMTUNE_BLAS_STATS=1 "$PY" "$2/blas_numpy.py"
grep -q "libscipy_openblas64_" "$tmp/out" || { echo "FAIL: not pip's numpy: $(tail -1 "$tmp/out")"; fail=1; }
# 7 shapes x 4 ways per type, less the 3 vector-like shapes numpy sends to gemv
expect_eq "sgemm served" "$(grep -o 'sgemm: [0-9]* served' "$tmp/err")" "sgemm: 16 served"
expect_eq "dgemm served" "$(grep -o 'dgemm: [0-9]* served' "$tmp/err")" "dgemm: 16 served"

# numpy's own routine: a size beyond 32 bits (N = 0: its quick return) and a bad layout
own='import ctypes, sys, numpy
lib = ctypes.CDLL(None)
f = lib.scipy_cblas_sgemm64_
f.argtypes = [ctypes.c_int] * 3 + [ctypes.c_int64] * 3 + [ctypes.c_float, ctypes.c_void_p, ctypes.c_int64,
              ctypes.c_void_p, ctypes.c_int64, ctypes.c_float, ctypes.c_void_p, ctypes.c_int64]
f(101, 111, 111, 1 << 32, 0, 1, 1.0, None, 1, None, 1, 0.0, None, 1)
f(99, 111, 111, 2, 2, 2, 1.0, None, 2, None, 2, 0.0, None, 2)
print("returned")'
check "numpy's own routine takes what is not served" 0 env LD_PRELOAD="$LIB" MMTUNE_BLAS_STATS=1 "$PY" -c "$own"
expect_eq "both forwarded" "$(grep -o 'sgemm: 0 served.*, [0-9]* forwarded' "$tmp/err" | grep -o '[0-9]* forwarded')" \
  "2 forwarded"

# A GEMM libmmtuned cannot run (no compiler for a kernel never built, no vendor) goes to
# numpy's own routine, said once, and the results stay right
check "no compiler: numpy's own routine" 0 env LD_PRELOAD="$LIB" MMTUNE_BLAS_STATS=1 MMTUNE_CC=/nonexistent/cc \
  MMTUNE_CACHE_DIR="$tmp/empty-cache" "$PY" "$2/blas_numpy.py"
expect_eq "said once" "$(grep -c "such calls go to the caller's own BLAS" "$tmp/err")" 1
expect_eq "all forwarded" "$(grep -o 'sgemm: 0 served.*, [0-9]* forwarded' "$tmp/err" | grep -o '[0-9]* forwarded')" \
  "16 forwarded"

# A @ A.T is numpy's SYRK: no GEMM comes, and the line says so, naming numpy's OpenBLAS
check "A @ A.T alone" 0 env LD_PRELOAD="$LIB" MMTUNE_BLAS_STATS=1 "$PY" -c \
  'import numpy as np; a = np.ones((50, 40)); print((a @ a.T)[0, 0])'
expect_err "0 GEMMs said" "0 GEMMs reached libmmtuned: this process also loaded .*libscipy_openblas64_"
[ $fail = 0 ] && echo "cli_blas_pip_numpy: all passed"
exit $fail
