/* mmt_opaque.h - values the compiler cannot see through (spliced in where included, like
 * mmt_params.h): what is made from them is not shared with what is made from the same
 * values elsewhere, nor compiled apart for each value they may take. NVRTC compiles the code
 * after a branch once for each way through it; an epilogue's stores are most of a kernel's
 * code. Offsets, not pointers: stores through C + opaque(offset) stay global ones. */
__device__ __forceinline__ long long opaque(long long v)
{
    asm volatile("" : "+l"(v));
    return v;
}

__device__ __forceinline__ int opaque(int v)
{
    asm volatile("" : "+r"(v));
    return v;
}
