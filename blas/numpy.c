/* numpy.c - the names pip's numpy calls. Its wheels bundle their own OpenBLAS, built with
 * 64-bit integers and renamed (scipy_cblas_sgemm64_ in libscipy_openblas64_-<hash>.so), so
 * the standard names never see numpy's GEMMs. This library answers those two names too;
 * preloaded, it comes first in the dynamic linker's search. What it does not serve (sizes
 * beyond 32 bits, an argument CBLAS refuses, a GEMM libmmtuned cannot run) goes to numpy's
 * own routine, which reports errors its own way. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blas.h"

typedef int64_t blasint64;
typedef void scipy_sgemm(int, int, int, blasint64, blasint64, blasint64, float, const float *, blasint64,
                         const float *, blasint64, float, float *, blasint64);
typedef void scipy_dgemm(int, int, int, blasint64, blasint64, blasint64, double, const double *, blasint64,
                         const double *, blasint64, double, double *, blasint64);

static pthread_once_t once = PTHREAD_ONCE_INIT;
static scipy_sgemm *own_sgemm;
static scipy_dgemm *own_dgemm;

/* The path of the loaded library whose name says it is numpy's OpenBLAS (opened after the
 * walk: the walk holds the loader's lock). */
static int name_of(struct dl_phdr_info *info, size_t size, void *path)
{
    (void)size;
    if (!info->dlpi_name || !strstr(info->dlpi_name, "scipy_openblas")) return 0;
    snprintf(path, PATH_MAX, "%s", info->dlpi_name);
    return 1;
}

static void find_own(void)
{
    char path[PATH_MAX] = "";
    void *h = dl_iterate_phdr(name_of, path) ? dlopen(path, RTLD_LAZY | RTLD_NOLOAD | RTLD_LOCAL) : NULL;
    if (!h) return;
    own_sgemm = (scipy_sgemm *)dlsym(h, "scipy_cblas_sgemm64_");
    own_dgemm = (scipy_dgemm *)dlsym(h, "scipy_cblas_dgemm64_");
    dlclose(h); /* NOLOAD took a reference of a library that stays loaded */
}

/* numpy's own GEMM for the call as it was made. */
static void own(const mmtb_cblas_args *x, blasint64 m, blasint64 n, blasint64 k, blasint64 lda, blasint64 ldb,
                blasint64 ldc)
{
    pthread_once(&once, find_own);
    if (!(x->dtype == MMT_F32 ? (void *)own_sgemm : (void *)own_dgemm)) {
        fprintf(stderr, "libmmtuned_blas: %s: no scipy_openblas library is loaded to take the call\n",
                x->dtype == MMT_F32 ? "scipy_cblas_sgemm64_" : "scipy_cblas_dgemm64_");
        abort();
    }
    mmtb_count_forwarded(x->dtype);
    if (x->dtype == MMT_F32)
        own_sgemm(x->layout, x->trans_a, x->trans_b, m, n, k, (float)x->alpha, x->a, lda, x->b, ldb, (float)x->beta,
                  x->c, ldc);
    else
        own_dgemm(x->layout, x->trans_a, x->trans_b, m, n, k, x->alpha, x->a, lda, x->b, ldb, x->beta, x->c, ldc);
}

/* The fallback of a served call: its sizes fit in 32 bits. */
static void own_of(const mmtb_gemm *g)
{
    const mmtb_cblas_args x = {g->dtype, g->layout, g->trans_a, g->trans_b, g->m,    g->n, g->k,
                               g->alpha, g->a,      g->lda,     g->b,       g->ldb,  g->beta, g->c, g->ldc};
    own(&x, g->m, g->n, g->k, g->lda, g->ldb, g->ldc);
}

static int fits(blasint64 v) { return v >= INT_MIN && v <= INT_MAX; }

static void serve(mmt_dtype dtype, int layout, int trans_a, int trans_b, blasint64 m, blasint64 n, blasint64 k,
                  double alpha, const void *a, blasint64 lda, const void *b, blasint64 ldb, double beta, void *c,
                  blasint64 ldc)
{
    const mmtb_cblas_args x = {dtype, layout, trans_a,  trans_b, (int)m, (int)n, (int)k, alpha,
                               a,     (int)lda, b,      (int)ldb, beta,  c,      (int)ldc};
    mmtb_gemm g;
    if (fits(m) && fits(n) && fits(k) && fits(lda) && fits(ldb) && fits(ldc) && mmtb_cblas_gemm_of(&x, &g) == 0)
        mmtb_run(&g, own_of);
    else
        own(&x, m, n, k, lda, ldb, ldc);
}

MMTB_EXPORT void scipy_cblas_sgemm64_(int layout, int trans_a, int trans_b, blasint64 m, blasint64 n, blasint64 k,
                                      float alpha, const float *a, blasint64 lda, const float *b, blasint64 ldb,
                                      float beta, float *c, blasint64 ldc)
{
    serve(MMT_F32, layout, trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

MMTB_EXPORT void scipy_cblas_dgemm64_(int layout, int trans_a, int trans_b, blasint64 m, blasint64 n, blasint64 k,
                                      double alpha, const double *a, blasint64 lda, const double *b, blasint64 ldb,
                                      double beta, double *c, blasint64 ldc)
{
    serve(MMT_F64, layout, trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
