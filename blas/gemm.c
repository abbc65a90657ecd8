/* gemm.c - sgemm_, dgemm_ (Fortran BLAS) and cblas_sgemm, cblas_dgemm with the reference
 * BLAS's semantics, and the batch extensions cblas_sgemm_batch_strided,
 * cblas_dgemm_batch_strided (oneMKL's, OpenBLAS's and NVPL's signature) and cblas_sgemm_batch,
 * cblas_dgemm_batch (groups on arrays of pointers: oneMKL's and OpenBLAS's), served by
 * libmmtuned:
 *   - argument errors go to xerbla_ with the Fortran parameter numbers (TRANSA = 1 ...
 *     LDC = 13), or to cblas_xerbla as reference CBLAS reports them (layout 1, TransA 2,
 *     TransB 3; the rest as the column-major Fortran call it makes, plus one, with
 *     RowMajorStrg set for a row-major call); nothing is written then;
 *   - the quick return (m == 0, n == 0, or alpha == 0 or k == 0 with beta == 1) touches
 *     nothing;
 *   - beta == 0: C is not read; alpha == 0: A and B are not read (libmmtuned's rules).
 * A GEMM libmmtuned cannot serve (no compiler for a kernel never built, say) goes to the
 * system BLAS after one message. */
#include <ctype.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "blas.h"

/* CBLAS's enumerations (cblas.h), which mmtuned.h's layout and transpose values match. */
enum { CBLAS_ROW_MAJOR = 101, CBLAS_COL_MAJOR = 102, CBLAS_NO_TRANS = 111, CBLAS_TRANS = 112, CBLAS_CONJ_TRANS = 113 };

typedef void fortran_gemm(const char *transa, const char *transb, const int *m, const int *n, const int *k,
                          const void *alpha, const void *a, const int *lda, const void *b, const int *ldb,
                          const void *beta, void *c, const int *ldc, size_t transa_len, size_t transb_len);

/* A Fortran TRANS character: 0 for 'N', 1 for 'T' and 'C' (real matrices), -1 otherwise. */
static int fortran_trans(char t)
{
    t = (char)toupper((unsigned char)t);
    return t == 'N' ? 0 : t == 'T' || t == 'C' ? 1 : -1;
}

static int cblas_trans(int t) { return t == CBLAS_NO_TRANS ? 0 : t == CBLAS_TRANS || t == CBLAS_CONJ_TRANS ? 1 : -1; }

static int max1(int x) { return x > 1 ? x : 1; }

/* The reference xGEMM's checks of a column-major call, in its order: 0, or the number of
 * the first bad parameter (TRANSA 1, TRANSB 2, M 3, N 4, K 5, LDA 8, LDB 10, LDC 13). */
static int check_column_major(int ta, int tb, int m, int n, int k, int lda, int ldb, int ldc)
{
    if (ta < 0) return 1;
    if (tb < 0) return 2;
    if (m < 0) return 3;
    if (n < 0) return 4;
    if (k < 0) return 5;
    if (lda < max1(ta ? k : m)) return 8;
    if (ldb < max1(tb ? n : k)) return 10;
    if (ldc < max1(m)) return 13;
    return 0;
}

/* The call as the reference's Fortran routine sees it: column-major (a row-major C = A B is
 * the column-major C^T = B^T A^T). */
static mmtb_gemm column_major(const mmtb_gemm *g)
{
    if (g->layout == MMT_COL_MAJOR) return *g;
    mmtb_gemm t = *g;
    t.layout = MMT_COL_MAJOR;
    t.trans_a = g->trans_b, t.trans_b = g->trans_a;
    t.m = g->n, t.n = g->m;
    t.a = g->b, t.b = g->a;
    t.lda = g->ldb, t.ldb = g->lda;
    return t;
}

static void forward(const mmtb_gemm *g)
{
    const char *name = g->dtype == MMT_F32 ? "sgemm_" : "dgemm_";
    fortran_gemm *fn = (fortran_gemm *)mmtb_system_symbol(name);
    if (!fn) mmtb_forward_missing(name);
    mmtb_gemm c = column_major(g);
    const char ta = c.trans_a == MMT_TRANS ? 'T' : 'N', tb = c.trans_b == MMT_TRANS ? 'T' : 'N';
    float alpha32 = (float)c.alpha, beta32 = (float)c.beta;
    const void *alpha = g->dtype == MMT_F32 ? (const void *)&alpha32 : &c.alpha;
    const void *beta = g->dtype == MMT_F32 ? (const void *)&beta32 : &c.beta;
    mmtb_count_forwarded(g->dtype);
    fn(&ta, &tb, &c.m, &c.n, &c.k, alpha, c.a, &c.lda, c.b, &c.ldb, beta, c.c, &c.ldc, 1, 1);
}

int mmtb_run(const mmtb_gemm *g, void (*fallback)(const mmtb_gemm *g))
{
    if (!fallback) fallback = forward;
    if (g->m == 0 || g->n == 0 || ((g->alpha == 0 || g->k == 0) && g->beta == 1)) return 0;
    if (mmtb_offload(g)) return 0;
    mmt_ctx *ctx = mmtb_context_enter();
    if (!ctx) {
        fallback(g);
        return 0;
    }
    mmt_status st = mmtb_gemm_on(ctx, g);
    if (st == MMT_OK) {
        mmtb_count_served(ctx, g->dtype, 1);
        mmtb_context_leave();
        return 1;
    }
    static atomic_int said;
    mmtb_warn_once(&said, "libmmtuned could not run a GEMM (%s: %s); such calls go to %s", mmt_status_string(st),
                   mmt_last_error(ctx), fallback == forward ? mmtb_system_blas() : "the caller's own BLAS");
    mmtb_context_leave();
    fallback(g);
    return 0;
}

static void fortran(mmt_dtype dtype, const char *srname, const char *transa, const char *transb, const int *m,
                    const int *n, const int *k, double alpha, const void *a, const int *lda, const void *b,
                    const int *ldb, double beta, void *c, const int *ldc)
{
    const int ta = fortran_trans(*transa), tb = fortran_trans(*transb);
    const int info = check_column_major(ta, tb, *m, *n, *k, *lda, *ldb, *ldc);
    if (info) {
        xerbla_(srname, &info, 6);
        return;
    }
    const mmtb_gemm g = {dtype, MMT_COL_MAJOR, ta ? MMT_TRANS : MMT_NO_TRANS, tb ? MMT_TRANS : MMT_NO_TRANS,
                         *m, *n, *k, alpha, beta, a, b, c, *lda, *ldb, *ldc};
    mmtb_run(&g, NULL);
}

MMTB_EXPORT void sgemm_(const char *transa, const char *transb, const int *m, const int *n, const int *k,
                        const float *alpha, const float *a, const int *lda, const float *b, const int *ldb,
                        const float *beta, float *c, const int *ldc, size_t transa_len, size_t transb_len)
{
    (void)transa_len, (void)transb_len;
    fortran(MMT_F32, "SGEMM ", transa, transb, m, n, k, *alpha, a, lda, b, ldb, *beta, c, ldc);
}

MMTB_EXPORT void dgemm_(const char *transa, const char *transb, const int *m, const int *n, const int *k,
                        const double *alpha, const double *a, const int *lda, const double *b, const int *ldb,
                        const double *beta, double *c, const int *ldc, size_t transa_len, size_t transb_len)
{
    (void)transa_len, (void)transb_len;
    fortran(MMT_F64, "DGEMM ", transa, transb, m, n, k, *alpha, a, lda, b, ldb, *beta, c, ldc);
}

/* cblas_xerbla as reference CBLAS calls it: RowMajorStrg set for a row-major call, cleared
 * after (they are process globals: only the error path writes them). */
static void cblas_error(int row_major, int info, const char *rout, const char *form, int value)
{
    RowMajorStrg = row_major;
    CBLAS_CallFromC = 1;
    cblas_xerbla(info, rout, form, value);
    CBLAS_CallFromC = 0;
    RowMajorStrg = 0;
}

int mmtb_cblas_gemm_of(const mmtb_cblas_args *x, mmtb_gemm *g)
{
    if (x->layout != CBLAS_ROW_MAJOR && x->layout != CBLAS_COL_MAJOR) return 1;
    const int row = x->layout == CBLAS_ROW_MAJOR, ta = cblas_trans(x->trans_a), tb = cblas_trans(x->trans_b);
    if (ta < 0 || tb < 0) return ta < 0 ? 2 : 3;
    *g = (mmtb_gemm){x->dtype, row ? MMT_ROW_MAJOR : MMT_COL_MAJOR, ta ? MMT_TRANS : MMT_NO_TRANS,
                     tb ? MMT_TRANS : MMT_NO_TRANS, x->m, x->n, x->k, x->alpha, x->beta, x->a, x->b, x->c, x->lda,
                     x->ldb, x->ldc};
    const mmtb_gemm f = column_major(g);
    const int info = check_column_major(f.trans_a == MMT_TRANS, f.trans_b == MMT_TRANS, f.m, f.n, f.k, f.lda, f.ldb,
                                        f.ldc);
    return info ? info + 1 : 0;
}

/* Reports bad argument info of call x to cblas_xerbla as reference CBLAS does; row_major:
 * the number is the column-major call's (RowMajorStrg set for a row-major x), else the
 * caller's own. */
static void cblas_report(const char *rout, const mmtb_cblas_args *x, int info, int row_major)
{
    if (info == 1) cblas_error(0, 1, rout, "Illegal layout setting, %d\n", x->layout);
    else if (info == 2) cblas_error(row_major, 2, rout, "Illegal TransA setting, %d\n", x->trans_a);
    else if (info == 3) cblas_error(row_major, 3, rout, "Illegal TransB setting, %d\n", x->trans_b);
    else cblas_error(row_major, info, rout, "", 0);
}

static void cblas(const char *rout, const mmtb_cblas_args *x)
{
    mmtb_gemm g;
    const int info = mmtb_cblas_gemm_of(x, &g);
    if (info) cblas_report(rout, x, info, x->layout == CBLAS_ROW_MAJOR);
    else mmtb_run(&g, NULL);
}

/* mmtb_cblas_gemm_of's number for call x as its caller counts cblas_?gemm's arguments
 * (M 4, N 5, K 6, lda 9, ldb 11, ldc 14): a row-major call's column-major one swaps M and
 * N, A and B. */
static int caller_number(const mmtb_cblas_args *x, int info)
{
    if (info <= 3 || x->layout != CBLAS_ROW_MAJOR) return info;
    return info == 4 ? 5 : info == 5 ? 4 : info == 9 ? 11 : info == 11 ? 9 : info;
}

MMTB_EXPORT void cblas_sgemm(int layout, int trans_a, int trans_b, int m, int n, int k, float alpha, const float *a,
                             int lda, const float *b, int ldb, float beta, float *c, int ldc)
{
    cblas("cblas_sgemm", &(mmtb_cblas_args){MMT_F32, layout, trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c,
                                           ldc});
}

MMTB_EXPORT void cblas_dgemm(int layout, int trans_a, int trans_b, int m, int n, int k, double alpha,
                             const double *a, int lda, const double *b, int ldb, double beta, double *c, int ldc)
{
    cblas("cblas_dgemm", &(mmtb_cblas_args){MMT_F64, layout, trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c,
                                           ldc});
}

/* The number of the first bad argument of a cblas_?gemm_batch_strided call as its caller
 * counts them (layout 1 ... K 6, lda 9, stridea 10, ldb 12, strideb 13, ldc 16, stridec 17,
 * batch_size 18), or 0: the checks of cblas_?gemm on its first GEMM, then the batch's. */
static int check_batch(const mmtb_cblas_args *x, int stride_a, int stride_b, int stride_c, int batch, mmtb_gemm *g)
{
    const int info = caller_number(x, mmtb_cblas_gemm_of(x, g));
    if (info) return info == 11 ? 12 : info == 14 ? 16 : info;
    if (stride_a < 0) return 10;
    if (stride_b < 0) return 13;
    if (stride_c < 0) return 17;
    return batch < 0 ? 18 : 0;
}

/* GEMM i of a batch: g on A + i stride_a, B + i stride_b, C + i stride_c (elements). */
static mmtb_gemm nth_gemm(const mmtb_gemm *g, int stride_a, int stride_b, int stride_c, int i)
{
    const size_t size = g->dtype == MMT_F64 ? sizeof(double) : sizeof(float);
    mmtb_gemm gi = *g;
    gi.a = (const char *)g->a + size * (size_t)stride_a * (size_t)i;
    gi.b = (const char *)g->b + size * (size_t)stride_b * (size_t)i;
    gi.c = (char *)g->c + size * (size_t)stride_c * (size_t)i;
    return gi;
}

/* The end of a batch's rest (rest_batched's, rest_on_pointers's): st of the call of its n
 * GEMMs on ctx (entered), as rest_batched says; 1 if it ran them. */
static int rest_done(mmt_ctx *ctx, const mmtb_gemm *g, mmt_status st, int n)
{
    if (st == MMT_OK) mmtb_count_served(ctx, g->dtype, n);
    else if (st != MMT_INVALID_ARGUMENT && st != MMT_UNSUPPORTED && g->beta != 0) {
        fprintf(stderr, "libmmtuned_blas: a batch failed part way through, with C begun to be written (%s: %s); no "
                        "right result can be given\n", mmt_status_string(st), mmt_last_error(ctx));
        abort();
    }
    mmtb_context_leave();
    return st == MMT_OK;
}

/* GEMMs 1 .. batch - 1 of a batch whose first libmmtuned's context served: one call of
 * mmt_gemm_strided_batched, which on the CPU spreads GEMMs that run on one thread over the
 * cores (each computed as the call for it alone would be). 1 if it ran them. A batch it
 * refuses whole (MMT_INVALID_ARGUMENT: C matrices closer than one C, which BLAS allows;
 * MMT_UNSUPPORTED) is left untouched, and so is one with beta == 0, where running a GEMM
 * again gives the same C: 0, and the caller runs them one by one. A failure after some C
 * may have been updated by beta != 0 (a kernel that fails as it runs, the first GEMM's ran)
 * leaves no right result to give: said, then abort, as the offload does. */
static int rest_batched(const mmtb_gemm *g, int stride_a, int stride_b, int stride_c, int batch)
{
    mmt_ctx *ctx = mmtb_context_enter();
    if (!ctx) return 0;
    const mmtb_gemm g1 = nth_gemm(g, stride_a, stride_b, stride_c, 1);
    const mmt_gemm_desc d = {g->dtype, g->dtype, MMT_COMPUTE_NATIVE, g->layout, g->trans_a, g->trans_b};
    return rest_done(ctx, g,
                     mmt_gemm_strided_batched(ctx, &d, g->m, g->n, g->k, g->alpha, g1.a, g->lda, stride_a, g1.b,
                                              g->ldb, stride_b, g->beta, g1.c, g->ldc, stride_c, batch - 1),
                     batch - 1);
}

/* The same for the n GEMMs of g's shape on a[i], b[i] and c[i]: one mmt_gemm_batched call. */
static int rest_on_pointers(const mmtb_gemm *g, const void *const *a, const void *const *b, void *const *c, int n)
{
    mmt_ctx *ctx = mmtb_context_enter();
    if (!ctx) return 0;
    const mmt_gemm_desc d = {g->dtype, g->dtype, MMT_COMPUTE_NATIVE, g->layout, g->trans_a, g->trans_b};
    return rest_done(ctx, g,
                     mmt_gemm_batched(ctx, &d, g->m, g->n, g->k, g->alpha, a, g->lda, b, g->ldb, g->beta, c, g->ldc, n),
                     n);
}

/* batch GEMMs of one shape: the first as cblas_?gemm runs it; where libmmtuned's context
 * served it (not the offload, not the system BLAS), the others as one batch (rest_batched),
 * else each as cblas_?gemm runs it. */
static void batch_strided(const char *rout, const mmtb_cblas_args *x, int stride_a, int stride_b, int stride_c,
                          int batch)
{
    mmtb_gemm g;
    const int info = check_batch(x, stride_a, stride_b, stride_c, batch, &g);
    if (info) cblas_report(rout, x, info, 0);
    if (info || batch == 0) return;
    if (mmtb_run(&g, NULL) && batch > 1 && rest_batched(&g, stride_a, stride_b, stride_c, batch)) return;
    for (int i = 1; i < batch; i++) {
        const mmtb_gemm gi = nth_gemm(&g, stride_a, stride_b, stride_c, i);
        mmtb_run(&gi, NULL);
    }
}

MMTB_EXPORT void cblas_sgemm_batch_strided(int layout, int trans_a, int trans_b, int m, int n, int k, float alpha,
                                           const float *a, int lda, int stride_a, const float *b, int ldb,
                                           int stride_b, float beta, float *c, int ldc, int stride_c, int batch)
{
    batch_strided("cblas_sgemm_batch_strided",
                  &(mmtb_cblas_args){MMT_F32, layout, trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc},
                  stride_a, stride_b, stride_c, batch);
}

MMTB_EXPORT void cblas_dgemm_batch_strided(int layout, int trans_a, int trans_b, int m, int n, int k, double alpha,
                                           const double *a, int lda, int stride_a, const double *b, int ldb,
                                           int stride_b, double beta, double *c, int ldc, int stride_c, int batch)
{
    batch_strided("cblas_dgemm_batch_strided",
                  &(mmtb_cblas_args){MMT_F64, layout, trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc},
                  stride_a, stride_b, stride_c, batch);
}

/* The call of group g of a cblas_?gemm_batch call on its GEMM at index i of the arrays (-1:
 * no matrices, for the checks: an empty group has none). */
static mmtb_cblas_args group_call(mmt_dtype dtype, int layout, const int *ta, const int *tb, const int *m,
                                  const int *n, const int *k, const void *alpha, const void *const *a, const int *lda,
                                  const void *const *b, const int *ldb, const void *beta, void *const *c,
                                  const int *ldc, int g, int64_t i)
{
    const int f64 = dtype == MMT_F64;
    const double al = f64 ? ((const double *)alpha)[g] : ((const float *)alpha)[g],
                 be = f64 ? ((const double *)beta)[g] : ((const float *)beta)[g];
    return (mmtb_cblas_args){dtype, layout, ta[g], tb[g], m[g], n[g], k[g], al, i < 0 ? NULL : a[i], lda[g],
                             i < 0 ? NULL : b[i], ldb[g], be, i < 0 ? NULL : c[i], ldc[g]};
}

/* cblas_?gemm_batch (oneMKL's, and OpenBLAS's from 0.3.28): group_count groups of GEMMs, group
 * g's group_size[g] GEMMs sharing its transposes, sizes, alpha, beta and leading dimensions,
 * each on matrices of its own (the arrays of pointers hold every group's, one group after
 * another). Every group is checked first as cblas_?gemm checks a call (the caller's numbers,
 * which are cblas_?gemm's; group_count 15, a negative group size 16): a bad one is reported,
 * nothing computed. Then each group runs as a strided batch does (batch_strided): its first
 * GEMM as cblas_?gemm runs it and, where libmmtuned's context served that, the others in one
 * mmt_gemm_batched call (spread over the cores: the C matrices must not overlap). */
static void gemm_batch(mmt_dtype dtype, const char *rout, int layout, const int *ta, const int *tb, const int *m,
                       const int *n, const int *k, const void *alpha, const void *const *a, const int *lda,
                       const void *const *b, const int *ldb, const void *beta, void *const *c, const int *ldc,
                       int group_count, const int *group_size)
{
    mmtb_cblas_args bad = {.dtype = dtype, .layout = layout}; /* the call a bad argument is of */
    int info = group_count < 0 ? 15 : 0;
    for (int g = 0; !info && g < group_count; g++) {
        if (group_size[g] < 0) {
            info = 16;
            break;
        }
        mmtb_gemm unused;
        bad = group_call(dtype, layout, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, g, -1);
        info = caller_number(&bad, mmtb_cblas_gemm_of(&bad, &unused));
    }
    if (info) {
        cblas_report(rout, &bad, info, 0);
        return;
    }
    int64_t at = 0; /* the group's first GEMM in the arrays (the sizes' sum may pass an int) */
    for (int g = 0; g < group_count; at += group_size[g], g++) {
        if (!group_size[g]) continue;
        mmtb_gemm first;
        mmtb_cblas_args x = group_call(dtype, layout, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, g, at);
        mmtb_cblas_gemm_of(&x, &first);
        if (mmtb_run(&first, NULL) && group_size[g] > 1 &&
            rest_on_pointers(&first, a + at + 1, b + at + 1, c + at + 1, group_size[g] - 1))
            continue;
        for (int64_t i = at + 1; i < at + group_size[g]; i++) {
            mmtb_gemm gi;
            x = group_call(dtype, layout, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, g, i);
            mmtb_cblas_gemm_of(&x, &gi);
            mmtb_run(&gi, NULL);
        }
    }
}

MMTB_EXPORT void cblas_sgemm_batch(int layout, const int *transa_array, const int *transb_array, const int *m_array,
                                   const int *n_array, const int *k_array, const float *alpha_array,
                                   const float **a_array, const int *lda_array, const float **b_array,
                                   const int *ldb_array, const float *beta_array, float **c_array, const int *ldc_array,
                                   int group_count, const int *group_size)
{
    gemm_batch(MMT_F32, "cblas_sgemm_batch", layout, transa_array, transb_array, m_array, n_array, k_array,
               alpha_array, (const void *const *)a_array, lda_array, (const void *const *)b_array, ldb_array,
               beta_array, (void *const *)c_array, ldc_array, group_count, group_size);
}

MMTB_EXPORT void cblas_dgemm_batch(int layout, const int *transa_array, const int *transb_array, const int *m_array,
                                   const int *n_array, const int *k_array, const double *alpha_array,
                                   const double **a_array, const int *lda_array, const double **b_array,
                                   const int *ldb_array, const double *beta_array, double **c_array,
                                   const int *ldc_array, int group_count, const int *group_size)
{
    gemm_batch(MMT_F64, "cblas_dgemm_batch", layout, transa_array, transb_array, m_array, n_array, k_array,
               alpha_array, (const void *const *)a_array, lda_array, (const void *const *)b_array, ldb_array,
               beta_array, (void *const *)c_array, ldc_array, group_count, group_size);
}
