/* test_blas.c - libmmtuned_blas.so (blas/) as a program linked against it sees it, with its
 * own xerbla_ and cblas_xerbla in place of the library's (as the netlib test programs do):
 *   - every argument error reaches xerbla_ ("SGEMM " / "DGEMM ", the reference's parameter
 *     numbers) or cblas_xerbla (reference CBLAS's numbers and RowMajorStrg), writing nothing;
 *   - quick returns leave C bit for bit; beta == 0 never reads C, alpha == 0 never A or B;
 *   - every transpose ('N' 'T' 'C', either case; CblasConjTrans) in both layouts, with
 *     padded leading dimensions, against a long double reference, the padding untouched;
 *   - routines it forwards (float arguments and results in registers, arguments on the
 *     stack) give the system BLAS's answers;
 *   - cblas_?gemm_batch_strided: every GEMM of a batch right, a shared B (stride 0), a shared C
 *     (stride 0: the GEMMs in turn), nothing between the C matrices written; its argument
 *     errors numbered as its caller counts;
 *   - cblas_?gemm_batch (groups of GEMMs on arrays of pointers): every GEMM of every group
 *     right, an empty group, a group spread over the threads, the padding of C untouched; an
 *     argument error in any group reported with cblas_?gemm's numbers, nothing written;
 *   - threads share its context; a forked child gets a context of its own;
 *   - the GEMMs are libmmtuned's own: MMTUNE_BLAS_STATS's exit lines count every call as
 *     served by libmmtuned and none forwarded to the system BLAS (whose results would pass
 *     every check above);
 *   - the exit waits for a GEMM still running on another thread before it closes the
 *     context (the child exits, the call counted once). */
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "blas_decls.h"
#include "check.h"

/* forwarded ones */
void saxpy_(const int *, const float *, const float *, const int *, float *, const int *);
float sdot_(const int *, const float *, const int *, const float *, const int *);
float cblas_sdot(int, const float *, int, const float *, int);
void cblas_dsymm(int, int, int, int, int, double, const double *, int, const double *, int, double, double *, int);
extern int RowMajorStrg;

/* ---- the program's own error handlers: they record the call ------------------------------- */
static char last_srname[16], last_rout[32];
static int last_info, last_row_major, calls;

void xerbla_(const char *srname, const int *info, size_t len)
{
    snprintf(last_srname, sizeof last_srname, "%.*s", (int)len, srname);
    last_info = *info;
    calls++;
}

void cblas_xerbla(int info, const char *rout, const char *form, ...)
{
    (void)form;
    snprintf(last_rout, sizeof last_rout, "%s", rout);
    last_info = info;
    last_row_major = RowMajorStrg;
    calls++;
}

/* The number a user reads: reference cblas_xerbla swaps a row-major gemm's back. */
static int cblas_number(void)
{
    static const int swap[][2] = {{4, 5}, {5, 4}, {9, 11}, {11, 9}};
    for (int i = 0; last_row_major && i < 4; i++)
        if (last_info == swap[i][0]) return swap[i][1];
    return last_info;
}

/* ---- reference --------------------------------------------------------------------------- */
static uint64_t rng = 88172645463325252ull;
static double uniform(void)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (double)(rng >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

static double at(const void *x, int f64, int col, int ld, int r, int c)
{
    size_t i = col ? (size_t)c * ld + r : (size_t)r * ld + c;
    return f64 ? ((const double *)x)[i] : ((const float *)x)[i];
}

/* Max over C of |C - ref| / (2 k u |alpha| |A||B| + |beta C0| u + tiny): <= 1 passes. */
static double error_ratio(int f64, int col, int ta, int tb, int m, int n, int k, double alpha, const void *a, int lda,
                          const void *b, int ldb, double beta, const void *c0, const void *c, int ldc)
{
    const double u = f64 ? 0x1p-53 : 0x1p-24;
    double worst = 0;
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            long double s = 0, sa = 0;
            for (int l = 0; alpha != 0 && l < k; l++) {
                long double x = ta ? at(a, f64, col, lda, l, i) : at(a, f64, col, lda, i, l);
                long double y = tb ? at(b, f64, col, ldb, j, l) : at(b, f64, col, ldb, l, j);
                s += x * y, sa += fabsl(x * y);
            }
            long double ref = alpha * s, cij = beta != 0 ? at(c0, f64, col, ldc, i, j) : 0;
            ref += beta * cij;
            double bound = 2.0 * (k + 2) * u * (double)(fabsl(alpha) * sa + fabsl(beta * cij)) + 1e-300;
            double e = (double)fabsl(at(c, f64, col, ldc, i, j) - ref) / bound;
            if (!(e <= worst)) worst = isnan(e) ? INFINITY : e;
        }
    return worst;
}

static void *matrix(int f64, size_t n, double fill)
{
    void *x = malloc(n * (f64 ? 8 : 4) + 8);
    for (size_t i = 0; i < n; i++) {
        double v = isnan(fill) || fill != 0 ? fill : uniform();
        if (f64) ((double *)x)[i] = v;
        else ((float *)x)[i] = (float)v;
    }
    return x;
}

/* One GEMM through one entry point: api 0 Fortran, 1 CBLAS column-major, 2 CBLAS row-major. */
static void call(int f64, int api, char ta, char tb, int m, int n, int k, double alpha, const void *a, int lda,
                 const void *b, int ldb, double beta, void *c, int ldc)
{
    const int cta = ta == 'N' || ta == 'n' ? NO : ta == 'C' || ta == 'c' ? CONJ : ta == 'T' || ta == 't' ? TR : 99;
    const int ctb = tb == 'N' || tb == 'n' ? NO : tb == 'C' || tb == 'c' ? CONJ : tb == 'T' || tb == 't' ? TR : 99;
    const float fa = (float)alpha, fb = (float)beta;
    if (api == 0 && f64) dgemm_(&ta, &tb, &m, &n, &k, &alpha, a, &lda, b, &ldb, &beta, c, &ldc, 1, 1);
    else if (api == 0) sgemm_(&ta, &tb, &m, &n, &k, &fa, a, &lda, b, &ldb, &fb, c, &ldc, 1, 1);
    else if (f64) cblas_dgemm(api == 1 ? COL : ROW, cta, ctb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    else cblas_sgemm(api == 1 ? COL : ROW, cta, ctb, m, n, k, fa, a, lda, b, ldb, fb, c, ldc);
}

/* The stored extent of an r x c matrix with leading dimension ld. */
static size_t extent(int col, int r, int c, int ld) { return (size_t)(col ? c : r) * ld + 8; }

static void test_results(void)
{
    const char trans[] = "NTCntc";
    const int sizes[][3] = {{1, 1, 1}, {7, 5, 3}, {33, 17, 65}, {64, 48, 40}, {5, 70, 1}};
    for (int f64 = 0; f64 < 2; f64++)
        for (int api = 0; api < 3; api++)
            for (int s = 0; s < 5; s++)
                for (int x = 0; x < 6; x++)
                    for (int y = 0; y < 6; y++) {
                        const int m = sizes[s][0], n = sizes[s][1], k = sizes[s][2], col = api != 2;
                        const char ta = trans[x], tb = trans[(x + y) % 6];
                        const int tra = ta != 'N' && ta != 'n', trb = tb != 'N' && tb != 'n';
                        const int ar = tra ? k : m, ac = tra ? m : k, br = trb ? n : k, bc = trb ? k : n;
                        const int lda = (col ? ar : ac) + 3, ldb = (col ? br : bc) + 1, ldc = (col ? m : n) + 2;
                        void *a = matrix(f64, extent(col, ar, ac, lda), 0), *b = matrix(f64, extent(col, br, bc, ldb), 0);
                        size_t cn = extent(col, m, n, ldc);
                        void *c0 = matrix(f64, cn, 0), *c = malloc(cn * (f64 ? 8 : 4) + 8);
                        memcpy(c, c0, cn * (f64 ? 8 : 4));
                        const double alpha = 0.75, beta = s % 2 ? -1.5 : 0.5;
                        call(f64, api, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
                        double e = error_ratio(f64, col, tra, trb, m, n, k, alpha, a, lda, b, ldb, beta, c0, c, ldc);
                        if (!(e <= 1))
                            fprintf(stderr, "%s api %d %c%c %dx%dx%d: error %.3g of the bound\n", f64 ? "d" : "s", api,
                                    ta, tb, m, n, k, e);
                        CHECK(e <= 1);
                        /* the padding between columns (rows) of C is never written */
                        int padded = 1;
                        for (int o = 0; o < (col ? n : m); o++)
                            for (int p = col ? m : n; p < ldc; p++)
                                padded &= at(c, f64, 1, ldc, p, o) == at(c0, f64, 1, ldc, p, o);
                        CHECK(padded);
                        free(a), free(b), free(c0), free(c);
                    }
}

/* Bad arguments: the handler's number, and C as it was. */
static void expect_fortran(int f64, char ta, char tb, int m, int n, int k, int lda, int ldb, int ldc, int want)
{
    float a[64], b[64], c[64], c0[64];
    for (int i = 0; i < 64; i++) a[i] = b[i] = 1, c[i] = c0[i] = (float)i;
    calls = 0, last_info = 0;
    call(f64, 0, ta, tb, m, n, k, 1.0, a, lda, b, ldb, 0.0, c, ldc);
    CHECK_EQ_INT(calls, 1);
    CHECK_EQ_INT(last_info, want);
    CHECK_EQ_STR(last_srname, f64 ? "DGEMM " : "SGEMM ");
    CHECK(memcmp(c, c0, sizeof c) == 0);
}

static void expect_cblas(int f64, int layout, int ta, int tb, int m, int n, int k, int lda, int ldb, int ldc, int want)
{
    double a[64], b[64], c[64], c0[64];
    for (int i = 0; i < 64; i++) a[i] = b[i] = 1, c[i] = c0[i] = i;
    calls = 0, last_info = 0, last_rout[0] = '\0';
    if (f64) cblas_dgemm(layout, ta, tb, m, n, k, 1, a, lda, b, ldb, 0, c, ldc);
    else cblas_sgemm(layout, ta, tb, m, n, k, 1, (float *)a, lda, (float *)b, ldb, 0, (float *)c, ldc);
    CHECK_EQ_INT(calls, 1);
    if (cblas_number() != want) fprintf(stderr, "layout %d: wanted parameter %d\n", layout, want);
    CHECK_EQ_INT(cblas_number(), want);
    CHECK_EQ_INT(last_row_major, layout == ROW && want > 1);
    CHECK_EQ_STR(last_rout, f64 ? "cblas_dgemm" : "cblas_sgemm");
    CHECK_EQ_INT(RowMajorStrg, 0);
    CHECK(memcmp(c, c0, sizeof c) == 0);
}

static void test_argument_errors(void)
{
    for (int f64 = 0; f64 < 2; f64++) {
        expect_fortran(f64, 'X', 'N', 2, 2, 2, 2, 2, 2, 1);
        expect_fortran(f64, 'n', 'q', 2, 2, 2, 2, 2, 2, 2);
        expect_fortran(f64, 'N', 'N', -1, 2, 2, 2, 2, 2, 3);
        expect_fortran(f64, 'N', 'N', 2, -1, 2, 2, 2, 2, 4);
        expect_fortran(f64, 'N', 'N', 2, 2, -1, 2, 2, 2, 5);
        expect_fortran(f64, 'N', 'N', 3, 2, 2, 2, 3, 3, 8);  /* lda < m */
        expect_fortran(f64, 'T', 'N', 2, 2, 3, 2, 3, 2, 8);  /* lda < k */
        expect_fortran(f64, 'N', 'N', 2, 2, 3, 2, 2, 2, 10); /* ldb < k */
        expect_fortran(f64, 'N', 'c', 2, 3, 2, 2, 2, 2, 10); /* ldb < n */
        expect_fortran(f64, 'N', 'N', 3, 2, 2, 3, 2, 2, 13);
        expect_fortran(f64, 'N', 'N', 0, 2, 2, 0, 2, 1, 8); /* max(1, 0) */
        expect_fortran(f64, 'N', 'N', -1, -1, 2, 0, 0, 0, 3); /* the first in the reference's order */

        expect_cblas(f64, 100, NO, NO, 2, 2, 2, 2, 2, 2, 1);
        for (int layout = ROW; layout <= COL; layout++) {
            const int row = layout == ROW;
            expect_cblas(f64, layout, 7, NO, 2, 2, 2, 2, 2, 2, 2);
            expect_cblas(f64, layout, NO, 7, 2, 2, 2, 2, 2, 2, 3);
            expect_cblas(f64, layout, NO, NO, -1, 2, 2, 2, 2, 2, 4);
            expect_cblas(f64, layout, NO, NO, 2, -1, 2, 2, 2, 2, 5);
            expect_cblas(f64, layout, NO, NO, 2, 2, -1, 2, 2, 2, 6);
            /* lda: a row-major A is m x k with rows of k, a column-major one has columns of m */
            expect_cblas(f64, layout, NO, NO, 3, 4, 2, row ? 1 : 2, 4, 4, 9);
            expect_cblas(f64, layout, NO, NO, 3, 4, 2, row ? 2 : 3, row ? 3 : 1, 4, 11);
            expect_cblas(f64, layout, NO, NO, 3, 4, 2, row ? 2 : 3, row ? 4 : 2, row ? 3 : 2, 14);
            /* both M and N bad: the reference reports the one its column-major call checks first */
            expect_cblas(f64, layout, NO, NO, -1, -1, 2, 2, 2, 2, row ? 5 : 4);
        }
    }
}

static void test_quick_returns_and_rules(void)
{
    const float nan = NAN;
    /* quick returns: C left bit for bit (-0.0 would become +0.0 if it were scaled by 1) */
    float c[6], keep[6], a[6] = {nan, nan, nan, nan, nan, nan};
    for (int i = 0; i < 6; i++) c[i] = keep[i] = i % 2 ? -0.0f : nan;
    const int two = 2, zero = 0, three = 3;
    const float one = 1, fzero = 0, half = 0.5f;
    sgemm_("N", "N", &zero, &two, &two, &one, NULL, &two, NULL, &two, &half, c, &two, 1, 1);      /* m == 0 */
    sgemm_("N", "N", &two, &zero, &two, &one, NULL, &two, NULL, &two, &half, c, &two, 1, 1);      /* n == 0 */
    sgemm_("N", "N", &two, &three, &two, &fzero, a, &two, a, &two, &one, c, &two, 1, 1);          /* alpha 0, beta 1 */
    sgemm_("N", "N", &two, &three, &zero, &one, NULL, &two, NULL, &two, &one, c, &two, 1, 1);     /* k == 0, beta 1 */
    cblas_sgemm(ROW, NO, NO, 2, 3, 2, 0, a, 2, a, 3, 1, c, 3);
    CHECK(memcmp(c, keep, sizeof c) == 0);

    /* beta == 0: NaN in C does not propagate */
    float x[4] = {1, 2, 3, 4}, y[4] = {1, 0, 0, 1}, z[4] = {nan, nan, nan, nan};
    sgemm_("N", "N", &two, &two, &two, &one, x, &two, y, &two, &fzero, z, &two, 1, 1);
    CHECK(z[0] == 1 && z[1] == 2 && z[2] == 3 && z[3] == 4);
    /* alpha == 0: A and B (NaN here) are not read; C = beta C */
    float w[4] = {2, 4, 6, 8};
    sgemm_("N", "N", &two, &two, &two, &fzero, a, &two, a, &two, &half, w, &two, 1, 1);
    CHECK(w[0] == 1 && w[1] == 2 && w[2] == 3 && w[3] == 4);
    /* alpha == 0 and beta == 0: zeros, nothing read */
    sgemm_("N", "N", &two, &two, &two, &fzero, a, &two, a, &two, &fzero, z, &two, 1, 1);
    CHECK(z[0] == 0 && z[1] == 0 && z[2] == 0 && z[3] == 0);
    /* k == 0 with beta != 1: C = beta C; in double through CBLAS, row-major */
    double d[4] = {2, 4, 6, 8};
    cblas_dgemm(ROW, TR, NO, 2, 2, 0, 1, NULL, 2, NULL, 2, 0.5, d, 2);
    CHECK(d[0] == 1 && d[1] == 2 && d[2] == 3 && d[3] == 4);
}

static void test_forwarded(void)
{
    /* float arguments and a float result in registers */
    float x[5] = {1, 2, 3, 4, 5}, y[5] = {1, 1, 1, 1, 1};
    const int n = 5, one = 1;
    const float two = 2;
    saxpy_(&n, &two, x, &one, y, &one);
    CHECK(y[0] == 3 && y[4] == 11);
    CHECK(sdot_(&n, x, &one, x, &one) == 55);
    CHECK(cblas_sdot(5, x, 1, x, 1) == 55);
    /* 13 arguments, several on the stack: C = A B with A symmetric (2 x 2), left side */
    double a[4] = {1, 2, 2, 3}, b[4] = {1, 0, 0, 1}, c[4] = {0, 0, 0, 0};
    cblas_dsymm(ROW, 141 /* left */, 121 /* upper */, 2, 2, 1, a, 2, b, 2, 0, c, 2);
    CHECK(c[0] == 1 && c[1] == 2 && c[2] == 2 && c[3] == 3);
}

/* Threads on the one context: each its own shape, results checked. */
static void *thread_main(void *arg)
{
    const int t = (int)(intptr_t)arg, m = 20 + t, n = 16 + 2 * t, k = 9 + t;
    float *a = malloc(sizeof(float) * m * k), *b = malloc(sizeof(float) * k * n), *c = malloc(sizeof(float) * m * n);
    int bad = 0;
    for (int rep = 0; rep < 20; rep++) {
        for (int i = 0; i < m * k; i++) a[i] = (float)((i * 7 + rep) % 5) - 2;
        for (int i = 0; i < k * n; i++) b[i] = (float)((i * 3 + t) % 7) - 3;
        cblas_sgemm(ROW, NO, NO, m, n, k, 1, a, k, b, n, 0, c, n);
        for (int i = 0; i < m; i++)
            for (int j = 0; j < n; j++) {
                float s = 0;
                for (int l = 0; l < k; l++) s += a[i * k + l] * b[l * n + j];
                bad += c[i * n + j] != s; /* small integers: exact */
            }
    }
    free(a), free(b), free(c);
    return (void *)(intptr_t)bad;
}

/* One strided batch in layout `layout` (ROW or COL), the transposes ta, tb: each GEMM
 * against the reference, B shared where shared_b, the gaps between the C matrices kept. */
static int batch_wrong(int f64, int layout, int ta, int tb, int m, int n, int k, int batch, int shared_b)
{
    const int col = layout == COL, tra = ta != NO, trb = tb != NO;
    const int ar = tra ? k : m, ac = tra ? m : k, br = trb ? n : k, bc = trb ? k : n;
    const int lda = (col ? ar : ac) + 1, ldb = (col ? br : bc) + 2, ldc = (col ? m : n) + 1;
    const int sa = (col ? ac : ar) * lda + 3, sb = shared_b ? 0 : (col ? bc : br) * ldb + 1,
              sc = (col ? n : m) * ldc + 5;
    const size_t na = (size_t)sa * batch, nb = (size_t)(shared_b ? (col ? bc : br) * ldb : sb * batch),
                 nc = (size_t)sc * batch, es = f64 ? 8 : 4;
    void *a = matrix(f64, na, 0), *b = matrix(f64, nb, 0), *c0 = matrix(f64, nc, 0), *c = malloc(nc * es + 8);
    memcpy(c, c0, nc * es);
    const double alpha = -0.5, beta = 1.25;
    if (f64) cblas_dgemm_batch_strided(layout, ta, tb, m, n, k, alpha, a, lda, sa, b, ldb, sb, beta, c, ldc, sc, batch);
    else cblas_sgemm_batch_strided(layout, ta, tb, m, n, k, (float)alpha, a, lda, sa, b, ldb, sb, (float)beta, c, ldc,
                                   sc, batch);
    int bad = 0;
    for (int i = 0; i < batch; i++) {
        const size_t oa = es * (size_t)sa * i, ob = es * (size_t)sb * i, oc = es * (size_t)sc * i;
        const double e = error_ratio(f64, col, tra, trb, m, n, k, alpha, (char *)a + oa, lda, (char *)b + ob, ldb,
                                     beta, (char *)c0 + oc, (char *)c + oc, ldc);
        bad += !(e <= 1);
        for (int o = 0; o < (col ? n : m); o++) /* the padding after each line of C_i */
            bad += memcmp((char *)c + oc + es * ((size_t)o * ldc + (col ? m : n)),
                          (char *)c0 + oc + es * ((size_t)o * ldc + (col ? m : n)), es * (size_t)(ldc - (col ? m : n)));
        const size_t end = oc + es * (size_t)((col ? n : m) * ldc); /* the gap after C_i */
        bad += memcmp((char *)c + end, (char *)c0 + end, es * (size_t)(sc - (col ? n : m) * ldc)) != 0;
    }
    if (bad)
        fprintf(stderr, "%s batch layout %d ta %d tb %d %dx%dx%d x%d: %d wrong\n", f64 ? "d" : "s", layout, ta, tb,
                m, n, k, batch, bad);
    free(a), free(b), free(c0), free(c);
    return bad;
}

/* After a batch call whose argument numbered want (0: none) is bad: one report of it from
 * rout, the caller's own number, and C (bytes of it) as it was (c0). */
static void batch_reported(int want, const char *rout, const void *c, const void *c0, size_t bytes)
{
    CHECK_EQ_INT(calls, want ? 1 : 0);
    CHECK_EQ_INT(last_info, want);
    CHECK_EQ_INT(last_row_major, 0);
    if (want) CHECK_EQ_STR(last_rout, rout);
    CHECK(memcmp(c, c0, bytes) == 0);
}

static void expect_batch_error(int f64, int layout, int lda, int sa, int ldb, int ldc, int sc, int batch, int want)
{
    double a[64], b[64], c[64], c0[64];
    for (int i = 0; i < 64; i++) a[i] = b[i] = 1, c[i] = c0[i] = i;
    calls = 0, last_info = 0, last_rout[0] = '\0';
    if (f64) cblas_dgemm_batch_strided(layout, NO, NO, 2, 3, 2, 1, a, lda, sa, b, ldb, 0, 0, c, ldc, sc, batch);
    else cblas_sgemm_batch_strided(layout, NO, NO, 2, 3, 2, 1, (float *)a, lda, sa, (float *)b, ldb, 0, 0, (float *)c,
                                   ldc, sc, batch);
    batch_reported(want, f64 ? "cblas_dgemm_batch_strided" : "cblas_sgemm_batch_strided", c, c0, sizeof c);
}

static void test_batch_strided(void)
{
    int bad = 0;
    for (int f64 = 0; f64 < 2; f64++)
        for (int t = 0; t < 4; t++) {
            bad += batch_wrong(f64, t & 1 ? COL : ROW, t & 1 ? TR : NO, t & 2 ? TR : NO, 7, 5, 3, 4, 0);
            bad += batch_wrong(f64, t & 1 ? ROW : COL, NO, t & 2 ? NO : TR, 33, 17, 65, 3, 1);
            bad += batch_wrong(f64, ROW, NO, NO, 3, 4, 2, 100 + t, 0);
        }
    CHECK_EQ_INT(bad, 0);
    /* one C for the whole batch (stride_c 0, which libmmtuned's batched call refuses):
     * the GEMMs in turn, each adding its product, as one after another would */
    for (int f64 = 0; f64 < 2; f64++) {
        double a[3 * 4], b[4] = {1, 2, 3, 4}, c[4] = {1, 1, 1, 1}, want[4] = {1, 1, 1, 1};
        float fa[3 * 4], fb[4] = {1, 2, 3, 4}, fc[4] = {1, 1, 1, 1};
        for (int i = 0; i < 12; i++) a[i] = fa[i] = (float)(i % 5) - 1;
        for (int g = 0; g < 3; g++)
            for (int i = 0; i < 2; i++)
                for (int j = 0; j < 2; j++)
                    for (int l = 0; l < 2; l++) want[i * 2 + j] += a[g * 4 + i * 2 + l] * b[l * 2 + j];
        if (f64) cblas_dgemm_batch_strided(ROW, NO, NO, 2, 2, 2, 1, a, 2, 4, b, 2, 0, 1, c, 2, 0, 3);
        else cblas_sgemm_batch_strided(ROW, NO, NO, 2, 2, 2, 1, fa, 2, 4, fb, 2, 0, 1, fc, 2, 0, 3);
        for (int i = 0; i < 4; i++) CHECK((f64 ? c[i] : fc[i]) == want[i]); /* small integers: exact */
    }
    for (int f64 = 0; f64 < 2; f64++) { /* 2x3x2: row-major lda >= 2, ldb >= 3, ldc >= 3 */
        expect_batch_error(f64, 7, 2, 4, 3, 3, 6, 2, 1);
        expect_batch_error(f64, ROW, 1, 4, 3, 3, 6, 2, 9);
        expect_batch_error(f64, ROW, 2, 4, 2, 3, 6, 2, 12);
        expect_batch_error(f64, ROW, 2, 4, 3, 2, 6, 2, 16);
        expect_batch_error(f64, COL, 1, 4, 3, 3, 6, 2, 9); /* column-major: lda >= 2 */
        expect_batch_error(f64, COL, 2, 4, 1, 3, 6, 2, 12);
        expect_batch_error(f64, ROW, 2, -1, 3, 3, 6, 2, 10);
        expect_batch_error(f64, ROW, 2, 4, 3, 3, -6, 2, 17);
        expect_batch_error(f64, ROW, 2, 4, 3, 3, 6, -1, 18);
        expect_batch_error(f64, ROW, 2, 4, 3, 3, 6, 0, 0); /* a batch of none: nothing, no error */
    }
}

/* A cblas_?gemm_batch call of four groups (NN, TT, an empty group, 200 small NT GEMMs spread
 * over the threads) with padded lines, alpha and beta their own a group, every GEMM on
 * matrices of its own, in each layout: each GEMM right, the padding of C untouched. */
static int gemm_batch_wrong(int f64)
{
    enum { GROUPS = 4, MOST = 200 + 3 + 2 };
    const int ta[GROUPS] = {NO, TR, NO, NO}, tb[GROUPS] = {NO, TR, NO, TR};
    const int m[GROUPS] = {7, 9, 4, 8}, n[GROUPS] = {5, 6, 4, 8}, k[GROUPS] = {3, 11, 4, 8};
    const int size[GROUPS] = {3, 2, 0, 200};
    const double alpha[GROUPS] = {-0.5, 1, 2, 1}, beta[GROUPS] = {1.25, 0, 1, 0.5};
    int bad = 0;
    for (int col = 0; col < 2; col++) {
        int lda[GROUPS], ldb[GROUPS], ldc[GROUPS];
        float fal[GROUPS], fbe[GROUPS];
        const void *a[MOST], *b[MOST];
        void *c[MOST], *c0[MOST];
        size_t na[GROUPS], nb[GROUPS], nc[GROUPS];
        for (int g = 0, at = 0; g < GROUPS; at += size[g], g++) {
            const int tra = ta[g] != NO, trb = tb[g] != NO;
            const int ar = tra ? k[g] : m[g], ac = tra ? m[g] : k[g], br = trb ? n[g] : k[g], bc = trb ? k[g] : n[g];
            lda[g] = (col ? ar : ac) + 1, ldb[g] = (col ? br : bc) + 2, ldc[g] = (col ? m[g] : n[g]) + 1;
            na[g] = extent(col, ar, ac, lda[g]), nb[g] = extent(col, br, bc, ldb[g]);
            nc[g] = extent(col, m[g], n[g], ldc[g]);
            fal[g] = (float)alpha[g], fbe[g] = (float)beta[g];
            for (int i = at; i < at + size[g]; i++) {
                a[i] = matrix(f64, na[g], 0), b[i] = matrix(f64, nb[g], 0), c0[i] = matrix(f64, nc[g], 0);
                c[i] = malloc(nc[g] * (f64 ? 8 : 4) + 8);
                memcpy(c[i], c0[i], nc[g] * (f64 ? 8 : 4));
            }
        }
        if (f64)
            cblas_dgemm_batch(col ? COL : ROW, ta, tb, m, n, k, alpha, (const double **)a, lda, (const double **)b,
                              ldb, beta, (double **)c, ldc, GROUPS, size);
        else
            cblas_sgemm_batch(col ? COL : ROW, ta, tb, m, n, k, fal, (const float **)a, lda, (const float **)b, ldb,
                              fbe, (float **)c, ldc, GROUPS, size);
        for (int g = 0, at = 0; g < GROUPS; at += size[g], g++)
            for (int i = at; i < at + size[g]; i++) {
                const double e = error_ratio(f64, col, ta[g] != NO, tb[g] != NO, m[g], n[g], k[g], alpha[g], a[i],
                                             lda[g], b[i], ldb[g], beta[g], c0[i], c[i], ldc[g]);
                bad += !(e <= 1);
                for (int o = 0; o < (col ? n[g] : m[g]); o++) { /* the padding after each line */
                    const size_t at_pad = (size_t)o * ldc[g] + (col ? m[g] : n[g]), es = f64 ? 8 : 4;
                    bad += memcmp((char *)c[i] + es * at_pad, (char *)c0[i] + es * at_pad, es) != 0;
                }
                free((void *)a[i]), free((void *)b[i]), free(c[i]), free(c0[i]);
            }
    }
    if (bad) fprintf(stderr, "%s gemm_batch: %d wrong\n", f64 ? "d" : "s", bad);
    return bad;
}

/* A 2x3x2 row-major group, then one whose lda (want 9), ldb (11) or ldc (14) is too small,
 * or a negative group size (16) or count (15): reported so, C untouched. */
static void expect_gemm_batch_error(int f64, int lda, int ldb, int ldc, int size, int count, int want)
{
    double a[64], b[64], c[64], c0[64];
    for (int i = 0; i < 64; i++) a[i] = b[i] = 1, c[i] = c0[i] = i;
    const int ta[2] = {NO, NO}, tb[2] = {NO, NO}, m[2] = {2, 2}, n[2] = {3, 3}, k[2] = {2, 2};
    const int lda2[2] = {2, lda}, ldb2[2] = {3, ldb}, ldc2[2] = {3, ldc}, sizes[2] = {1, size};
    const double alpha[2] = {1, 1}, beta[2] = {0, 0};
    const float fal[2] = {1, 1}, fbe[2] = {0, 0};
    const void *as[2] = {a, a + 16}, *bs[2] = {b, b + 16};
    void *cs[2] = {c, c + 16};
    calls = 0, last_info = 0, last_rout[0] = '\0';
    if (f64)
        cblas_dgemm_batch(ROW, ta, tb, m, n, k, alpha, (const double **)as, lda2, (const double **)bs, ldb2, beta,
                          (double **)cs, ldc2, count, sizes);
    else
        cblas_sgemm_batch(ROW, ta, tb, m, n, k, fal, (const float **)as, lda2, (const float **)bs, ldb2, fbe,
                          (float **)cs, ldc2, count, sizes);
    batch_reported(want, f64 ? "cblas_dgemm_batch" : "cblas_sgemm_batch", c, c0, sizeof c);
}

static void test_gemm_batch(void)
{
    for (int f64 = 0; f64 < 2; f64++) {
        CHECK_EQ_INT(gemm_batch_wrong(f64), 0);
        expect_gemm_batch_error(f64, 1, 3, 3, 1, 2, 9);
        expect_gemm_batch_error(f64, 2, 2, 3, 1, 2, 11);
        expect_gemm_batch_error(f64, 2, 3, 2, 1, 2, 14);
        expect_gemm_batch_error(f64, 2, 3, 3, -1, 2, 16);
        expect_gemm_batch_error(f64, 2, 3, 3, 1, -1, 15);
    }
}

static void test_threads_and_fork(void)
{
    pthread_t th[4];
    for (int t = 0; t < 4; t++) pthread_create(&th[t], NULL, thread_main, (void *)(intptr_t)t);
    for (int t = 0; t < 4; t++) {
        void *bad;
        pthread_join(th[t], &bad);
        CHECK_EQ_INT((intptr_t)bad, 0);
    }
    pid_t pid = fork();
    if (pid == 0) _exit(thread_main((void *)(intptr_t)5) != NULL);
    int status = -1;
    waitpid(pid, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* A child's stderr up to its end (out, NUL-terminated, its first size - 1 bytes), and how
 * it ended; a child silent for a minute is killed (a hang at its exit). */
static int child_output(pid_t pid, int fd, char *out, size_t size)
{
    char rest[4096];
    size_t n = 0;
    for (;;) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        if (poll(&p, 1, 60000) <= 0) {
            kill(pid, SIGKILL);
            break;
        }
        /* all of it, the rest dropped: a child cut off would die of SIGPIPE */
        const ssize_t r = n < size - 1 ? read(fd, out + n, size - 1 - n) : read(fd, rest, sizeof rest);
        if (r <= 0) break;
        if (n < size - 1) n += (size_t)r;
    }
    out[n] = '\0';
    close(fd);
    int status = -1;
    waitpid(pid, &status, 0);
    return status;
}

/* The exit lines' count of GEMMs of one type (what: "sgemm: ") served and forwarded. */
static void exit_counts(const char *out, const char *what, long long *served, long long *forwarded)
{
    const char *line = strstr(out, what);
    *served = *forwarded = -1;
    if (line) sscanf(line + strlen(what), "%lld served by libmmtuned (%*[^)]), %lld forwarded", served, forwarded);
}

/* A child whose stderr is a pipe to the parent, MMTUNE_BLAS_STATS=1: 0 in the child; in the
 * parent its pid, *fd the pipe's end to read. */
static pid_t stats_child(int *fd)
{
    int p[2];
    CHECK(pipe(p) == 0);
    fflush(stdout);
    const pid_t pid = fork();
    if (pid == 0) {
        dup2(p[1], 2);
        close(p[0]);
        close(p[1]);
        setenv("MMTUNE_BLAS_STATS", "1", 1);
        return 0;
    }
    close(p[1]);
    *fd = p[0];
    return pid;
}

static volatile int big_started;

static void *one_big_gemm(void *arg)
{
    (void)arg;
    enum { N = 1600 };
    float *a = calloc((size_t)N * N, sizeof *a), *c = calloc((size_t)N * N, sizeof *c);
    big_started = 1;
    if (a && c) cblas_sgemm(ROW, NO, NO, N, N, N, 1, a, N, a, N, 0, c, N);
    pause(); /* while the process exits */
    return NULL;
}

/* A GEMM still running on another thread when the program exits: the exit keeps new calls
 * off the context and waits for this one before it closes it and prints the counts, so the
 * call is counted once (served, or forwarded where it began after the exit did), and the
 * child ends by exit(0), not by a fault. */
static void test_exit_waits_for_a_call(void)
{
    int fd;
    const pid_t pid = stats_child(&fd);
    if (pid == 0) {
        pthread_t th;
        if (pthread_create(&th, NULL, one_big_gemm, NULL) != 0) _exit(3);
        while (!big_started) usleep(1000);
        usleep(20000); /* the GEMM is inside */
        exit(0);
    }
    char out[4096];
    const int status = child_output(pid, fd, out, sizeof out);
    CHECK(WIFEXITED(status));
    long long served, forwarded;
    exit_counts(out, "sgemm: ", &served, &forwarded);
    if (served + forwarded != 1) fprintf(stderr, "the BLAS's exit lines:\n%s", out);
    CHECK_EQ_INT(served + forwarded, 1);
}

/* A child with MMTUNE_BLAS_STATS=1 and its stderr on a pipe runs three SGEMMs (Fortran,
 * CBLAS in both layouts), two DGEMMs and a strided batch of three SGEMMs, then exits: the
 * library's exit lines say who served them. */
static void test_served_by_libmmtuned(void)
{
    int fd;
    const pid_t pid = stats_child(&fd);
    if (pid == 0) {
        float a[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, b[12] = {1, 0, 0, 1, 1, 0}, c[16];
        double da[12] = {1, 2, 3, 4}, db[12] = {1, 0, 0, 1}, dc[16];
        for (int api = 0; api < 3; api++) call(0, api, 'N', 'N', 3, 2, 2, 1, a, 3, b, 2, 0, c, 3);
        call(1, 0, 'N', 'T', 2, 2, 2, 1, da, 2, db, 2, 0, dc, 2);
        call(1, 2, 'T', 'N', 2, 2, 2, 1, da, 2, db, 2, 0, dc, 2);
        /* and a strided batch of three: its first GEMM alone, the other two in one call */
        cblas_sgemm_batch_strided(ROW, NO, NO, 2, 2, 2, 1, a, 2, 4, b, 2, 0, 0, c, 2, 4, 3);
        /* and a group of three on pointers: the same */
        const float *as[3] = {a, a + 4, a + 8}, *bs[3] = {b, b, b};
        float *cs[3] = {c, c + 4, c + 8};
        const int two[1] = {2}, row_nn[2] = {NO, NO}, three[1] = {3};
        const float one[1] = {1}, zero[1] = {0};
        cblas_sgemm_batch(ROW, row_nn, row_nn, two, two, two, one, as, two, bs, two, zero, cs, two, 1, three);
        exit(0); /* not _exit: the counts are printed by the library's destructor */
    }
    char out[4096];
    const int status = child_output(pid, fd, out, sizeof out);
    CHECK(WIFEXITED(status)); /* its code may be LeakSanitizer's: the parent's context, which a child drops */
    const char *what[2] = {"sgemm: ", "dgemm: "};
    const long long want[2] = {9, 2};
    for (int f64 = 0; f64 < 2; f64++) {
        long long served, forwarded;
        exit_counts(out, what[f64], &served, &forwarded);
        if (served != want[f64] || forwarded != 0) fprintf(stderr, "the BLAS's exit lines:\n%s", out);
        CHECK_EQ_INT(served, want[f64]);
        CHECK_EQ_INT(forwarded, 0);
    }
}

int main(void)
{
    /* no database: nothing of this test reaches a user's */
    setenv("MMTUNE_DB", "/nonexistent/mmtune-test-blas.db", 1);
    test_argument_errors();
    test_quick_returns_and_rules();
    test_results();
    test_batch_strided();
    test_gemm_batch();
    test_forwarded();
    test_threads_and_fork();
    test_served_by_libmmtuned();
    test_exit_waits_for_a_call();
    return check_result();
}
