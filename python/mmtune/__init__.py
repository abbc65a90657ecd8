"""mmtune: GEMM with the kernels mmtune tuned for this machine, from Python.

    import numpy as np, mmtune
    c = mmtune.matmul(a, b)                          # numpy float32/float64 on the CPU
    c = mmtune.matmul(x, w, trans_b=True)            # torch tensors, on their CUDA device
    h = mmtune.matmul(x, w, bias=b, activation="gelu")   # GELU(x @ w + b)
    y = mmtune.grouped_matmul(x, w, rows, trans_b=True)  # x's rows by experts, w[g] each one's
    mmtune.tune("f32 row NN 512x384x256", budget="20s")
    print(mmtune.show())

matmul runs through libmmtuned (ctypes; MMTUNE_LIBRARY names the library), tune and show
through the mmtune command (MMTUNE_BIN)."""
from ._cli import show, tune
from ._lib import MmtuneError, version
from ._matmul import grouped_matmul, last_choice, matmul, set_database

__all__ = ["matmul", "grouped_matmul", "last_choice", "set_database", "tune", "show", "version", "MmtuneError"]
