"""sustained.py - one GEMM shape run back to back for seconds at a time on GPU 0: the vendor
(PyTorch's matmul: cuBLAS) alone, libmmtuned alone (the mmtune module, as its database
serves the shape), the two alternating, then each alone again, with the SM clock and the
power nvidia-smi reads meanwhile (the first fifth of each run, the ramp, left out). A GPU
held at its power limit runs each kernel at the clock its power allows, which short paired
rounds (mmtune bench) do not reach.

    python3 bench/sustained.py [MODE N SECONDS]     (default: f64 4096 8; MODE f64 or f32)

MMTUNE_VENDOR=off makes libmmtuned serve its templates' best where the vendor's would be
served; MMTUNE_DB and MMTUNE_LIBRARY as for the mmtune module. Prints TFLOP/s (the calls of
both averaged when alternating), mean SM clock and power of each run."""
import os
import subprocess
import sys
import time

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import mmtune  # noqa: E402

args = sys.argv[1:] + [None] * 3
mode, n, secs = args[0] or "f64", int(args[1] or 4096), float(args[2] or 8)
dtype = {"f64": torch.float64, "f32": torch.float32}[mode]
a = torch.rand(n, n, dtype=dtype, device="cuda")
b = torch.rand(n, n, dtype=dtype, device="cuda")
c = torch.empty(n, n, dtype=dtype, device="cuda")


def ours():
    mmtune.matmul(a, b, out=c)


def vendor():
    torch.matmul(a, b, out=c)


ref = a.double() @ b.double()
for f in (vendor, ours):
    c.fill_(float("nan"))
    f()
    torch.cuda.synchronize()
    err = float(((c.double() - ref).norm() / ref.norm()))
    print(f"{'libmmtuned' if f is ours else 'the vendor'}: relative error {err:.2e}")
    if not err < (1e-12 if mode == "f64" else 1e-5):
        sys.exit(f"sustained.py: {f.__name__} computed a wrong result")


def run(calls_of, seconds):
    smi = subprocess.Popen(["nvidia-smi", "-i", "0", "--query-gpu=clocks.sm,power.draw", "--format=csv,noheader,nounits",
                            "-lms", "100"], stdout=subprocess.PIPE, text=True)
    rounds, t0 = 0, time.time()
    while time.time() - t0 < seconds:
        for f in calls_of:
            f()
        rounds += 1
        if rounds % 10 == 0:
            torch.cuda.synchronize()
    torch.cuda.synchronize()
    elapsed = time.time() - t0
    calls = rounds * len(calls_of)
    smi.terminate()
    rows = [tuple(float(x) for x in line.split(",")) for line in smi.communicate()[0].splitlines() if line.strip()]
    rows = rows[len(rows) // 5:] or rows
    return (calls * 2 * n**3 / elapsed / 1e12, sum(r[0] for r in rows) / len(rows), sum(r[1] for r in rows) / len(rows))


print(f"{mode} {n}^3, {secs:g} s a run")
for name, calls_of in (("the vendor alone", [vendor]), ("libmmtuned alone", [ours]), ("alternating", [ours, vendor]),
                       ("the vendor alone", [vendor]), ("libmmtuned alone", [ours])):
    tflops, clock, power = run(calls_of, secs)
    print(f"{name:18s} {tflops:6.1f} TFLOP/s  SM clock {clock:5.0f} MHz  power {power:4.0f} W")
