/* batched_check.h - what the tests of mmt_gemm_strided_batched share (CPU and GPU): one
 * batch on random operands whose matrices lie apart (gaps between them and in their rows),
 * or are stored densely, or share one A or B (stride 0), C NaN-poisoned where beta = 0,
 * every C_i against a long double reference and everything between the C_i untouched; and
 * the batches refused whole, with nothing written. Operands live where the backend's alloc
 * puts them (device memory on a GPU), or in host memory (host). */
#ifndef MMT_BATCHED_CHECK_H
#define MMT_BATCHED_CHECK_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "check.h"
#include "gemm_check.h"
#include "mmtuned.h"

typedef struct batch_case {
    mmt_dtype ab, c;
    mmt_compute compute;
    mmt_mode mode;
    int col, ta, tb;
    int64_t m, n, k, batch;
    int shared_a, shared_b; /* stride 0: one A (B) for every GEMM */
    double alpha, beta;
    int dense;  /* leading dimensions as small as they go (else a row or column longer: 1, 2, 1) */
    int packed; /* strides of one matrix exactly (else a gap after each: 3, 5, 7 elements) */
} batch_case;

/* The shapes both tests run: sizes, the batch, a shared A or B; and alpha, beta. */
static const struct bc_shape {
    int64_t m, n, k, batch;
    int shared_a, shared_b;
} bc_shapes[] = {{67, 45, 93, 7, 0, 0}, {33, 17, 300, 3, 0, 1}, {16, 40, 8, 5, 1, 0}, {1, 9, 130, 1, 0, 0},
                 {3, 4, 2, 1000, 0, 0}};
#define BC_SHAPES (sizeof bc_shapes / sizeof bc_shapes[0])
static const double bc_scales[][2] = {{1, 0}, {-0.5, 0.75}, {0, 2}};

/* The case of shape si in layout col with transposes t (bit 0 A, bit 1 B), its alpha and
 * beta taken in turn. */
static inline batch_case bc_case(mmt_dtype ab, mmt_dtype c, mmt_compute compute, mmt_mode mode, size_t si, int col,
                                 int t)
{
    const struct bc_shape *s = &bc_shapes[si];
    const double *sc = bc_scales[(si + (size_t)t + (size_t)col) % 3];
    return (batch_case){ab, c, compute, mode, col, t & 1, t >> 1, s->m, s->n, s->k, s->batch, s->shared_a,
                        s->shared_b, sc[0], sc[1], 0, 0};
}

/* A batch's operands: the host copies, the strides and the leading dimensions. */
typedef struct batch_data {
    int64_t lda, ldb, ldc, stride_a, stride_b, stride_c, na, nb, nc; /* na: elements of A's buffer */
    void *a, *b, *c, *c0;
} batch_data;

static inline batch_data bc_data(const batch_case *bc)
{
    batch_data d;
    const int64_t ar = bc->ta ? bc->k : bc->m, ac = bc->ta ? bc->m : bc->k;
    const int64_t br = bc->tb ? bc->n : bc->k, bcols = bc->tb ? bc->k : bc->n;
    const int64_t pad = !bc->dense;
    d.lda = (bc->col ? ar : ac) + pad, d.ldb = (bc->col ? br : bcols) + 2 * pad;
    d.ldc = (bc->col ? bc->m : bc->n) + pad;
    const int64_t one_a = (bc->col ? ac : ar) * d.lda, one_b = (bc->col ? bcols : br) * d.ldb,
                  one_c = (bc->col ? bc->n : bc->m) * d.ldc;
    const int64_t gap = !bc->packed;
    d.stride_a = bc->shared_a ? 0 : one_a + 3 * gap, d.stride_b = bc->shared_b ? 0 : one_b + 5 * gap;
    d.stride_c = one_c + 7 * gap;
    const int64_t count = bc->batch > 0 ? bc->batch : 1;
    d.na = d.stride_a * (count - 1) + one_a, d.nb = d.stride_b * (count - 1) + one_b;
    d.nc = d.stride_c * (count - 1) + one_c;
    /* as flat random (or NaN) arrays: the gaps hold values too, which must stay */
    d.a = gc_matrix_t(bc->ab, 0, 1, d.na, d.na, 0), d.b = gc_matrix_t(bc->ab, 0, 1, d.nb, d.nb, 0);
    d.c = gc_matrix_t(bc->c, 0, 1, d.nc, d.nc, bc->beta == 0);
    d.c0 = malloc((size_t)mmt_dtype_size(bc->c) * (size_t)d.nc);
    memcpy(d.c0, d.c, (size_t)mmt_dtype_size(bc->c) * (size_t)d.nc);
    return d;
}

static inline void bc_free(batch_data *d) { free(d->a), free(d->b), free(d->c), free(d->c0); }

/* Copies host data to where the call reads it: device memory from be->alloc, or host memory
 * (the data itself) where be is NULL. */
static inline void *bc_put(const mmt_backend *be, const mmt_device_info *dev, const void *x, size_t bytes)
{
    if (!be) return (void *)x;
    void *p = NULL;
    mmt_err err;
    if (be->alloc(dev, bytes ? bytes : 1, &p, &err) != MMT_OK || be->copy(p, x, bytes, MMT_H2D, &err) != MMT_OK) {
        fprintf(stderr, "device copy: %s\n", err.msg);
        if (p) be->free(p);
        return NULL;
    }
    return p;
}

/* The largest relative error of the C_i of got, the batch bc on d's operands computed (host
 * memory), against a long double reference; INFINITY where anything of C outside the C_i
 * changed. */
static inline double bc_error(const batch_case *bc, const batch_data *d, const void *got)
{
    const size_t es = (size_t)mmt_dtype_size(bc->ab), cs = (size_t)mmt_dtype_size(bc->c);
    double worst = 0;
    char *mask = calloc((size_t)d->nc, 1); /* the elements the batch may write */
    double *ref = gc_ref_alloc(bc->m, bc->n);
    for (int64_t i = 0; i < bc->batch; i++) {
        const char *ai = (const char *)d->a + es * (size_t)(i * d->stride_a);
        const char *bi = (const char *)d->b + es * (size_t)(i * d->stride_b);
        const size_t ci = cs * (size_t)(i * d->stride_c);
        gc_reference_t(bc->ab, bc->c, bc->col, bc->ta, bc->tb, bc->m, bc->n, bc->k, bc->alpha, ai, d->lda, bi, d->ldb,
                       bc->beta, (const char *)d->c0 + ci, d->ldc, ref);
        const double e = gc_rel_error_t(bc->c, bc->col, bc->m, bc->n, (const char *)got + ci, d->ldc, ref);
        worst = e > worst || isnan(e) ? e : worst;
        for (int64_t r = 0; r < (bc->col ? bc->n : bc->m); r++)
            memset(mask + i * d->stride_c + r * d->ldc, 1, (size_t)(bc->col ? bc->m : bc->n));
    }
    for (int64_t j = 0; j < d->nc; j++)
        if (!mask[j] && memcmp((const char *)got + cs * (size_t)j, (const char *)d->c0 + cs * (size_t)j, cs)) {
            fprintf(stderr, "element %lld of C, outside every C_i, changed\n", (long long)j);
            worst = INFINITY;
            break;
        }
    free(mask), free(ref);
    return worst;
}

/* Runs bc through mmt_gemm_strided_batched on ctx (operands put by be, NULL: host memory);
 * the largest relative error of a C_i, INFINITY where the call failed or anything of C
 * outside the C_i changed (bc_error). *how and config: what served the call. */
static inline double bc_run(mmt_ctx *ctx, const mmt_backend *be, const mmt_device_info *dev, const batch_case *bc,
                            mmt_choice *how, char *config, size_t size)
{
    batch_data d = bc_data(bc);
    const size_t es = (size_t)mmt_dtype_size(bc->ab), cs = (size_t)mmt_dtype_size(bc->c);
    void *da = bc_put(be, dev, d.a, es * (size_t)d.na), *db = bc_put(be, dev, d.b, es * (size_t)d.nb);
    void *dc = bc_put(be, dev, d.c, cs * (size_t)d.nc);
    const mmt_gemm_desc desc = {bc->ab, bc->c, bc->compute, bc->col ? MMT_COL_MAJOR : MMT_ROW_MAJOR,
                                bc->ta ? MMT_TRANS : MMT_NO_TRANS, bc->tb ? MMT_TRANS : MMT_NO_TRANS};
    double worst = INFINITY;
    mmt_err err;
    *how = MMT_CHOICE_NONE, config[0] = '\0';
    if (da && db && dc) {
        mmt_status st = mmt_gemm_strided_batched(ctx, &desc, bc->m, bc->n, bc->k, bc->alpha, da, d.lda, d.stride_a,
                                                 db, d.ldb, d.stride_b, bc->beta, dc, d.ldc, d.stride_c, bc->batch);
        const char *text = "";
        *how = mmt_last_choice(ctx, &text);
        snprintf(config, size, "%s", text);
        if (st != MMT_OK) fprintf(stderr, "mmt_gemm_strided_batched: %s\n", mmt_last_error(ctx));
        void *got = be ? malloc(cs * (size_t)d.nc) : dc;
        if (st == MMT_OK && (!be || (be->sync(NULL, &err) == MMT_OK &&
                                     be->copy(got, dc, cs * (size_t)d.nc, MMT_D2H, &err) == MMT_OK)))
            worst = bc_error(bc, &d, got);
        if (be) free(got);
    }
    if (be) be->free(da), be->free(db), be->free(dc);
    bc_free(&d);
    return worst;
}

/* Batches refused whole: MMT_INVALID_ARGUMENT, and C as it was. */
static inline void bc_refusals(mmt_ctx *ctx, const mmt_backend *be, const mmt_device_info *dev)
{
    const batch_case bc = {MMT_F32, MMT_F32, MMT_COMPUTE_NATIVE, MMT_MODE_F32, 0, 0, 0, 5, 4, 3, 3, 0, 0, 1, 0.5,
                           0, 0};
    batch_data d = bc_data(&bc);
    const size_t bytes = sizeof(float) * (size_t)d.nc;
    void *da = bc_put(be, dev, d.a, sizeof(float) * (size_t)d.na), *db = bc_put(be, dev, d.b, sizeof(float) * (size_t)d.nb);
    void *dc = bc_put(be, dev, d.c, bytes);
    const mmt_gemm_desc desc = {MMT_F32, MMT_F32, MMT_COMPUTE_NATIVE, MMT_ROW_MAJOR, MMT_NO_TRANS, MMT_NO_TRANS};
    const struct {
        const char *what;
        int64_t stride_a, stride_c, batch, ldc;
        int null_c;
    } bad[] = {
        {"a negative batch", d.stride_a, d.stride_c, -1, d.ldc, 0},
        {"a negative stride", -d.stride_a, d.stride_c, 3, d.ldc, 0},
        {"C matrices that overlap", d.stride_a, (bc.m - 1) * d.ldc + bc.n - 1, 3, d.ldc, 0},
        {"a stride past 64-bit sizes", (int64_t)1 << 61, d.stride_c, 3, d.ldc, 0},
        {"ldc too small", d.stride_a, d.stride_c, 3, 3, 0},
        {"C NULL", d.stride_a, d.stride_c, 3, d.ldc, 1},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        mmt_status st = mmt_gemm_strided_batched(ctx, &desc, 5, 4, 3, 1, da, d.lda, bad[i].stride_a, db, d.ldb,
                                                 d.stride_b, 0.5, bad[i].null_c ? NULL : dc, bad[i].ldc,
                                                 bad[i].stride_c, bad[i].batch);
        printf("refused, %s: %s\n", bad[i].what, mmt_last_error(ctx));
        CHECK_EQ_INT(st, MMT_INVALID_ARGUMENT);
    }
    /* a batch of none computes nothing, and is no error */
    CHECK_EQ_INT(mmt_gemm_strided_batched(ctx, &desc, 5, 4, 3, 1, da, d.lda, d.stride_a, db, d.ldb, d.stride_b, 0.5,
                                          dc, d.ldc, d.stride_c, 0),
                 MMT_OK);
    void *got = be ? malloc(bytes) : dc;
    mmt_err err;
    CHECK(!be || be->copy(got, dc, bytes, MMT_D2H, &err) == MMT_OK);
    CHECK(memcmp(got, d.c0, bytes) == 0);
    if (be) free(got), be->free(da), be->free(db), be->free(dc);
    bc_free(&d);
}

#endif
