/* coresident.c - libmmtuned's CPU GEMM beside another threaded library in one process: for
 * each shape (f32, row-major), the median time of mmt_sgemm alone, of OpenBLAS's
 * cblas_sgemm alone, and of each while the two alternate call by call, as an application
 * that also uses LAPACK does (and the drop-in BLAS, whose other routines go to OpenBLAS).
 * Ratios above 1.00x are slowdowns; the goal is at most 1.25x for either.
 *   coresident [MxNxK ... (1024x1024x1024 777x1234x4321 2500x300x1500)]
 * libmmtuned serves from its database as an application's would (MMTUNE_DB, MMTUNE_VENDOR:
 * with MMTUNE_VENDOR=off the templates serve every shape). Exits 77 without OpenBLAS. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "mmtuned.h"
#include "openblas_sgemm.h"
#include "stats.h"

enum { ROUNDS = 41 };

typedef struct bench {
    mmt_ctx *ctx;
    cblas_sgemm_fn sgemm;
    int64_t m, n, k;
    float *a, *b, *c;
} bench;

static void die(const char *what, const char *msg)
{
    fprintf(stderr, "coresident: %s: %s\n", what, msg);
    exit(1);
}

/* Seconds of one call: libmmtuned's (ours 1) or OpenBLAS's. */
static double one_call(const bench *b, int ours)
{
    const double t0 = mmt_now_s();
    if (ours) {
        if (mmt_sgemm(b->ctx, MMT_ROW_MAJOR, MMT_NO_TRANS, MMT_NO_TRANS, b->m, b->n, b->k, 1, b->a, b->k, b->b, b->n, 0,
                      b->c, b->n) != MMT_OK)
            die("mmt_sgemm", mmt_last_error(b->ctx));
    } else {
        b->sgemm(CBLAS_ROW_MAJOR, CBLAS_NO_TRANS, CBLAS_NO_TRANS, (int)b->m, (int)b->n, (int)b->k, 1, b->a, (int)b->k,
                 b->b, (int)b->n, 0, b->c, (int)b->n);
    }
    return mmt_now_s() - t0;
}

static float *random_matrix(int64_t elems)
{
    float *x = malloc(sizeof *x * (size_t)elems);
    if (!x) die("malloc", "out of memory");
    for (int64_t i = 0; i < elems; i++) x[i] = (float)rand() / RAND_MAX - 0.5f;
    return x;
}

int main(int argc, char **argv)
{
    bench b = {.sgemm = openblas_sgemm()};
    if (!b.sgemm) {
        printf("skipped: no OpenBLAS (libopenblas.so.0) to run beside\n");
        return 77;
    }
    if (mmt_open(&b.ctx, "cpu", NULL) != MMT_OK) die("mmt_open", mmt_last_error(b.ctx));
    static char *defaults[] = {"1024x1024x1024", "777x1234x4321", "2500x300x1500"};
    char **shapes = argc > 1 ? argv + 1 : defaults;
    const int n_shapes = argc > 1 ? argc - 1 : 3;
    const char *gomp = getenv("GOMP_SPINCOUNT"), *openblas = getenv("OPENBLAS_THREAD_TIMEOUT");
    printf("f32 row NN, %d rounds; alone: one library's calls back to back; beside: the two alternating; "
           "GOMP_SPINCOUNT=%s OPENBLAS_THREAD_TIMEOUT=%s\n",
           ROUNDS, gomp ? gomp : "(unset)", openblas ? openblas : "(unset)");
    for (int s = 0; s < n_shapes; s++) {
        long long m, n, k;
        if (sscanf(shapes[s], "%lldx%lldx%lld", &m, &n, &k) != 3 || m < 1 || n < 1 || k < 1)
            die(shapes[s], "not MxNxK");
        b.m = m, b.n = n, b.k = k;
        b.a = random_matrix(m * k), b.b = random_matrix(k * n), b.c = random_matrix(m * n);
        double alone[2][ROUNDS], beside[2][ROUNDS];
        for (int w = 0; w < 2; w++) one_call(&b, w); /* warm: kernels loaded, threads made */
        for (int w = 0; w < 2; w++)
            for (int r = 0; r < ROUNDS; r++) alone[w][r] = one_call(&b, w);
        for (int r = 0; r < ROUNDS; r++)
            for (int w = 0; w < 2; w++) beside[w][r] = one_call(&b, w);
        const char *config;
        mmt_last_choice(b.ctx, &config);
        const double ma = mmt_stats_median(alone[1], ROUNDS), mb = mmt_stats_median(beside[1], ROUNDS);
        const double va = mmt_stats_median(alone[0], ROUNDS), vb = mmt_stats_median(beside[0], ROUNDS);
        printf("%lldx%lldx%lld: libmmtuned alone %.3f ms, beside OpenBLAS %.3f ms (%.2fx); OpenBLAS alone %.3f ms, "
               "beside libmmtuned %.3f ms (%.2fx); served by %s\n",
               m, n, k, 1e3 * ma, 1e3 * mb, mb / ma, 1e3 * va, 1e3 * vb, vb / va, config);
        free(b.a), free(b.b), free(b.c);
    }
    mmt_close(b.ctx);
    return 0;
}
