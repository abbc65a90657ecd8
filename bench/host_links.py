#!/usr/bin/env python3
"""host_links.py - the links an out-of-core GEMM moves its panels over, measured with PyTorch
on the machine's GPUs: pinned host memory to each GPU alone and to all at once, a GPU to
its peer, and one host memcpy (pageable to pinned, the panel pack) on one thread and on
several. Prints GB/s (1e9 bytes a second).
    python3 bench/host_links.py [GiB]"""
import sys, time, threading
import torch

size = int(float(sys.argv[1] if len(sys.argv) > 1 else 1) * (1 << 30))
n = torch.cuda.device_count()
print(f"{n} GPU(s): {', '.join(torch.cuda.get_device_name(d) for d in range(n))}; {size / 1e9:.2f} GB a copy")
host = [torch.empty(size, dtype=torch.uint8).pin_memory() for _ in range(n)]
dev = [torch.empty(size, dtype=torch.uint8, device=f"cuda:{d}") for d in range(n)]


def timed(fn, reps=3):
    fn()
    for d in range(n):
        torch.cuda.synchronize(d)
    best = float("inf")
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        for d in range(n):
            torch.cuda.synchronize(d)
        best = min(best, time.perf_counter() - t0)
    return best


for d in range(n):
    t = timed(lambda: dev[d].copy_(host[d], non_blocking=True))
    print(f"host -> GPU {d} alone: {size / t / 1e9:.1f} GB/s")
    t = timed(lambda: host[d].copy_(dev[d], non_blocking=True))
    print(f"GPU {d} -> host alone: {size / t / 1e9:.1f} GB/s")
if n > 1:
    def all_h2d():
        for d in range(n):
            with torch.cuda.device(d):
                dev[d].copy_(host[d], non_blocking=True)
    t = timed(all_h2d)
    print(f"host -> every GPU at once: {n * size / t / 1e9:.1f} GB/s in all ({size / t / 1e9:.1f} each)")
    for a in range(n):
        for b in range(n):
            if a != b:
                peer = torch.cuda.can_device_access_peer(a, b)
                t = timed(lambda: dev[b].copy_(dev[a], non_blocking=True))
                print(f"GPU {a} -> GPU {b}: {size / t / 1e9:.1f} GB/s (peer access {peer})")
src = torch.empty(size, dtype=torch.uint8)
src.fill_(1)
for threads in (1, 4, 8, 16):
    part = size // threads
    def copy_all():
        ts = [threading.Thread(target=lambda i=i: host[0][i * part:(i + 1) * part].copy_(src[i * part:(i + 1) * part]))
              for i in range(threads)]
        [t.start() for t in ts]
        [t.join() for t in ts]
    t = timed(copy_all)
    print(f"host memcpy, pageable -> pinned, {threads} threads: {size / t / 1e9:.1f} GB/s")
