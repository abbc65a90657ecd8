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


def wrapper(n, rs):
    """A from a shared-memory descriptor (rs False) or from four registers (rs True)."""
    r = n // 2
    name, a_param, a_ops, a_ins, tail = (
        (f"wgmma_rs_n{n}", "const unsigned (&a)[4]", f"{{%{r}, %{r + 1}, %{r + 2}, %{r + 3}}}",
         '"r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3])', "WG_TAIL_RS") if rs else
        (f"wgmma_n{n}", "unsigned long long a", f"%{r}", '"l"(a)', "WG_TAIL"))
    b = r + (4 if rs else 1)
    regs = rows([f"%{i}" for i in range(r)], 16)
    outs = rows([f'"+f"(d[{i}])' for i in range(r)], 8)
    head = f"__device__ __forceinline__ void {name}("
    print(f"{head}float (&d)[{r}], {a_param}, unsigned long long b,")
    print(" " * len(head) + "int scale_d)")
    print("{")
    print(f'    asm volatile("{{\\n.reg .pred p;\\nsetp.ne.b32 p, %{b + 1}, 0;\\n"')
    print(f'                 "wgmma.mma_async.sync.aligned.m64n{n}k" WG_K "." WG_TYPES " {{"')
    for i, line in enumerate(regs):
        print(f'                 "{line}{"" if i == len(regs) - 1 else ", "}"')
    print(f'                 "}}, {a_ops}, %{b}, p" {tail} ";\\n}}\\n"')
    for i, line in enumerate(outs):
        print(f'                 {":" if i == 0 else " "} {line}{"" if i == len(outs) - 1 else ","}')
    print(f'                 : {a_ins}, "l"(b), "r"(scale_d));')
    print("}")
    print()


for rs in (False, True):
    for n in WIDTHS:
        wrapper(n, rs)
