/* gemm_avx.c (a test's stand-in, tests/cli_demote.sh) - the CPU family's template replaced by
 * a plain, correct f32 GEMM that then waits until 0.5 ms have passed since the call began:
 * slower than any vendor library by far on a small problem, however busy the machine, so a
 * bench that finds it slower never hangs on the noise. It takes the family's knobs and
 * ignores them. */
#include <stdint.h>
#include <time.h>

typedef struct mmt_gemm_params { /* keep in step with src/backend.h */
    int64_t m, n, k;
    int64_t lda, ldb, ldc;
    int32_t trans_a, trans_b;
    double alpha, beta;
    const void *a, *b;
    void *c;
    void *workspace;
    int64_t workspace_size;
} mmt_gemm_params;

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int mmt_gemm(const mmt_gemm_params *p)
{
    const int64_t end = now_ns() + 500000;
    const float *A = p->a, *B = p->b;
    float *C = p->c;
    for (int64_t i = 0; i < p->m; i++)
        for (int64_t j = 0; j < p->n; j++) {
            double s = 0;
            if (p->alpha != 0)
                for (int64_t l = 0; l < p->k; l++)
                    s += (double)(p->trans_a ? A[l * p->lda + i] : A[i * p->lda + l]) *
                         (p->trans_b ? B[j * p->ldb + l] : B[l * p->ldb + j]);
            double v = p->alpha * s;
            if (p->beta != 0) v += p->beta * C[i * p->ldc + j];
            C[i * p->ldc + j] = (float)v;
        }
    while (now_ns() < end) {
        const struct timespec nap = {0, 100000};
        nanosleep(&nap, NULL);
    }
    return 0;
}
