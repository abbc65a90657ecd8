#!/usr/bin/env bash
# cli_gpu_python.sh - the Python module on torch CUDA tensors
# (tests/python/test_mmtune_torch.py), from the checkout's python/ (cli_python.sh checks
# the pip install). Skipped (77) without a python3 that has torch and a CUDA GPU; the GPU
# machines have both. MMTUNE_PYTHON names the interpreter.
set -u
MMTUNE=$1
BUILD=$(cd "$(dirname "$MMTUNE")" && pwd)
SRC=$(cd "$(dirname "$0")/.." && pwd)
PY=${MMTUNE_PYTHON:-python3}
. "$(dirname "$0")/clilib.sh"
unset MMTUNE_VENDOR # as a user's program runs: cuBLAS competes, and serves the strided batches
ldd "$BUILD/libmmtuned.so" | grep -q -E 'lib(a|t|ub)san' && skip "libmmtuned.so is built with sanitizers: python cannot load it"
"$PY" -c "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)" 2>/dev/null ||
  skip "$PY has no torch with a CUDA GPU"
export MMTUNE_LIBRARY=$BUILD/libmmtuned.so MMTUNE_BIN=$MMTUNE PYTHONPATH=$SRC/python
check "torch tensors" 0 "$PY" "$SRC/tests/python/test_mmtune_torch.py" -v
tail -3 "$tmp/err"
grep -q "skipped" "$tmp/err" && { echo "FAIL: a torch test skipped on a GPU machine"; fail=1; }
[ $fail = 0 ] && echo "cli_gpu_python: all passed"
exit $fail
