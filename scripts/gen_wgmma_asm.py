#!/usr/bin/env python3
"""gen_wgmma_asm.py - prints the wgmma wrappers of templates/cuda/gemm_wgmma.cu (the block
between its 'generated' markers): one function per instruction width N, whose inline PTX
names every accumulator register (N / 2 of them per thread); scale_d 0 starts the
accumulators from zero, 1 adds to them. The mode's types, K and trailing immediates come
from the template's WG_TYPES, WG_K and WG_TAIL macros. Then the same with A from four
registers per thread (wgmma_rs_nN; trailing immediates WG_TAIL_RS), which f32x3 uses for
the tf32 parts of A it splits in registers.

    python3 scripts/gen_wgmma_asm.py   # prints the block to paste between the markers
"""
WIDTHS = [64, 128, 192, 256]


def rows(items, per_line):
    return [", ".join(items[i:i + per_line]) for i in range(0, len(items), per_line)]


for n in WIDTHS:
    r = n // 2
    regs = rows([f"%{i}" for i in range(r)], 16)
    outs = rows([f'"+f"(d[{i}])' for i in range(r)], 8)
    print(f"__device__ __forceinline__ void wgmma_n{n}(float (&d)[{r}], unsigned long long a, unsigned long long b,")
    print(f"                                          int scale_d)")
    print("{")
    print(f'    asm volatile("{{\\n.reg .pred p;\\nsetp.ne.b32 p, %{r + 2}, 0;\\n"')
    print(f'                 "wgmma.mma_async.sync.aligned.m64n{n}k" WG_K "." WG_TYPES " {{"')
    for i, line in enumerate(regs):
        print(f'                 "{line}{"" if i == len(regs) - 1 else ", "}"')
    print(f'                 "}}, %{r}, %{r + 1}, p" WG_TAIL ";\\n}}\\n"')
    for i, line in enumerate(outs):
        print(f'                 {":" if i == 0 else " "} {line}{"" if i == len(outs) - 1 else ","}')
    print('                 : "l"(a), "l"(b), "r"(scale_d));')
    print("}")
    print()

for n in WIDTHS:
    r = n // 2
    regs = rows([f"%{i}" for i in range(r)], 16)
    outs = rows([f'"+f"(d[{i}])' for i in range(r)], 8)
    print(f"__device__ __forceinline__ void wgmma_rs_n{n}(float (&d)[{r}], const unsigned (&a)[4], unsigned long long b,")
    print(f"                                             int scale_d)")
    print("{")
    print(f'    asm volatile("{{\\n.reg .pred p;\\nsetp.ne.b32 p, %{r + 5}, 0;\\n"')
    print(f'                 "wgmma.mma_async.sync.aligned.m64n{n}k" WG_K "." WG_TYPES " {{"')
    for i, line in enumerate(regs):
        print(f'                 "{line}{"" if i == len(regs) - 1 else ", "}"')
    print(f'                 "}}, {{%{r}, %{r + 1}, %{r + 2}, %{r + 3}}}, %{r + 4}, p" WG_TAIL_RS ";\\n}}\\n"')
    for i, line in enumerate(outs):
        print(f'                 {":" if i == 0 else " "} {line}{"" if i == len(outs) - 1 else ","}')
    print('                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(scale_d));')
    print("}")
    print()
