/* mmt_serial_splitk.h - split-K in the order of K for templates whose slices are the grid's z
 * (SPLITK > 1 with SERIAL; spliced in where included, like mmt_params.h): a flag per block
 * tile in the workspace (4 bytes each), zeroed by mmt_gemm_pre; slice z of a tile waits for
 * it to say z, adds into C, and sets it to z + 1. Slices are the grid's z, the slowest index,
 * and blocks start in the order of their index (as CUTLASS's serial split-K relies on), so
 * every slice a block waits for has started before it: the chain never deadlocks. The
 * stream-K grid of gemm_simt.cu (STREAMK) raises and waits for its blocks' flags with them. */
#if (SPLITK > 1 && SERIAL) || (defined(STREAMK) && STREAMK)
__device__ __forceinline__ void sk_wait(const int *flag, int value)
{
    if (threadIdx.x == 0) {
        int v;
        do asm volatile("ld.acquire.gpu.global.b32 %0, [%1];\n" : "=r"(v) : "l"(flag) : "memory");
        while (v != value);
    }
    __syncthreads();
}

__device__ __forceinline__ void sk_signal(int *flag, int value)
{
    __syncthreads(); /* every thread's part of C is written */
    if (threadIdx.x == 0)
        asm volatile("fence.acq_rel.gpu;\nst.relaxed.gpu.global.b32 [%0], %1;\n" ::"l"(flag), "r"(value) : "memory");
}
#endif
