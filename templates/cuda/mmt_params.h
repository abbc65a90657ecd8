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
