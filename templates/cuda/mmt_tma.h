/* A TMA tensor map (the driver's CUtensorMap: 128 opaque bytes), made on the host. */
struct __align__(64) mmt_tmap {
    unsigned long long opaque[16];
};

/* ---- PTX ------------------------------------------------------------------------------ */

__device__ __forceinline__ unsigned smem_u32(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }

__device__ __forceinline__ void mbar_init(unsigned bar, unsigned count)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
}

__device__ __forceinline__ void mbar_expect_tx(unsigned bar, unsigned bytes)
{
    asm volatile("{\n.reg .b64 state;\nmbarrier.arrive.expect_tx.shared::cta.b64 state, [%0], %1;\n}\n" ::"r"(bar),
                 "r"(bytes)
                 : "memory");
}

/* Waits for the phase of the given parity to complete. */
__device__ __forceinline__ void mbar_wait(unsigned bar, unsigned parity)
{
    unsigned done = 0;
    do {
        asm volatile("{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
                     "selp.u32 %0, 1, 0, p;\n}\n"
                     : "=r"(done)
                     : "r"(bar), "r"(parity)
                     : "memory");
    } while (!done);
}

__device__ __forceinline__ void mbar_arrive_local(unsigned bar)
{
    asm volatile("{\n.reg .b64 state;\nmbarrier.arrive.shared::cta.b64 state, [%0];\n}\n" ::"r"(bar) : "memory");
}

/* Arrives on the barrier at the same offset in block `cta` of the cluster (this one too).
 * Release at CTA scope, as for a local arrive: what it orders is the consumers' reads of a
 * stage (complete, by wgmma.wait_group) before the producers' next TMA writes into it; the
 * cluster scope compiled to a GPU-wide memory barrier per arrive and halved the speed. */
__device__ __forceinline__ void mbar_arrive(unsigned bar, unsigned cta)
{
#if CLUSTER > 1
    asm volatile("{\n.reg .b32 remote;\nmapa.shared::cluster.u32 remote, %0, %1;\n"
                 "mbarrier.arrive.shared::cluster.b64 _, [remote];\n}\n" ::"r"(bar),
                 "r"(cta)
                 : "memory");
#else
    (void)cta;
    mbar_arrive_local(bar);
#endif
}

/* TMA: the box at (c0, c1) of tensor map tm into shared memory dst, counted on barrier bar
 * (multicast into the blocks of mask at the same offsets when mask is not 0). */
__device__ __forceinline__ void tma_load(unsigned dst, const mmt_tmap *tm, int c0, int c1, unsigned bar,
                                         unsigned short mask)
{
#if CLUSTER > 1
    if (mask) {
        asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                     ".multicast::cluster [%0], [%1, {%2, %3}], [%4], %5;\n" ::"r"(dst),
                     "l"(reinterpret_cast<unsigned long long>(tm)), "r"(c0), "r"(c1), "r"(bar), "h"(mask)
                     : "memory");
        return;
    }
#endif
    (void)mask;
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%2, %3}], [%4];\n" ::"r"(dst),
                 "l"(reinterpret_cast<unsigned long long>(tm)), "r"(c0), "r"(c1), "r"(bar)
                 : "memory");
}

/* TMA: the box of shared memory src (written by this block's threads, made visible to the
 * async proxy) to C at (c0, c1) of tensor map tm; what lies outside C is not written. One
 * bulk group per box, so a staging buffer is reused once its group has been read. */
__device__ __forceinline__ void tma_store(const mmt_tmap *tm, unsigned src, int c0, int c1)
{
    asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];\n"
                 "cp.async.bulk.commit_group;\n" ::"l"(reinterpret_cast<unsigned long long>(tm)),
                 "r"(c0), "r"(c1), "r"(src)
                 : "memory");
}

__device__ __forceinline__ unsigned cluster_rank()
{
#if CLUSTER > 1
    unsigned r;
    asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(r));
    return r;
#else
    return 0;
#endif
}

__device__ __forceinline__ void cluster_sync()
{
#if CLUSTER > 1
    asm volatile("barrier.cluster.arrive.release;\nbarrier.cluster.wait.acquire;\n" ::: "memory");
#else
    __syncthreads();
#endif
}
