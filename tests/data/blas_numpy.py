"""blas_numpy.py - numpy's matmul, which calls the BLAS that libblas.so.3 (or LD_PRELOAD)
provides, checked against a long double reference: float32 and float64, row- and
column-major operands, transposed views, odd shapes; also A @ A.T (numpy's syrk) and
matrix @ vector (gemv), which the drop-in library forwards. Prints one line per case with
the error as a share of the bound, which BLAS library the process loaded, and exits 1 if
any case is over its bound. Run by tests/cli_blas_numpy.sh."""
import sys

import numpy as np

rng = np.random.default_rng(7)
SHAPES = [(64, 48, 40), (1, 1, 1), (7, 5, 3), (33, 65, 17), (128, 96, 200), (200, 1, 50), (1, 150, 70)]


def check(name, a, b, c):
    """|c - a b| <= 2 k u |a| |b| elementwise (the classic bound of a dot product's error)."""
    ref = a.astype(np.longdouble) @ b.astype(np.longdouble)
    scale = np.abs(a).astype(np.longdouble) @ np.abs(b).astype(np.longdouble)
    k = a.shape[-1]
    bound = 2 * max(k, 1) * np.finfo(c.dtype).eps * scale + np.finfo(c.dtype).tiny
    ratio = float(np.max(np.abs(c.astype(np.longdouble) - ref) / bound)) if c.size else 0.0
    ok = np.all(np.isfinite(c)) and ratio <= 1
    print(f"{'ok  ' if ok else 'FAIL'} {name:32s} error/bound {ratio:.3g}")
    return ok


good = True
for dtype in (np.float32, np.float64):
    t = np.dtype(dtype).name
    for m, n, k in SHAPES:
        a = rng.uniform(-1, 1, (m, k)).astype(dtype)
        b = rng.uniform(-1, 1, (k, n)).astype(dtype)
        good &= check(f"{t} {m}x{n}x{k} C @ C", a, b, a @ b)
        good &= check(f"{t} {m}x{n}x{k} F @ F", np.asfortranarray(a), np.asfortranarray(b),
                      np.asfortranarray(a) @ np.asfortranarray(b))
        at, bt = np.ascontiguousarray(a.T), np.ascontiguousarray(b.T)
        good &= check(f"{t} {m}x{n}x{k} A.T @ B.T views", at.T, bt.T, at.T @ bt.T)
        good &= check(f"{t} {m}x{n}x{k} np.dot", a, b, np.dot(a, b))
    a = rng.uniform(-1, 1, (50, 30)).astype(dtype)
    good &= check(f"{t} A @ A.T (syrk)", a, a.T, a @ a.T)
    v = rng.uniform(-1, 1, (30,)).astype(dtype)
    good &= check(f"{t} A @ v (gemv)", a, v[:, None], (a @ v)[:, None])

with open("/proc/self/maps") as maps:
    libs = sorted({line.split()[-1] for line in maps if "blas" in line and "/" in line})
print("BLAS libraries loaded:", " ".join(libs))
sys.exit(0 if good else 1)
