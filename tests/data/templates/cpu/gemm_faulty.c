/* gemm_faulty.c - a test template with planted faults: a plain, correct GEMM when
 * FAULT == 0; with FAULT 1 it writes through a null pointer, 2 never returns, 3 sums the
 * first k term alone (a wrong result, and K times faster than the right one: a tuner that
 * let a wrong result through would make it the best), 4 does not compile. The tuner must
 * survive each one, record it, and still end with the correct best. */
#include <stdint.h>

#ifndef FAULT
#define FAULT 0 // which fault to plant
#endif
#if FAULT == 4
#error "planted compile error"
#endif

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

int mmt_gemm(const mmt_gemm_params *p)
{
    const float *A = p->a, *B = p->b;
    float *C = p->c;
#if FAULT == 1
    *(volatile float *)0 = 1.0f;
#elif FAULT == 2
    for (volatile int spin = 1; spin;) {
    }
#endif
    int64_t kmax = FAULT == 3 && p->k > 1 ? 1 : p->k;
    for (int64_t i = 0; i < p->m; i++)
        for (int64_t j = 0; j < p->n; j++) {
            double s = 0;
            if (p->alpha != 0)
                for (int64_t l = 0; l < kmax; l++)
                    s += (double)(p->trans_a ? A[l * p->lda + i] : A[i * p->lda + l]) *
                         (p->trans_b ? B[j * p->ldb + l] : B[l * p->ldb + j]);
            double v = p->alpha * s;
            if (p->beta != 0) v += p->beta * C[i * p->ldc + j];
            C[i * p->ldc + j] = (float)v;
        }
    return 0;
}
