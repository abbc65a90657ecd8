#!/usr/bin/env bash
# cli_python.sh - the Python module (python/): installed with pip into a fresh virtual
# environment as the README says, then its tests run from outside the checkout:
# tests/python/test_mmtune_numpy.py (numpy arrays on the CPU) and mmtune.tune / mmtune.show
# over the mmtune command. Debian's python3 and its numpy, the venv seeing the system's
# packages. Torch tensors on a GPU: cli_gpu_python.sh.
set -u
MMTUNE=$1
BUILD=$(cd "$(dirname "$MMTUNE")" && pwd)
SRC=$(cd "$(dirname "$0")/.." && pwd)
PY=${MMTUNE_PYTHON:-/usr/bin/python3}
. "$(dirname "$0")/clilib.sh"
ldd "$BUILD/libmmtuned.so" | grep -q -E 'lib(a|t|ub)san' && skip "libmmtuned.so is built with sanitizers: python cannot load it"
"$PY" -c "import numpy" 2>/dev/null || skip "$PY has no numpy (scripts/install-deps.sh test installs python3-numpy)"
"$PY" -m venv --system-site-packages "$tmp/venv" >/dev/null 2>&1 || skip "$PY cannot make a virtual environment"
"$tmp/venv/bin/python" -c "import setuptools" 2>/dev/null || skip "no setuptools in the virtual environment"
export MMTUNE_LIBRARY=$BUILD/libmmtuned.so MMTUNE_BIN=$MMTUNE
cp -r "$SRC/python" "$tmp/python" # pip builds in the source folder: a copy keeps the checkout clean
check "pip install ./python" 0 "$tmp/venv/bin/pip" install --no-build-isolation --no-deps --no-index "$tmp/python"
cd "$tmp" || exit 1
check "installed, not the checkout's" 0 "$tmp/venv/bin/python" -c \
  "import mmtune, sys; sys.exit(0 if mmtune.__file__.startswith('$tmp/venv') else 1)"
check "numpy arrays" 0 "$tmp/venv/bin/python" "$SRC/tests/python/test_mmtune_numpy.py" -v
tail -3 "$tmp/err"
check "tune and show" 0 "$tmp/venv/bin/python" -c "
import mmtune
table = mmtune.tune('f32 row NN 64x48x40', budget=2, db='$tmp/py.db')
shown = mmtune.show(db='$tmp/py.db', json=True)
mmtune.set_database('$tmp/py.db')
import numpy as np
mmtune.matmul(np.ones((64, 40), np.float32), np.ones((40, 48), np.float32))
print(mmtune.last_choice()[0])"
expect_eq "the tuned shape serves from the database tune wrote" "$(tail -1 "$tmp/out")" "tuned"
check "a problem mmtune refuses" 0 "$tmp/venv/bin/python" -c "
import mmtune
try:
    mmtune.tune('f32 row NN 0x48x40', db='$tmp/py.db')
except RuntimeError as e:
    print('refused:', e)"
grep -q "^refused: .*mmtune.*failed (exit 2)" "$tmp/out" || { echo "FAIL: $(cat "$tmp/out")"; fail=1; }
[ $fail = 0 ] && echo "cli_python: all passed"
exit $fail
