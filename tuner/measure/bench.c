/* bench.c - inputs, reference, verification and timing of one problem (see bench.h). */
#include "bench.h"

#include <errno.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "half.h"
#include "kernel.h"
#include "parallel_for.h"
#include "problem.h"
#include "resource.h"
#include "stats.h"

/* Element i of a stream of random numbers (splitmix64 of a counter): any element can be
 * made on its own, so large inputs fill in parallel. */
static uint64_t random_at(uint64_t seed, uint64_t i)
{
    uint64_t z = seed * 0xD1B54A32D192ED03ull + i + 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

typedef struct {
    void *buf;
    mmt_dtype dt;
    uint64_t seed;
} fill_job;

static void fill_range(void *ctx, int64_t begin, int64_t end)
{
    const fill_job *f = ctx;
    for (int64_t i = begin; i < end; i++) {
        double v = (double)(random_at(f->seed, (uint64_t)i) >> 11) * (2.0 / 9007199254740992.0) - 1.0;
        if (v == 0) v = 0.5;
        switch (f->dt) {
        case MMT_F64: ((double *)f->buf)[i] = v; break;
        case MMT_BF16: ((uint16_t *)f->buf)[i] = mmt_bf16_from_double(v); break;
        case MMT_F16: ((uint16_t *)f->buf)[i] = mmt_f16_from_double(v); break;
        case MMT_E4M3: /* what rounds to zero (below 2^-10 in e4m3) is the smallest subnormal */
        case MMT_E5M2: {
            uint8_t x = f->dt == MMT_E4M3 ? mmt_e4m3_from_double(v) : mmt_e5m2_from_double(v);
            ((uint8_t *)f->buf)[i] = (x & 0x7F) ? x : (uint8_t)(x | 1);
            break;
        }
        default: ((float *)f->buf)[i] = (float)v; break;
        }
    }
}

void mmt_bench_fill_random(void *buf, size_t count, mmt_dtype dt, uint64_t seed)
{
    fill_job f = {buf, dt, seed};
    mmt_parallel_for((int64_t)count, 0, 0, fill_range, &f);
}

void mmt_bench_fill_scales(float *buf, size_t count, uint64_t seed)
{
    for (size_t i = 0; i < count; i++) {
        const uint64_t r = random_at(seed, (uint64_t)i);
        const double u = (double)(r >> 11) * (2.0 / 9007199254740992.0) - 1.0;
        buf[i] = (float)ldexp(1.0 + 0.5 * u, (int)(r % 6) - 3);
    }
}

void mmt_bench_fill_nan(void *buf, size_t count, mmt_dtype dt)
{
    for (size_t i = 0; i < count; i++) {
        switch (dt) {
        case MMT_F64: ((double *)buf)[i] = NAN; break;
        case MMT_BF16: ((uint16_t *)buf)[i] = MMT_BF16_NAN; break;
        case MMT_F16: ((uint16_t *)buf)[i] = MMT_F16_NAN; break;
        case MMT_E4M3: ((uint8_t *)buf)[i] = mmt_e4m3_from_double(NAN); break;
        case MMT_E5M2: ((uint8_t *)buf)[i] = mmt_e5m2_from_double(NAN); break;
        default: ((float *)buf)[i] = NAN; break;
        }
    }
}

double mmt_bench_elem(const void *buf, mmt_dtype dt, size_t i)
{
    switch (dt) {
    case MMT_F64: return ((const double *)buf)[i];
    case MMT_BF16: return mmt_bf16_to_double(((const uint16_t *)buf)[i]);
    case MMT_F16: return mmt_f16_to_double(((const uint16_t *)buf)[i]);
    case MMT_E4M3: return mmt_e4m3_to_double(((const uint8_t *)buf)[i]);
    case MMT_E5M2: return mmt_e5m2_to_double(((const uint8_t *)buf)[i]);
    default: return ((const float *)buf)[i];
    }
}

typedef struct {
    const void *x;
    double *d;
    mmt_dtype dt;
    int trans;
    int64_t cols, ld;
} widen_job;

static void widen_rows(void *ctx, int64_t begin, int64_t end)
{
    const widen_job *w = ctx;
    for (int64_t i = begin; i < end; i++)
        for (int64_t j = 0; j < w->cols; j++)
            w->d[i * w->cols + j] = mmt_bench_elem(w->x, w->dt, w->trans ? j * w->ld + i : i * w->ld + j);
}

/* op(X) of set 0 as a dense row-major double matrix (rows x cols). */
static double *as_double(const void *x, mmt_dtype dt, int trans, int64_t rows, int64_t cols, int64_t ld)
{
    double *d = malloc(sizeof(double) * rows * cols);
    if (!d) return NULL;
    widen_job w = {x, d, dt, trans, cols, ld};
    mmt_parallel_for(rows, 0, 0, widen_rows, &w);
    return d;
}

typedef struct {
    const double *A, *B;
    double *R;
    int64_t m, n, k;
    atomic_int failed; /* a share found no memory for its compensation terms */
} ref_job;

enum { REF_ROWS = 16 }; /* rows of R a share of ref_gemm */

static void ref_row_blocks(void *ctx, int64_t begin, int64_t end)
{
    const ref_job *r = ctx;
    const int64_t m = r->m, n = r->n, k = r->k;
    for (int64_t i0 = begin * REF_ROWS; i0 < end * REF_ROWS && i0 < m; i0 += REF_ROWS)
        for (int64_t k0 = 0; k0 < k; k0 += 256)
            for (int64_t j0 = 0; j0 < n; j0 += 1024) {
                int64_t i1 = i0 + REF_ROWS < m ? i0 + REF_ROWS : m, k1 = k0 + 256 < k ? k0 + 256 : k,
                        j1 = j0 + 1024 < n ? j0 + 1024 : n;
                for (int64_t i = i0; i < i1; i++)
                    for (int64_t kk = k0; kk < k1; kk++) {
                        double a = r->A[i * k + kk];
                        const double *b = r->B + kk * n;
                        double *row = r->R + i * n;
                        for (int64_t j = j0; j < j1; j++) row[j] += a * b[j];
                    }
            }
}

/* R = A B in double. Products of floats (and of bf16 or f16 values) are exact in double,
 * so the reference of any mode but f64 is good to far below fp32 rounding. */
static void ref_gemm(const double *A, const double *B, double *R, int64_t m, int64_t n, int64_t k)
{
    memset(R, 0, sizeof(double) * m * n);
    ref_job r = {A, B, R, m, n, k, 0};
    mmt_parallel_for((m + REF_ROWS - 1) / REF_ROWS, 1, 0, ref_row_blocks, &r);
}

/* Rows [begin, end) of R = A B with compensated (double-double) accumulation: TwoProduct
 * by FMA and TwoSum. Contraction into FMA would break the error-free transformations. */
__attribute__((optimize("fp-contract=off"))) static void ref_rows_compensated(void *ctx, int64_t begin,
                                                                              int64_t end)
{
    ref_job *rj = ctx; /* a share that finds no memory says so in rj->failed */
    const int64_t n = rj->n, k = rj->k;
    double *e = malloc(sizeof(double) * n);
    if (!e) atomic_store(&rj->failed, 1);
    for (int64_t i = begin; i < end && e; i++) {
        double *r = rj->R + i * n;
        memset(r, 0, sizeof(double) * n);
        memset(e, 0, sizeof(double) * n);
        for (int64_t kk = 0; kk < k; kk++) {
            double a = rj->A[i * k + kk];
            const double *b = rj->B + kk * n;
            for (int64_t j = 0; j < n; j++) {
                double p = a * b[j], pe = fma(a, b[j], -p);
                double s = r[j], t = s + p, z = t - s;
                e[j] += ((s - (t - z)) + (p - z)) + pe;
                r[j] = t;
            }
        }
        for (int64_t j = 0; j < n; j++) r[j] += e[j];
    }
    free(e);
}

/* R = A B with compensated accumulation, for f64 problems; 0, or -1 out of memory. */
static int ref_gemm_compensated(const double *A, const double *B, double *R, int64_t m, int64_t n, int64_t k)
{
    ref_job r = {A, B, R, m, n, k, 0};
    mmt_parallel_for(m, 1, 0, ref_rows_compensated, &r);
    return atomic_load(&r.failed) ? -1 : 0;
}

/* The bound on the relative Frobenius error against the reference of the stored inputs:
 *
 *   bound = 8 sqrt(K) u_acc (twice that for f32x3) + 4 u_in + 2 u_out
 *
 *   u_acc  the accumulation: 2^-53 for f64, 2^-24 for everything else (fp32 accumulation,
 *          on tensor cores too); f32x3 adds the rounding of its three products and of the
 *          split, hence the factor 2 on its fp32-level accuracy;
 *   u_in   rounding the inputs inside the kernel: 2^-11 for tf32 (10 stored mantissa bits;
 *          a product of two rounded inputs errs by about 2 u_in), else 0: bf16 and f16
 *          inputs are exact, the reference reads the same stored values;
 *   u_out  rounding C when it is narrower than fp32: 2^-8 for bf16, 2^-11 for f16, 2^-4 for
 *          e4m3, 2^-3 for e5m2, else 0.
 *
 * sqrt(K): rounding errors of random signs grow like a random walk; the factor 8 leaves
 * room for blocked and split-K summation orders without letting a wrong kernel through.
 *
 * L Strassen-Winograd levels (f32 and f64; strassen.h) make the first term
 *
 *   8 (sqrt(K) + L) 7^(L/2) u_acc
 *
 * On inputs of independent entries (these are), a level's products P1..P7 have variances
 * 1 1 4 4 4 9 4 in units of one quadrant product's (their operands sum up to four
 * quadrants: S2 = A21 + A22 - A11), and each of C's quadrants sums the products it is made
 * of: C11 2 units, C12, C21 and C22 18 each, 14 on average, where the classic algorithm's
 * quadrant is a product of twice the depth, 2 units. Each product errs by its magnitude
 * times the base kernel's relative error e(K/2), so a level multiplies the error's
 * variance by 7 e(K/2)^2 / e(K)^2: 7/2 for e ~ sqrt(K) (random-walk summation), between 7/4
 * and 7 for any e ~ K^p, 0 <= p <= 1, which covers blocked, pairwise and FMA summation
 * orders. The bound takes the worst, sqrt(7) per level in the Frobenius norm, so it holds
 * whatever the base kernel's order, as the factor 8 does for one kernel. The additions
 * round every S, T and U once, about 5 u relative to C per level (magnitudes up to three
 * quadrants'), which the L term covers. Measured: 2.6x per level, f32 and f64 at 1024 to
 * 4097 (BENCHMARKS.md), the worst case: this CPU kernel's error grows little with K (its
 * blocks of KC sum apart), so halving K gains nothing back.
 * A wrong level (a product or a sign missed) errs by O(1): far outside. */
double mmt_bench_error_bound(const mmt_problem *p, int levels)
{
    /* FP8's tensor cores keep about 14 bits of the sum they add into (DeepSeek-V3's report,
     * H800): the bound of a kernel that does not promote its partial sums to fp32 */
    const double u_acc = p->mode == MMT_MODE_F64                                ? ldexp(1.0, -53)
                         : mmt_dtype_fp8(mmt_mode_dtype(p->mode))               ? ldexp(1.0, -14)
                                                                                : ldexp(1.0, -24);
    const double u_in = p->mode == MMT_MODE_TF32 ? ldexp(1.0, -11) : 0.0;
    const double u_out = p->out == MMT_BF16   ? ldexp(1.0, -8)
                         : p->out == MMT_F16  ? ldexp(1.0, -11)
                         : p->out == MMT_E4M3 ? ldexp(1.0, -4)
                         : p->out == MMT_E5M2 ? ldexp(1.0, -3)
                                              : 0.0;
    const double acc = 8.0 * (sqrt((double)(p->k > 1 ? p->k : 1)) + levels) * pow(7.0, levels / 2.0) * u_acc;
    return acc * (p->mode == MMT_MODE_F32X3 ? 2 : 1) + 4.0 * u_in + 2.0 * u_out;
}

void mmt_bench_free(mmt_bench *b)
{
    if (!b) return;
    for (int i = 0; i < b->n_sets; i++) {
        b->be->free(b->a[i]);
        b->be->free(b->b[i]);
        b->be->free(b->c[i]);
        b->be->free(b->sa[i]);
        b->be->free(b->sb[i]);
    }
    free(b->host_a);
    free(b->host_b);
    free(b->host_c);
    free(b->ref);
    free(b);
}

/* A backend that ships a reference template (templates/<backend>/gemm_ref.*, entry
 * mmt_gemm_ref64: op(A) op(B) of inputs of any type (MMT_AB) accumulated in double-double,
 * written as doubles to the workspace; 16 x 16 blocks, one thread per element) computes
 * the reference of set 0 on its own device, for every mode: a host reference of 8192^3
 * would take minutes. *found is 0 if the backend has none (the host computes it). */
static mmt_status device_reference(mmt_bench *b, int *found, mmt_err *err)
{
    char prefix[64];
    const char *path = NULL;
    *found = 0;
    snprintf(prefix, sizeof prefix, "templates/%s/gemm_ref.", b->be->name);
    for (const mmt_resource *r = mmt_resources; r->path && !path; r++)
        if (strncmp(r->path, prefix, strlen(prefix)) == 0) path = r->path;
    if (!path || strcmp(b->be->name, "cpu") == 0) return MMT_OK;
    *found = 1;
    const mmt_problem *p = &b->p;
    char *source = NULL, defines[64];
    size_t n;
    void *bin = NULL, *ws = NULL;
    char *log = NULL;
    mmt_module *mod = NULL;
    snprintf(defines, sizeof defines, "MMT_AB=%d MMT_B=%d MMT_SCALED=%d", (int)p->dtype, (int)mmt_mode_b_dtype(p->mode),
             mmt_mode_block_scaled(p->mode));
    size_t bytes = sizeof(double) * p->m * p->n;
    mmt_status st = mmt_resource_read(path, &source, &n, err);
    if (st == MMT_OK)
        st = mmt_kernel_binary(b->be, b->dev, path + 10, source, defines, &bin, &n, &log, NULL, err);
    if (st == MMT_OK) st = b->be->load(b->dev, bin, n, "mmt_gemm_ref64", &mod, err);
    if (st == MMT_OK) st = b->be->alloc(b->dev, bytes, &ws, err);
    if (st == MMT_OK) {
        mmt_gemm_params g = {.m = p->m, .n = p->n, .k = p->k, .lda = b->lda, .ldb = b->ldb, .ldc = b->ldc,
                             .trans_a = p->trans_a, .trans_b = p->trans_b, .alpha = 1, .beta = 0, .a = b->a[0],
                             .b = b->b[0], .c = b->c[0], .workspace = ws, .workspace_size = (int64_t)bytes,
                             .scale_a = b->sa[0], .scale_b = b->sb[0]};
        mmt_geometry geo = {.grid = {(p->n + 15) / 16, (p->m + 15) / 16, 1}, .block = {16, 16, 1}};
        st = b->be->launch(mod, &g, &geo, b->stream, err);
    }
    if (st == MMT_OK) st = b->be->sync(b->stream, err);
    if (st == MMT_OK) st = b->be->copy(b->ref, ws, bytes, MMT_D2H, err);
    b->be->free(ws);
    if (mod) b->be->unload(mod);
    free(bin);
    free(log);
    free(source);
    return st;
}

/* Set i's block scales (block-scaled FP8): made on the host, copied to the device. */
static mmt_status put_scales(mmt_bench *b, int i, mmt_err *err)
{
    const mmt_problem *p = &b->p;
    const int64_t kbs = (p->k + 127) / 128;
    const size_t sa_bytes = sizeof(float) * (size_t)(kbs * p->m),
                 sb_bytes = sizeof(float) * (size_t)(kbs * ((p->n + 127) / 128));
    float *host = malloc(sa_bytes + sb_bytes + 1);
    RETURN_ERROR_IF(!host, err, MMT_OUT_OF_MEMORY, "out of host memory for the scales");
    mmt_bench_fill_scales(host, (sa_bytes + sb_bytes) / sizeof(float), 3 * (uint64_t)i + 1000);
    mmt_status st = b->be->alloc(b->dev, sa_bytes + 1, &b->sa[i], err);
    if (st == MMT_OK) st = b->be->alloc(b->dev, sb_bytes + 1, &b->sb[i], err);
    if (st == MMT_OK) st = b->be->copy(b->sa[i], host, sa_bytes, MMT_H2D, err);
    if (st == MMT_OK) st = b->be->copy(b->sb[i], (const char *)host + sa_bytes, sb_bytes, MMT_H2D, err);
    free(host);
    return st;
}

mmt_status mmt_bench_setup(const mmt_backend *be, const mmt_device_info *dev, void *stream, const mmt_problem *up,
                           int64_t cache_bytes, mmt_bench **out, mmt_err *err)
{
    mmt_bench *b = calloc(1, sizeof *b);
    RETURN_ERROR_IF(!b, err, MMT_OUT_OF_MEMORY, "out of memory");
    b->be = be;
    b->dev = dev;
    b->stream = stream;
    b->p = mmt_problem_normalise(up);
    b->alpha = 1.0;
    b->settle = strcmp(be->name, "cpu") != 0;
    const mmt_problem *p = &b->p;
    const char *bad = mmt_problem_check(p);
    if (bad) {
        free(b);
        return mmt_err_set(err, MMT_INVALID_ARGUMENT, "bench: %s", bad);
    }
    const int64_t es = mmt_dtype_size(p->dtype), es_c = mmt_dtype_size(p->out);
    b->lda = p->trans_a ? p->m : p->k;
    b->ldb = p->trans_b ? p->k : p->n;
    b->ldc = p->n;
    /* sizes are the user's: products that would wrap around are refused, not allocated */
    int64_t a_bytes, b_bytes, c_bytes, ref_bytes, set_bytes;
    if (mmt_span_bytes(p->m, p->k, p->k, es, &a_bytes) || mmt_span_bytes(p->k, p->n, p->n, es, &b_bytes) ||
        mmt_span_bytes(p->m, p->n, p->n, es_c, &c_bytes) ||
        mmt_span_bytes(p->m, p->n, p->n, (int64_t)sizeof(double), &ref_bytes) ||
        __builtin_add_overflow(a_bytes, b_bytes, &set_bytes) || __builtin_add_overflow(set_bytes, c_bytes, &set_bytes)) {
        mmt_err_set(err, MMT_INVALID_ARGUMENT, "bench: %lldx%lldx%lld is too large to hold", (long long)p->m,
                    (long long)p->n, (long long)p->k);
        free(b);
        return MMT_INVALID_ARGUMENT;
    }
    b->a_bytes = (size_t)a_bytes;
    b->b_bytes = (size_t)b_bytes;
    b->c_bytes = (size_t)c_bytes;
    b->n_sets = set_bytes ? (int)((2 * (size_t)cache_bytes + (size_t)set_bytes - 1) / (size_t)set_bytes) : 1;
    if (b->n_sets < 1) b->n_sets = 1;
    if (b->n_sets > MMT_BENCH_MAX_SETS) b->n_sets = MMT_BENCH_MAX_SETS;
    /* Host memory: the host copies and the reference, and on the CPU the sets themselves.
     * The allocations succeed whatever their size (the kernel overcommits) and the pages are
     * touched as they are filled: a problem the machine cannot hold is refused before it
     * grows the process until the out-of-memory killer ends it. */
    const int host_sets = strcmp(be->name, "cpu") == 0;
    const double need = (double)set_bytes * (1 + (host_sets ? b->n_sets : 0)) + (double)ref_bytes;
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    const double have = pages > 0 && page > 0 ? (double)pages * (double)page : INFINITY;
    if (need > 0.75 * have) {
        mmt_err_set(err, MMT_OUT_OF_MEMORY,
                    "bench: %lldx%lldx%lld needs %.1f GB of host memory (operands, their copies and the reference), "
                    "more than three quarters of this machine's %.1f GB",
                    (long long)p->m, (long long)p->n, (long long)p->k, need / 1e9, have / 1e9);
        free(b);
        return MMT_OUT_OF_MEMORY;
    }

    mmt_status st = MMT_OK;
    b->host_a = malloc(b->a_bytes);
    b->host_b = malloc(b->b_bytes);
    b->host_c = malloc(b->c_bytes);
    if (!b->host_a || !b->host_b || !b->host_c) st = mmt_err_set(err, MMT_OUT_OF_MEMORY, "out of host memory");
    for (int i = 0; i < b->n_sets && st == MMT_OK; i++) {
        st = be->alloc(dev, b->a_bytes, &b->a[i], err);
        if (st == MMT_OK) st = be->alloc(dev, b->b_bytes, &b->b[i], err);
        if (st == MMT_OK) st = be->alloc(dev, b->c_bytes, &b->c[i], err);
        if (st != MMT_OK) break;
        mmt_bench_fill_random(b->host_a, p->m * p->k, p->dtype, 3 * i + 1);
        mmt_bench_fill_random(b->host_b, p->k * p->n, mmt_mode_b_dtype(p->mode), 3 * i + 2);
        mmt_bench_fill_random(b->host_c, p->m * p->n, p->out, 3 * i + 3);
        st = be->copy(b->a[i], b->host_a, b->a_bytes, MMT_H2D, err);
        if (st == MMT_OK) st = be->copy(b->b[i], b->host_b, b->b_bytes, MMT_H2D, err);
        if (st == MMT_OK) st = be->copy(b->c[i], b->host_c, b->c_bytes, MMT_H2D, err);
        if (st == MMT_OK && mmt_mode_block_scaled(p->mode)) st = put_scales(b, i, err);
    }
    b->ref = st == MMT_OK ? malloc((size_t)ref_bytes ? (size_t)ref_bytes : 1) : NULL;
    if (st == MMT_OK && !b->ref) st = mmt_err_set(err, MMT_OUT_OF_MEMORY, "out of host memory for the reference");
    int on_device = 0;
    if (st == MMT_OK) st = device_reference(b, &on_device, err);
    if (st == MMT_OK && !on_device && mmt_mode_block_scaled(p->mode))
        st = mmt_err_set(err, MMT_UNSUPPORTED, "bench: %s has a reference on a GPU alone", mmt_mode_name(p->mode));
    if (st == MMT_OK && !on_device) { /* set 0 again on the host: the reference is of set 0 */
        mmt_bench_fill_random(b->host_a, p->m * p->k, p->dtype, 1);
        mmt_bench_fill_random(b->host_b, p->k * p->n, mmt_mode_b_dtype(p->mode), 2);
        double *A = as_double(b->host_a, p->dtype, p->trans_a, p->m, p->k, b->lda);
        double *B = as_double(b->host_b, mmt_mode_b_dtype(p->mode), p->trans_b, p->k, p->n, b->ldb);
        if (!A || !B || (p->dtype == MMT_F64 && ref_gemm_compensated(A, B, b->ref, p->m, p->n, p->k) != 0))
            st = mmt_err_set(err, MMT_OUT_OF_MEMORY, "out of host memory for the reference");
        else if (p->dtype != MMT_F64) ref_gemm(A, B, b->ref, p->m, p->n, p->k);
        free(A);
        free(B);
    }
    if (st == MMT_OK) {
        double s = 0;
        for (int64_t i = 0; i < p->m * p->n; i++) s += b->ref[i] * b->ref[i];
        b->ref_norm = sqrt(s);
    }
    if (st != MMT_OK) {
        mmt_bench_free(b);
        return st;
    }
    *out = b;
    return MMT_OK;
}

static mmt_gemm_params params_of_set(const mmt_bench *b, int set, double beta)
{
    mmt_gemm_params g = {.m = b->p.m, .n = b->p.n, .k = b->p.k, .lda = b->lda, .ldb = b->ldb, .ldc = b->ldc,
                         .trans_a = b->p.trans_a, .trans_b = b->p.trans_b, .alpha = b->alpha, .beta = beta,
                         .a = b->a[set], .b = b->b[set], .c = b->c[set], .scale_a = b->sa[set], .scale_b = b->sb[set]};
    return g;
}

mmt_gemm_params mmt_bench_params(const mmt_bench *b) { return params_of_set(b, 0, 0.0); }

mmt_status mmt_bench_verify(mmt_bench *b, mmt_gemm_fn fn, void *user, int levels, double *rel_error, int *ok,
                            mmt_err *err)
{
    const mmt_problem *p = &b->p;
    int64_t count = p->m * p->n;
    mmt_bench_fill_nan(b->host_c, (size_t)count, p->out);
    FORWARD_IF_ERROR(b->be->copy(b->c[0], b->host_c, b->c_bytes, MMT_H2D, err));
    mmt_gemm_params g = params_of_set(b, 0, 0.0);
    FORWARD_IF_ERROR(fn(user, &g, b->stream, err));
    FORWARD_IF_ERROR(b->be->sync(b->stream, err));
    FORWARD_IF_ERROR(b->be->copy(b->host_c, b->c[0], b->c_bytes, MMT_D2H, err));
    double s = 0;
    for (int64_t i = 0; i < count; i++) {
        double d = mmt_bench_elem(b->host_c, p->out, i) - b->alpha * b->ref[i];
        s += d * d; /* NaN stays NaN */
    }
    double norm = b->ref_norm > 0 ? b->ref_norm : 1.0;
    *rel_error = sqrt(s) / (fabs(b->alpha) * norm);
    *ok = *rel_error <= mmt_bench_error_bound(p, levels); /* false for NaN */
    return MMT_OK;
}

typedef struct timed_call {
    mmt_bench *b;
    mmt_gemm_fn fn;
    void *user;
} timed_call;

static mmt_status run_next_set(void *user, mmt_err *err)
{
    timed_call *t = user;
    mmt_bench *b = t->b;
    mmt_gemm_params g = params_of_set(b, b->next_set, 0.0);
    b->next_set = (b->next_set + 1) % b->n_sets;
    return t->fn(t->user, &g, b->stream, err);
}

enum { MIN_SAMPLES = 5, MAX_SAMPLES = 30, PAIRED_MIN_ROUNDS = 10, MAX_REPS = 1000 };
static const double SAMPLE_MS = 20.0;   /* a sample is at least this long, so clock overhead vanishes */
/* Side by side on a GPU (b->settle), each sample follows an untimed run of the same
 * implementation this many times the sample's calls. A GPU's power controller sets the
 * clock from the power of the last tens of milliseconds: a sample that starts right after
 * another implementation's runs at the clock that one's power left, and the less
 * power-hungry kernel pays for the other's (H200, f64 4096^3, 20 ms samples: 0.95x cuBLAS
 * back to back, 1.01x-1.04x after 20-300 ms of settling; each alone 1.01x-1.06x). A CPU has
 * no such controller on that scale: on the 2-core VM, `make tune` took 238-240 s settled and
 * 180-188 s not, with its ratios within the runs' noise either way (2026-11-30). */
enum { SETTLE_SAMPLES = 2 };
static const double BUDGET_MS = 4000.0; /* per candidate, past the minimum samples */
static const double STABLE = 0.005;     /* standard error of the median, relative */

/* Calls in a run of about run_ms, from the time of one call. */
static int reps_for(double run_ms, double call_ms)
{
    int reps = call_ms > 0 ? (int)ceil(run_ms / call_ms) : 1;
    return reps < 1 ? 1 : reps > MAX_REPS ? MAX_REPS : reps;
}

static void timing_of(const double *s, int n, mmt_timing *t)
{
    mmt_summary sum;
    mmt_stats_summarise(s, n, &sum);
    t->samples = n;
    t->median_ms = sum.median;
    t->min_ms = sum.min;
    t->max_ms = sum.max;
    t->lo_ms = sum.lo;
    t->hi_ms = sum.hi;
    t->level = sum.level;
}

mmt_status mmt_bench_time(mmt_bench *b, mmt_gemm_fn fn, void *user, double best_hi_ms, mmt_timing *t, mmt_err *err)
{
    timed_call call = {b, fn, user};
    double warm;
    FORWARD_IF_ERROR(b->be->elapsed(run_next_set, &call, 1, b->stream, &warm, err));
    const int reps = reps_for(SAMPLE_MS, warm);

    double s[MAX_SAMPLES], spent = 0;
    int n = 0;
    memset(t, 0, sizeof *t);
    while (n < MAX_SAMPLES) {
        FORWARD_IF_ERROR(b->be->elapsed(run_next_set, &call, reps, b->stream, &s[n], err));
        spent += s[n] * reps;
        n++;
        mmt_summary sum;
        mmt_stats_summarise(s, n, &sum);
        if (mmt_stats_clearly_slower(sum.lo, best_hi_ms, n)) {
            t->stopped_early = 1;
            break;
        }
        if (n >= MIN_SAMPLES && (sum.se / sum.median < STABLE || spent > BUDGET_MS)) break;
    }
    timing_of(s, n, t);
    return MMT_OK;
}

/* The n implementations' calls (call[i]), each timed once, and the calls of a sample of each
 * (reps[i]). */
static mmt_status first_calls(mmt_bench *b, int n, const mmt_gemm_fn *fn, void *const *user, timed_call *call,
                              int *reps, mmt_err *err)
{
    RETURN_ERROR_IF(n < 1 || n > MMT_BENCH_MAX_PAIRED, err, MMT_INVALID_ARGUMENT, "%d implementations side by side",
                    n);
    for (int i = 0; i < n; i++) {
        call[i] = (timed_call){b, fn[i], user[i]};
        double one;
        FORWARD_IF_ERROR(b->be->elapsed(run_next_set, &call[i], 1, b->stream, &one, err));
        reps[i] = reps_for(SAMPLE_MS, one);
    }
    return MMT_OK;
}

mmt_status mmt_bench_time_paired(mmt_bench *b, int n, const mmt_gemm_fn *fn, void *const *user, mmt_timing *t,
                                 mmt_err *err)
{
    timed_call call[MMT_BENCH_MAX_PAIRED];
    int each[MMT_BENCH_MAX_PAIRED], reps = 1;
    FORWARD_IF_ERROR(first_calls(b, n, fn, user, call, each, err));
    for (int i = 0; i < n; i++)
        if (each[i] > reps) reps = each[i]; /* one count for all, enough for the fastest */
    double s[MMT_BENCH_MAX_PAIRED][MAX_SAMPLES], spent = 0;
    int rounds = 0;
    while (rounds < MAX_SAMPLES) {
        const int first_set = b->next_set;
        for (int j = 0; j < n; j++) {
            /* every other round in reverse (A B C, C B A, ...): no implementation always
             * follows the same one, or always runs first after the round's bookkeeping */
            const int i = rounds % 2 ? n - 1 - j : j;
            double settle; /* (a round's first ran last in the round before) */
            const int settle_reps = b->settle ? SETTLE_SAMPLES * reps : 0;
            if (settle_reps && (j > 0 || rounds == 0)) { /* the budget counts it: it is the rounds' time too */
                FORWARD_IF_ERROR(b->be->elapsed(run_next_set, &call[i], settle_reps, b->stream, &settle, err));
                spent += settle * settle_reps;
            }
            b->next_set = first_set; /* the same input sets for every one of the round */
            FORWARD_IF_ERROR(b->be->elapsed(run_next_set, &call[i], reps, b->stream, &s[i][rounds], err));
            spent += s[i][rounds] * reps;
        }
        rounds++;
        if (rounds < PAIRED_MIN_ROUNDS) continue; /* 10 rounds: a 98% interval of ranks 2 and 9 */
        int stable = 1;
        for (int i = 0; i < n && stable; i++) {
            mmt_summary sum;
            mmt_stats_summarise(s[i], rounds, &sum);
            stable = sum.se / sum.median < STABLE;
        }
        if (stable || spent > BUDGET_MS * n) break;
    }
    for (int i = 0; i < n; i++) {
        memset(&t[i], 0, sizeof t[i]);
        timing_of(s[i], rounds, &t[i]);
    }
    return MMT_OK;
}

enum { BESIDE_MIN_ROUNDS = 5, BESIDE_MAX_ROUNDS = 41 };
static const double BESIDE_BUDGET_MS = 1000.0;

mmt_status mmt_bench_time_beside(mmt_bench *b, mmt_gemm_fn ours, void *ours_user, mmt_gemm_fn other, void *other_user,
                                 double call_ms, mmt_beside *out, mmt_err *err)
{
    memset(out, 0, sizeof *out);
    /* four calls a round: each alone, then the two beside each other */
    const double fit = call_ms > 0 ? BESIDE_BUDGET_MS / (4 * call_ms) : BESIDE_MAX_ROUNDS;
    if (fit < BESIDE_MIN_ROUNDS) return MMT_OK;
    const int n = fit > BESIDE_MAX_ROUNDS ? BESIDE_MAX_ROUNDS : (int)fit;
    timed_call call[2] = {{b, ours, ours_user}, {b, other, other_user}};
    double alone[2][BESIDE_MAX_ROUNDS], beside[2][BESIDE_MAX_ROUNDS];
    for (int w = 0; w < 2; w++)
        for (int r = 0; r < n; r++)
            FORWARD_IF_ERROR(b->be->elapsed(run_next_set, &call[w], 1, b->stream, &alone[w][r], err));
    for (int r = 0; r < n; r++)
        for (int w = 1; w >= 0; w--) /* the other library's call, then ours */
            FORWARD_IF_ERROR(b->be->elapsed(run_next_set, &call[w], 1, b->stream, &beside[w][r], err));
    out->ours_alone_ms = mmt_stats_median(alone[0], (size_t)n);
    out->other_alone_ms = mmt_stats_median(alone[1], (size_t)n);
    out->ours_beside_ms = mmt_stats_median(beside[0], (size_t)n);
    out->other_beside_ms = mmt_stats_median(beside[1], (size_t)n);
    out->rounds = out->ours_alone_ms > 0 && out->other_alone_ms > 0 ? n : 0; /* below the clock: no ratio */
    return MMT_OK;
}

mmt_status mmt_bench_warm(mmt_bench *b, int n, const mmt_gemm_fn *fn, void *const *user, double ms, mmt_err *err)
{
    timed_call call[MMT_BENCH_MAX_PAIRED];
    int reps[MMT_BENCH_MAX_PAIRED];
    FORWARD_IF_ERROR(first_calls(b, n, fn, user, call, reps, err));
    double spent = 0;
    for (int i = 0; spent < ms; i = (i + 1) % n) {
        double per_call;
        FORWARD_IF_ERROR(b->be->elapsed(run_next_set, &call[i], reps[i], b->stream, &per_call, err));
        spent += per_call * reps[i] + (per_call > 0 ? 0 : 1); /* a clock that reads 0 still ends the loop */
    }
    return MMT_OK;
}

enum { COOL_MIN_ROUNDS = 5, COOL_MAX_ROUNDS = 10 };
static const double COOL_SAMPLE_MS = 5.0, COOL_IDLE = 4.0, COOL_FIRST_IDLE_MS = 1000.0, COOL_BUDGET_MS = 3000.0;

static void idle_ms(double ms)
{
    struct timespec ts = {(time_t)(ms / 1e3), (long)(fmod(ms, 1e3) * 1e6)};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

mmt_status mmt_bench_time_cool(mmt_bench *b, mmt_gemm_fn ours, void *ours_user, mmt_gemm_fn other, void *other_user,
                               double call_ms, mmt_cool *out, mmt_err *err)
{
    memset(out, 0, sizeof *out);
    const double sample_ms = fmax(call_ms, COOL_SAMPLE_MS);
    const double fit = (COOL_BUDGET_MS - COOL_FIRST_IDLE_MS) / (2 * (1 + COOL_IDLE) * sample_ms);
    if (!(call_ms > 0) || fit < COOL_MIN_ROUNDS) return MMT_OK;
    const int n = fit > COOL_MAX_ROUNDS ? COOL_MAX_ROUNDS : (int)fit;
    const int reps = reps_for(sample_ms, call_ms);
    timed_call call[2] = {{b, ours, ours_user}, {b, other, other_user}};
    double s[2][COOL_MAX_ROUNDS];
    idle_ms(COOL_FIRST_IDLE_MS); /* the power the rounds before drew leaves the GPU's average */
    for (int r = 0; r < n; r++) {
        const int first_set = b->next_set;
        for (int j = 0; j < 2; j++) {
            const int i = r % 2 ? 1 - j : j;
            idle_ms(COOL_IDLE * sample_ms);
            b->next_set = first_set;
            FORWARD_IF_ERROR(b->be->elapsed(run_next_set, &call[i], reps, b->stream, &s[i][r], err));
        }
    }
    out->ours_ms = mmt_stats_median(s[0], (size_t)n);
    out->other_ms = mmt_stats_median(s[1], (size_t)n);
    out->rounds = n;
    return MMT_OK;
}

int64_t mmt_bench_cache_bytes(const mmt_device_info *dev)
{
    int64_t total = 0, v;
    static const char *const levels[] = {"l2_bytes", "l3_bytes", NULL};
    for (int i = 0; levels[i]; i++)
        if (mmt_device_get_prop(dev, levels[i], strlen(levels[i]), &v) == 0) total += v;
    return total;
}
