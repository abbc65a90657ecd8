/* test_gpu_grouped.c - mmt_gemm_grouped and mmt_gemm_batched (GEMMs on arrays of pointers)
 * on GPU 0 with device operands and nothing tuned, the vendor serving and (MMTUNE_VENDOR=off)
 * the templates: f32, bf16 and f16 (C of their type), both layouts, transposes, and FP8
 * (e4m3 with bf16 and f32 C, e5m2 with f16 C) row-major NN and NT, groups of 0 to 600 rows
 * with a B each or one shared, beta = 0 on NaN C and beta != 0; each group right against a
 * long double reference, the padding of C untouched. With the vendor, groups of 16 rows on
 * average (GEMMs of 40) whose matrices and rows all start on 16 bytes are one call of
 * cuBLAS's grouped form (every such case must say so, no other may; FP8 has none); else a
 * grouped GEMM of C = A B^T (16-bit, or FP8), row-major, 16-byte aligned, is one launch of
 * the wgmma template for all groups (groups ending inside a tile among them; with the
 * vendor, where the groups average 256 rows or fewer, once the context's builder has the
 * instance: every such call after mmt_wait_kernels); the rest, and GEMMs of 200 rows on
 * pointers, run one GEMM after another. Exits 77 (skipped) without a GPU. */
#include "gpu_check.h"
#include "mmtuned.h"

static void *on_device(const void *x, size_t bytes)
{
    void *d = NULL;
    mmt_err err;
    CHECK_OK(be->alloc(&dev, bytes ? bytes : 1, &d, &err), &err);
    if (d) CHECK_OK(be->copy(d, x, bytes, MMT_H2D, &err), &err);
    return d;
}

static int64_t row_at(int col, int trans, int of_c, int64_t ld, int64_t r)
{
    return (of_c || !trans) == !col ? r * ld : r;
}

static int vendor_on; /* the vendor serves: groups of 64 rows or fewer on average are one call */
static int drained;   /* the context's builder has made every one launch a call asked for */
static int one_calls, one_launches; /* cases served by cuBLAS's grouped form, by the templates' one launch */

/* A's and B's type ty, C's ct; tight: matrices without padding (lines as long as their rows
 * or columns) */
static int case_right(mmt_ctx *ctx, mmt_dtype ty, mmt_dtype ct, int col, int ta, int tb, int shared_b, int tight,
                      const int64_t *sizes, int64_t groups, int64_t n, int64_t k, double beta)
{
    const size_t es = (size_t)mmt_dtype_size(ty), cs = (size_t)mmt_dtype_size(ct);
    int64_t sum = 0;
    for (int64_t g = 0; g < groups; g++) sum += sizes[g];
    const int64_t ar = ta ? k : sum, ac = ta ? sum : k, br = tb ? n : k, bc = tb ? k : n, pad = tight ? 0 : 3;
    const int64_t extra = tight ? 0 : 8;
    const int64_t lda = (col ? ar : ac) + extra, ldb = (col ? br : bc) + extra, ldc = (col ? sum : n) + pad;
    const int64_t b_elems = (col ? bc : br) * ldb, stride_b = shared_b ? 0 : b_elems + extra;
    const int64_t b_total = (groups > 1 ? (groups - 1) * stride_b : 0) + b_elems, lines = col ? n : sum;
    void *a = gc_matrix_t(ty, col, ar, ac, lda, 0), *b = gc_matrix_t(ty, 0, 1, b_total, b_total, 0);
    void *c = gc_matrix_t(ct, col, sum, n, ldc, beta == 0);
    const size_t a_bytes = es * (size_t)((col ? ac : ar) * lda), c_bytes = cs * (size_t)(lines * ldc);
    void *da = on_device(a, a_bytes), *db = on_device(b, es * (size_t)b_total), *dc = on_device(c, c_bytes);
    const mmt_gemm_desc d = {ty, ct, MMT_COMPUTE_NATIVE, col ? MMT_COL_MAJOR : MMT_ROW_MAJOR,
                             ta ? MMT_TRANS : MMT_NO_TRANS, tb ? MMT_TRANS : MMT_NO_TRANS};
    mmt_err err;
    char *out = malloc(c_bytes ? c_bytes : 1);
    const mmt_status st =
        mmt_gemm_grouped(ctx, &d, groups, sizes, n, k, 1.0, da, lda, db, ldb, stride_b, beta, dc, ldc);
    int right = st == MMT_OK && be->sync(NULL, &err) == MMT_OK && be->copy(out, dc, c_bytes, MMT_D2H, &err) == MMT_OK;
    const char *config = NULL;
    mmt_last_choice(ctx, &config);
    int nonempty = 0;
    for (int64_t g = 0; g < groups; g++) nonempty += sizes[g] > 0;
    /* every group's matrices and rows on 16 B */
    int aligned = (int64_t)es * (lda | ldb) % 16 == 0 && (int64_t)cs * ldc % 16 == 0;
    for (int64_t g = 0, first = 0; g < groups; first += sizes[g], g++) {
        const int64_t at = (int64_t)es * (row_at(col, ta, 0, lda, first) | g * stride_b);
        aligned &= !sizes[g] || (at | (int64_t)cs * row_at(col, 0, 1, ldc, first)) % 16 == 0;
    }
    /* cuBLASLt has no e5m2 x e5m2 matmul: the templates serve it */
    const int fp8 = mmt_dtype_fp8(ty), vendor_serves = vendor_on && ty != MMT_E5M2;
    const int one_call = config && strstr(config, "ROUTINE=cublasGemmGroupedBatchedEx") != NULL;
    const int one_launch = config && strstr(config, "GROUPED=1") != NULL;
    /* the templates' one launch: C = A B^T, row-major, B's one after another or shared, 16-bit
     * with C of its type or FP8; beside the vendor, groups of 256 rows or fewer on average */
    const int launch_takes = (fp8 || (ty != MMT_F32 && ct == ty)) && !col && !ta && tb && aligned &&
                             (shared_b || stride_b == n * ldb) && (!vendor_serves || sum <= 256 * nonempty);
    one_calls += one_call, one_launches += one_launch;
    /* with the vendor, the calls before the builder has the instance ready run the groups one by one */
    const int launch_as_said =
        one_launch ? !one_call && launch_takes : one_call || !launch_takes || (vendor_serves && !drained);
    if (one_call != (vendor_on && !fp8 && aligned && sum <= 64 * nonempty) || !launch_as_said) {
        fprintf(stderr, "served by %s\n", config ? config : "nothing said");
        right = 0;
    }
    mmt_mode mode = MMT_MODE_F32;
    CHECK_EQ_INT(mmt_mode_of(ty, MMT_COMPUTE_NATIVE, &mode), 0);
    double worst = 0;
    for (int64_t g = 0, first = 0; right && g < groups; first += sizes[g], g++) {
        if (!sizes[g]) continue;
        const char *ag = (const char *)a + es * (size_t)row_at(col, ta, 0, lda, first);
        const char *bg = (const char *)b + es * (size_t)(g * stride_b);
        const size_t c_at = cs * (size_t)row_at(col, 0, 1, ldc, first);
        double *ref = gc_ref_alloc(sizes[g], n);
        gc_reference_t(ty, ct, col, ta, tb, sizes[g], n, k, 1.0, ag, lda, bg, ldb, beta, (const char *)c + c_at, ldc,
                       ref);
        const double e = gc_rel_error_t(ct, col, sizes[g], n, out + c_at, ldc, ref);
        worst = e > worst || e != e ? e : worst;
        right &= e <= gc_bound_mode(mode, ct, k);
        free(ref);
    }
    for (int64_t l = 0; right && l < lines; l++) /* the padding of each line as it was */
        right &= memcmp(out + cs * (size_t)(l * ldc + ldc - pad), (char *)c + cs * (size_t)(l * ldc + ldc - pad),
                        cs * (size_t)pad) == 0;
    if (!right)
        fprintf(stderr, "%s->%s %s ta=%d tb=%d %lld groups (%lld rows) n=%lld k=%lld beta=%g%s: %s error %g\n",
                mmt_dtype_name(ty), mmt_dtype_name(ct), col ? "col" : "row", ta, tb, (long long)groups, (long long)sum,
                (long long)n, (long long)k, beta, shared_b ? " shared B" : "", st != MMT_OK ? mmt_last_error(ctx) : "",
                worst);
    be->free(da), be->free(db), be->free(dc);
    free(a), free(b), free(c), free(out);
    return right;
}

static void test_cases(mmt_ctx *ctx, const char *who)
{
    static const int64_t small[] = {3, 0, 17, 1, 40, 9, 0, 25}, large[] = {600, 0, 129, 257},
                         mid[] = {300, 0, 129, 257};
    static const mmt_dtype types[] = {MMT_F32, MMT_BF16, MMT_F16};
    int cases = 0, right = 0;
    for (size_t t = 0; t < sizeof types / sizeof types[0]; t++)
        for (int v = 0; v < 8; v++) {
            const int col = v & 1, ta = (v >> 1) & 1, tb = (v >> 2) & 1;
            const mmt_dtype ty = types[t];
            right += case_right(ctx, ty, ty, col, ta, tb, v % 3 == 0, 0, small, 8, 24, 40, v % 2 ? 0.0 : 1.0);
            right += case_right(ctx, ty, ty, col, ta, tb, v % 3 == 1, 0, large, 4, 136, 264, v % 2 ? 1.0 : 0.0);
            right += case_right(ctx, ty, ty, col, ta, tb, v % 3 == 2, 1, small, 8, 24, 40, v % 2 ? 1.0 : 0.0);
            right += case_right(ctx, ty, ty, col, ta, tb, v % 3 == 0, 1, large, 4, 136, 264, v % 2 ? 0.0 : 1.0);
            right += case_right(ctx, ty, ty, col, ta, tb, v % 3 == 1, 1, mid, 4, 136, 264, v % 2 ? 0.0 : 1.0);
            cases += 5;
        }
    /* FP8 with C of each type it writes, row-major C = A B^T and C = A B, K a multiple of 16
     * (rows of 16 bytes where tight) */
    static const mmt_dtype fp8[][2] = {{MMT_E4M3, MMT_BF16}, {MMT_E4M3, MMT_F32}, {MMT_E5M2, MMT_F16}};
    for (size_t t = 0; t < sizeof fp8 / sizeof fp8[0]; t++)
        for (int tb = 0; tb < 2; tb++) {
            const mmt_dtype ty = fp8[t][0], ct = fp8[t][1];
            right += case_right(ctx, ty, ct, 0, 0, tb, tb, 0, small, 8, 24, 64, tb ? 0.0 : 1.0);
            right += case_right(ctx, ty, ct, 0, 0, tb, !tb, 1, small, 8, 24, 64, tb ? 1.0 : 0.0);
            right += case_right(ctx, ty, ct, 0, 0, tb, tb, 1, large, 4, 136, 272, tb ? 0.0 : 1.0);
            right += case_right(ctx, ty, ct, 0, 0, tb, !tb, 1, mid, 4, 136, 272, tb ? 1.0 : 0.0);
            cases += 4;
        }
    if (vendor_on) { /* the one launches built meanwhile serve the calls from now on */
        CHECK_EQ_INT(mmt_wait_kernels(ctx, NULL), MMT_OK);
        drained = 1;
        right += case_right(ctx, MMT_BF16, MMT_BF16, 0, 0, 1, 0, 1, mid, 4, 136, 264, 0.0);
        right += case_right(ctx, MMT_E4M3, MMT_BF16, 0, 0, 1, 1, 1, mid, 4, 136, 272, 1.0);
        right += case_right(ctx, MMT_E4M3, MMT_F32, 0, 0, 1, 0, 1, mid, 4, 136, 272, 0.0);
        cases += 3;
        drained = 0;
    }
    printf("%s: %d of %d grouped cases right, %d of them one call of cuBLAS's grouped form, %d one launch of the "
           "templates\n",
           who, right, cases, one_calls, one_launches);
    one_calls = one_launches = 0;
    CHECK_EQ_INT(right, cases);
}

/* mmt_gemm_batched: batch GEMMs of m x n x k, each on matrices of its own (tight: 16-byte rows
 * where the sizes allow); each right against the reference; one call of cuBLAS's grouped form
 * where the vendor serves GEMMs of at most 64 rows, every matrix and row on 16 bytes. */
static int pointers_right(mmt_ctx *ctx, mmt_dtype ty, int col, int ta, int tb, int tight, int64_t batch, int64_t m,
                          int64_t n, int64_t k, double beta)
{
    enum { MOST = 16 };
    const size_t es = (size_t)mmt_dtype_size(ty);
    const int64_t ar = ta ? k : m, ac = ta ? m : k, br = tb ? n : k, bc = tb ? k : n, extra = tight ? 0 : 3;
    const int64_t lda = (col ? ar : ac) + extra, ldb = (col ? br : bc) + extra, ldc = (col ? m : n) + extra;
    const size_t a_bytes = es * (size_t)((col ? ac : ar) * lda), b_bytes = es * (size_t)((col ? bc : br) * ldb),
                 c_bytes = es * (size_t)((col ? n : m) * ldc);
    void *a[MOST], *b[MOST], *c[MOST], *da[MOST], *db[MOST], *dc[MOST];
    for (int64_t i = 0; i < batch; i++) {
        a[i] = gc_matrix_t(ty, col, ar, ac, lda, 0), b[i] = gc_matrix_t(ty, col, br, bc, ldb, 0);
        c[i] = gc_matrix_t(ty, col, m, n, ldc, beta == 0);
        da[i] = on_device(a[i], a_bytes), db[i] = on_device(b[i], b_bytes), dc[i] = on_device(c[i], c_bytes);
    }
    const mmt_gemm_desc d = {ty, ty, MMT_COMPUTE_NATIVE, col ? MMT_COL_MAJOR : MMT_ROW_MAJOR,
                             ta ? MMT_TRANS : MMT_NO_TRANS, tb ? MMT_TRANS : MMT_NO_TRANS};
    mmt_err err;
    const mmt_status st = mmt_gemm_batched(ctx, &d, m, n, k, 1.0, (const void *const *)da, lda,
                                           (const void *const *)db, ldb, beta, dc, ldc, batch);
    const char *config = NULL;
    mmt_last_choice(ctx, &config);
    const int one_call = config && strstr(config, "ROUTINE=cublasGemmGroupedBatchedEx") != NULL;
    int right = st == MMT_OK && be->sync(NULL, &err) == MMT_OK &&
                one_call == (vendor_on && m <= 64 && (int64_t)es * (lda | ldb | ldc) % 16 == 0);
    mmt_mode mode = MMT_MODE_F32;
    CHECK_EQ_INT(mmt_mode_of(ty, MMT_COMPUTE_NATIVE, &mode), 0);
    char *out = malloc(c_bytes);
    for (int64_t i = 0; right && i < batch; i++) {
        right &= be->copy(out, dc[i], c_bytes, MMT_D2H, &err) == MMT_OK;
        double *ref = gc_ref_alloc(m, n);
        gc_reference_t(ty, ty, col, ta, tb, m, n, k, 1.0, a[i], lda, b[i], ldb, beta, c[i], ldc, ref);
        right &= gc_rel_error_t(ty, col, m, n, out, ldc, ref) <= gc_bound_mode(mode, ty, k);
        free(ref);
    }
    if (!right)
        fprintf(stderr, "batched pointers %s %s ta=%d tb=%d %lld of %lldx%lldx%lld beta=%g: %s; served by %s\n",
                mmt_dtype_name(ty), col ? "col" : "row", ta, tb, (long long)batch, (long long)m, (long long)n,
                (long long)k, beta, st != MMT_OK ? mmt_last_error(ctx) : "ok", config ? config : "nothing said");
    for (int64_t i = 0; i < batch; i++) {
        be->free(da[i]), be->free(db[i]), be->free(dc[i]);
        free(a[i]), free(b[i]), free(c[i]);
    }
    free(out);
    return right;
}

static void test_pointers(mmt_ctx *ctx, const char *who)
{
    static const mmt_dtype types[] = {MMT_F32, MMT_BF16, MMT_F16};
    int cases = 0, right = 0;
    for (size_t t = 0; t < sizeof types / sizeof types[0]; t++)
        for (int v = 0; v < 8; v++) {
            const int col = v & 1, ta = (v >> 1) & 1, tb = (v >> 2) & 1;
            right += pointers_right(ctx, types[t], col, ta, tb, v % 2, 12, 40, 24, 48, v % 3 ? 0.0 : 1.0);
            right += pointers_right(ctx, types[t], col, ta, tb, v % 2 == 0, 3, 200, 72, 136, v % 3 ? 1.0 : 0.0);
            cases += 2;
        }
    printf("%s: %d of %d batches on pointers right\n", who, right, cases);
    CHECK_EQ_INT(right, cases);
}

int main(void)
{
    int rc = gpu_open();
    if (rc) return rc;
    setenv("MMTUNE_DB", "/nonexistent/mmtune-test.db", 1); /* nothing tuned */
    for (int off = 0; off < 2; off++) {
        if (off) setenv("MMTUNE_VENDOR", "off", 1); /* read when a context opens */
        mmt_ctx *ctx = NULL;
        CHECK_EQ_INT(mmt_open(&ctx, "0", NULL), MMT_OK);
        if (!ctx) break;
        vendor_on = !off;
        test_cases(ctx, off ? "the templates (the vendor off)" : "the vendor");
        test_pointers(ctx, off ? "the templates (the vendor off)" : "the vendor");
        mmt_close(ctx);
    }
    unsetenv("MMTUNE_VENDOR");
    unsetenv("MMTUNE_DB");
    return check_result();
}
