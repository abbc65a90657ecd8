/* mmt_serial_splitk.h - split-K in the order of K for templates whose slices are the grid's z
 * (SPLITK > 1 with SERIAL; spliced in where included, like mmt_params.h, after THREADS).
 *
 * The last slice's sum (SIMT and DMMA): the workspace holds a counter per block tile
 * (zeroed by mmt_gemm_pre), padded to 16 bytes, then a slot of partial sums per slice and
 * tile (sk_last_bytes). Every slice stores its N partial sums to its slot, counts itself in,
 * and the tile's last slice to arrive adds the slots in the order of K (its own too, read
 * back: the same expression whichever slice is last) and alone goes on to write C. No slice
 * waits for another, and every run gives the same bits.
 *
 * The chain (mma.sync): a flag per block tile in the workspace (4 bytes each), zeroed by
 * mmt_gemm_pre; slice z of a tile waits for it to say z, adds into C, and sets it to z + 1.
 * Slices are the grid's z, the slowest index, and blocks start in the order of their index
 * (as CUTLASS's serial split-K relies on), so every slice a block waits for has started
 * before it: the chain never deadlocks. The stream-K grid of gemm_simt.cu (STREAMK) raises
 * and waits for its blocks' flags with sk_wait and sk_signal, and keeps its partial sums in
 * slots of the same layout (sk_put, sk_get). */
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

/* A slot: a block's N partial sums a thread, thread t's 16-byte unit u at element
 * (u * THREADS + t) * (16 / sizeof(T)), so a warp's stores and loads are whole lines. slot
 * points at the slot's start. */
template <typename T, int N> __device__ __forceinline__ void sk_put(T *slot, const T (&acc)[N])
{
    constexpr int UW = 16 / sizeof(T); /* elements a unit */
    static_assert(N % UW == 0, "a thread's partial sums are whole 16-byte units");
    T *const p = slot + threadIdx.x * UW;
#pragma unroll
    for (int u = 0; u < N / UW; u++) {
        if constexpr (sizeof(T) == 8)
            *reinterpret_cast<double2 *>(p + u * THREADS * UW) = make_double2(acc[u * 2], acc[u * 2 + 1]);
        else
            *reinterpret_cast<float4 *>(p + u * THREADS * UW) =
                make_float4(acc[u * 4], acc[u * 4 + 1], acc[u * 4 + 2], acc[u * 4 + 3]);
    }
}

/* acc = the slot (ADD: acc += it), read from L2: other SMs wrote it. */
template <bool ADD, typename T, int N> __device__ __forceinline__ void sk_get(const T *slot, T (&acc)[N])
{
    constexpr int UW = 16 / sizeof(T); /* elements a unit */
    const T *const p = slot + threadIdx.x * UW;
#pragma unroll
    for (int u = 0; u < N / UW; u++) {
        T v[UW];
        if constexpr (sizeof(T) == 8) {
            const double2 w = __ldcg(reinterpret_cast<const double2 *>(p + u * THREADS * UW));
            v[0] = w.x, v[1] = w.y;
        } else {
            const float4 w = __ldcg(reinterpret_cast<const float4 *>(p + u * THREADS * UW));
            v[0] = w.x, v[1] = w.y, v[2] = w.z, v[3] = w.w;
        }
#pragma unroll
        for (int r = 0; r < UW; r++) acc[u * UW + r] = ADD ? acc[u * UW + r] + v[r] : v[r];
    }
}

/* The workspace of the last slice's sum: counters, then SPLITK slots a tile. */
__host__ __device__ constexpr long long sk_counter_bytes(long long tiles) { return (tiles * 4 + 15) / 16 * 16; }
__host__ __device__ constexpr long long sk_last_bytes(long long tiles, long long slot_bytes)
{
    return sk_counter_bytes(tiles) + SPLITK * tiles * slot_bytes;
}

/* Every thread of the block, after its slice's K range: true for the tile's last slice to
 * arrive, whose acc then holds the sum of the slices in the order of K; the others are done. */
template <typename T, int N>
__device__ __forceinline__ bool sk_last_sum(void *ws, long long tiles, long long tile, T (&acc)[N])
{
    T *const slots = reinterpret_cast<T *>(static_cast<char *>(ws) + sk_counter_bytes(tiles));
    const long long slot = (long long)THREADS * N; /* elements */
    sk_put(slots + ((long long)blockIdx.z * tiles + tile) * slot, acc);
    __threadfence(); /* this thread's partial sums are visible before the count */
    __syncthreads();
    /* the barrier's own OR tells every thread (no static shared memory: the launch's dynamic
     * share may be all a block can have without asking, 48 KiB) */
    const int last = threadIdx.x == 0 && atomicAdd(static_cast<int *>(ws) + tile, 1) == SPLITK - 1;
    if (!__syncthreads_or(last)) return false;
    __threadfence(); /* the other slices' sums are read after their counts */
    sk_get<false>(slots + tile * slot, acc);
#pragma unroll 1
    for (int z = 1; z < SPLITK; z++) sk_get<true>(slots + ((long long)z * tiles + tile) * slot, acc);
    return true;
}
#endif
