/* gemm_faulty.cu - a GPU test template with planted faults: a plain, correct f32 GEMM when
 * FAULT == 0; with FAULT 1 it writes to an illegal address, 2 never returns, 3 drops the
 * last k term (a wrong result), 4 does not compile. The tuner must survive each one,
 * record it, and still end with the correct best. One thread per element of C. */
#ifndef FAULT
#define FAULT 0 // which fault to plant
#endif
#if FAULT == 4
#error "planted compile error"
#endif

typedef long long int64_t;
typedef int int32_t;
struct mmt_gemm_params { /* keep in step with src/backend.h */
    int64_t m, n, k;
    int64_t lda, ldb, ldc;
    int32_t trans_a, trans_b;
    double alpha, beta;
    const void *a, *b;
    void *c;
    void *workspace;
    int64_t workspace_size;
};

extern "C" __global__ void mmt_gemm(mmt_gemm_params p)
{
    const float *A = (const float *)p.a, *B = (const float *)p.b;
    float *C = (float *)p.c;
    int64_t i = blockIdx.y * (int64_t)blockDim.y + threadIdx.y, j = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
#if FAULT == 1
    *(volatile float *)(C - (1ll << 40)) = 1.0f;
#elif FAULT == 2
    for (;;) __nanosleep(1000); /* a loop with no side effect could be optimised away */
#endif
    if (i >= p.m || j >= p.n) return;
    int64_t kmax = FAULT == 3 && p.k > 1 ? p.k - 1 : p.k;
    double s = 0;
    if (p.alpha != 0)
        for (int64_t l = 0; l < kmax; l++)
            s += (double)(p.trans_a ? A[l * p.lda + i] : A[i * p.lda + l]) *
                 (p.trans_b ? B[j * p.ldb + l] : B[l * p.ldb + j]);
    double v = p.alpha * s;
    if (p.beta != 0) v += p.beta * C[i * p.ldc + j];
    C[i * p.ldc + j] = (float)v;
}
