/* mmt_params.h - the launch parameters every CUDA template takes: the same layout as
 * mmt_gemm_params in src/backend.h. A template's include of this file is replaced by this
 * text when libmmtuned reads the template (src/resource.c), so NVRTC needs no header; nvcc
 * finds it beside the template. */
struct mmt_gemm_params {
    long long m, n, k;
    long long lda, ldb, ldc;
    int trans_a, trans_b;
    double alpha, beta;
    const void *a, *b;
    void *c;
    void *workspace;
    long long workspace_size;
};
static_assert(sizeof(mmt_gemm_params) == 112, "mmt_gemm_params must match src/backend.h");

/* What an instance needs of every launch, as it was built: the same layout as
 * mmt_launch_needs in src/backend.h. A template states it once with MMT_NEEDS, from the same
 * macros its code is compiled from; the backend reads it out of the binary when it loads
 * the module and refuses, on the host, a launch that does not meet it. The kernel's own
 * check would trap, and a trap ends the application's CUDA context. */
struct mmt_launch_needs {
    int version;            /* 1 */
    int elem_bytes;         /* of A and B: a row pitch in bytes is ld * elem_bytes */
    int align_a, align_b;   /* A's (B's) address and row pitch in bytes are multiples of it (1: any) */
    int trans_a, trans_b;   /* the orientation it was built for (-1: either) */
    long long max_m, max_n; /* the largest M (N) it computes (0: any) */
};
static_assert(sizeof(mmt_launch_needs) == 40, "mmt_launch_needs must match src/backend.h");
#define MMT_NEEDS(elem_bytes, align_a, align_b, trans_a, trans_b, max_m, max_n)                                 \
    extern "C" __device__ const mmt_launch_needs mmt_gemm_needs = {1, (elem_bytes), (align_a), (align_b),          \
                                                                   (trans_a), (trans_b), (max_m), (max_n)}
