"""settle.py - how much the kernel before a timed one decides its time on GPU 0: one square
shape, libmmtuned (the mmtune module, as its database serves the shape) and the vendor
(PyTorch's matmul: cuBLAS), each timed alone, then side by side in 20 ms samples (A B B A
...), with an untimed run of the same kernel of 0 to 300 ms before each sample. A GPU sets
its clock from the power of the last tens of milliseconds: without the settling run, each
sample runs at the clock the other kernel's power left. mmtune's rounds settle (bench.c).

    python3 bench/settle.py [MODE N]     (default: f64 4096; MODE f64, f32 or bf16)

MMTUNE_VENDOR=off makes libmmtuned serve its templates' best where the vendor's would be
served; MMTUNE_DB and MMTUNE_LIBRARY as for the mmtune module. Prints TFLOP/s (medians of 16
samples each) and libmmtuned's speed over the vendor's."""
import os
import statistics
import sys
import time

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import mmtune  # noqa: E402

args = sys.argv[1:] + [None] * 2
mode, n = args[0] or "f64", int(args[1] or 4096)
dtype = {"f64": torch.float64, "f32": torch.float32, "bf16": torch.bfloat16}[mode]
sets = [(torch.rand(n, n, dtype=dtype, device="cuda") * 2 - 1, torch.rand(n, n, dtype=dtype, device="cuda") * 2 - 1)
        for _ in range(3)]
c = torch.empty(n, n, dtype=dtype, device="cuda")
calls = [0]


def on_next_set(matmul):
    def call():
        a, b = sets[calls[0] % len(sets)]
        calls[0] += 1
        matmul(a, b, out=c)
    return call


ours, vendor = on_next_set(mmtune.matmul), on_next_set(torch.matmul)
ref = sets[0][0].double() @ sets[0][1].double()
for name, f in (("libmmtuned", ours), ("the vendor", vendor)):
    calls[0] = 0
    c.fill_(float("nan"))
    f()
    torch.cuda.synchronize()
    err = float((c.double() - ref).norm() / ref.norm())
    print(f"{name}: relative error {err:.2e}")
    if not err < {"f64": 1e-12, "f32": 1e-5, "bf16": 1e-2}[mode]:
        sys.exit(f"settle.py: {name} computed a wrong result")

t0 = time.time()
for _ in range(5):
    ours()
torch.cuda.synchronize()
call_s = (time.time() - t0) / 5
reps = max(1, int(0.020 / call_s + 0.999))


def sample(f, settle_ms):
    for _ in range(int(settle_ms / 1000 / call_s + 0.999)):
        f()
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(reps):
        f()
    stop.record()
    stop.synchronize()
    return start.elapsed_time(stop) / reps


def tflops(ms):
    return 2 * n**3 / ms / 1e9


def rounds(order, settle_ms=0, count=16):
    ms = {f: [] for f in order}
    for r in range(count):
        for f in (order if r % 2 == 0 else order[::-1]):
            ms[f].append(sample(f, settle_ms))
    return {f: statistics.median(v) for f, v in ms.items()}


print(f"{mode} {n}^3, {reps} calls of {call_s * 1e3:.2f} ms a sample")
alone = {f: rounds([f])[f] for f in (ours, vendor)}
print(f"{'each alone':26s} libmmtuned {tflops(alone[ours]):6.1f}  vendor {tflops(alone[vendor]):6.1f}  "
      f"{alone[vendor] / alone[ours]:.3f}x")
for settle_ms in (0, 20, 60, 150, 300):
    m = rounds([vendor, ours], settle_ms)
    print(f"side by side, settle {settle_ms:3d} ms libmmtuned {tflops(m[ours]):6.1f}  vendor {tflops(m[vendor]):6.1f}  "
          f"{m[vendor] / m[ours]:.3f}x")
