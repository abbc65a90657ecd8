/* api_call.h - one GEMM through libmmtuned checked against the long double reference
 * (gemm_check.h): what the tests of databases that serve use to say a call was right. */
#ifndef MMT_TEST_API_CALL_H
#define MMT_TEST_API_CALL_H

#include <stdio.h>
#include <stdlib.h>

#include "gemm_check.h"
#include "mmtuned.h"

/* mmt_sgemm (or mmt_dgemm where f64) of row-major m x k by k x n random operands on ctx,
 * into a C poisoned with NaN: 1 where it succeeded and is right, else 0 with why on stderr
 * after what. */
static int api_gemm_right(mmt_ctx *ctx, int f64, int m, int n, int k, const char *what)
{
    void *a = gc_matrix(f64, 0, m, k, k, 0), *b = gc_matrix(f64, 0, k, n, n, 0), *c = gc_matrix(f64, 0, m, n, n, 1);
    double *ref = gc_ref_alloc(m, n);
    gc_reference(f64, 0, 0, 0, m, n, k, 1, a, k, b, n, 0, NULL, n, ref);
    const mmt_status st = f64 ? mmt_dgemm(ctx, MMT_ROW_MAJOR, MMT_NO_TRANS, MMT_NO_TRANS, m, n, k, 1, a, k, b, n, 0, c, n)
                              : mmt_sgemm(ctx, MMT_ROW_MAJOR, MMT_NO_TRANS, MMT_NO_TRANS, m, n, k, 1, a, k, b, n, 0, c, n);
    const int right = st == MMT_OK && gc_rel_error(f64, 0, m, n, c, n, ref) <= gc_bound(f64, k);
    if (!right)
        fprintf(stderr, "%s: %s %dx%dx%d: %s\n", what, f64 ? "f64" : "f32", m, n, k,
                st != MMT_OK ? mmt_last_error(ctx) : "wrong result");
    free(a), free(b), free(c), free(ref);
    return right;
}

#endif
