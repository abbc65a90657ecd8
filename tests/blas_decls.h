/* blas_decls.h - what the tests of libmmtuned_blas call: the GEMM entry points of the
 * reference BLAS and CBLAS as the library exports them, and CBLAS's enum values. */
#ifndef MMT_BLAS_DECLS_H
#define MMT_BLAS_DECLS_H

#include <stddef.h>

enum { ROW = 101, COL = 102, NO = 111, TR = 112, CONJ = 113 };

void sgemm_(const char *, const char *, const int *, const int *, const int *, const float *, const float *,
            const int *, const float *, const int *, const float *, float *, const int *, size_t, size_t);
void dgemm_(const char *, const char *, const int *, const int *, const int *, const double *, const double *,
            const int *, const double *, const int *, const double *, double *, const int *, size_t, size_t);
void cblas_sgemm(int, int, int, int, int, int, float, const float *, int, const float *, int, float, float *, int);
void cblas_dgemm(int, int, int, int, int, int, double, const double *, int, const double *, int, double, double *,
                 int);
void cblas_sgemm_batch_strided(int, int, int, int, int, int, float, const float *, int, int, const float *, int, int,
                               float, float *, int, int, int);
void cblas_dgemm_batch_strided(int, int, int, int, int, int, double, const double *, int, int, const double *, int,
                               int, double, double *, int, int, int);
void cblas_sgemm_batch(int, const int *, const int *, const int *, const int *, const int *, const float *,
                       const float **, const int *, const float **, const int *, const float *, float **, const int *,
                       int, const int *);
void cblas_dgemm_batch(int, const int *, const int *, const int *, const int *, const int *, const double *,
                       const double **, const int *, const double **, const int *, const double *, double **,
                       const int *, int, const int *);

#endif
