/* bench.c - inputs, reference, verification and timing of one problem (see bench.h). */
#include "bench.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel.h"
#include "problem.h"
#include "resource.h"

static uint64_t next_random(uint64_t *s)
{
    /* xorshift64*: cheap, and plenty for test data */
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 0x2545F4914F6CDD1Dull;
}

/* Uniform in [-1, 1), never all zero; a fixed seed per set keeps runs comparable. */
static void fill_random(void *buf, size_t count, mmt_dtype dt, uint64_t seed)
{
    uint64_t s = seed * 0x9E3779B97F4A7C15ull + 1;
    for (size_t i = 0; i < count; i++) {
        double v = (double)(next_random(&s) >> 11) * (2.0 / 9007199254740992.0) - 1.0;
        if (dt == MMT_F64) ((double *)buf)[i] = v;
        else ((float *)buf)[i] = (float)v;
    }
}

static double elem(const void *buf, mmt_dtype dt, size_t i)
{
    return dt == MMT_F64 ? ((const double *)buf)[i] : (double)((const float *)buf)[i];
}

/* op(X) of set 0 as a dense row-major double matrix (rows x cols). */
static double *as_double(const void *x, mmt_dtype dt, int trans, int64_t rows, int64_t cols, int64_t ld)
{
    double *d = malloc(sizeof(double) * rows * cols);
    if (!d) return NULL;
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < rows; i++)
        for (int64_t j = 0; j < cols; j++) d[i * cols + j] = elem(x, dt, trans ? j * ld + i : i * ld + j);
    return d;
}

/* R = A B in double. Products of floats are exact in double, so an f32 problem's
 * reference is good to far below f32 rounding. */
static void ref_gemm(const double *A, const double *B, double *R, int64_t m, int64_t n, int64_t k)
{
    memset(R, 0, sizeof(double) * m * n);
#pragma omp parallel for schedule(dynamic)
    for (int64_t i0 = 0; i0 < m; i0 += 16)
        for (int64_t k0 = 0; k0 < k; k0 += 256)
            for (int64_t j0 = 0; j0 < n; j0 += 1024) {
                int64_t i1 = i0 + 16 < m ? i0 + 16 : m, k1 = k0 + 256 < k ? k0 + 256 : k,
                        j1 = j0 + 1024 < n ? j0 + 1024 : n;
                for (int64_t i = i0; i < i1; i++)
                    for (int64_t kk = k0; kk < k1; kk++) {
                        double a = A[i * k + kk];
                        const double *b = B + kk * n;
                        double *r = R + i * n;
                        for (int64_t j = j0; j < j1; j++) r[j] += a * b[j];
                    }
            }
}

/* R = A B with compensated (double-double) accumulation, for f64 problems: TwoProduct
 * by FMA and TwoSum. Contraction into FMA would break the error-free transformations. */
__attribute__((optimize("fp-contract=off"))) static void ref_gemm_compensated(const double *A, const double *B,
                                                                              double *R, int64_t m, int64_t n,
                                                                              int64_t k)
{
#pragma omp parallel for schedule(dynamic)
    for (int64_t i = 0; i < m; i++) {
        double *r = R + i * n;
        double *e = calloc(n, sizeof(double));
        memset(r, 0, sizeof(double) * n);
        for (int64_t kk = 0; kk < k; kk++) {
            double a = A[i * k + kk];
            const double *b = B + kk * n;
            for (int64_t j = 0; j < n; j++) {
                double p = a * b[j], pe = fma(a, b[j], -p);
                double s = r[j], t = s + p, z = t - s;
                e[j] += ((s - (t - z)) + (p - z)) + pe;
                r[j] = t;
            }
        }
        for (int64_t j = 0; j < n; j++) r[j] += e[j];
        free(e);
    }
}

double mmt_bench_error_bound(const mmt_problem *p)
{
    double u = p->dtype == MMT_F64 ? ldexp(1.0, -53) : ldexp(1.0, -24);
    return 8.0 * sqrt((double)(p->k > 1 ? p->k : 1)) * u;
}

void mmt_bench_free(mmt_bench *b)
{
    if (!b) return;
    for (int i = 0; i < b->n_sets; i++) {
        b->be->free(b->a[i]);
        b->be->free(b->b[i]);
        b->be->free(b->c[i]);
    }
    free(b->host_a);
    free(b->host_b);
    free(b->host_c);
    free(b->ref);
    free(b);
}

/* A backend that ships a reference template (templates/<backend>/gemm_ref.*, entry
 * mmt_gemm_ref64: op(A) op(B) accumulated in double, or double-double for f64, written as
 * doubles to the workspace; 16 x 16 blocks, one thread per element) computes the
 * reference of set 0 on its own device: a host reference of 8192^3 would take minutes.
 * *found is 0 if the backend has none (the host computes it). */
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
    snprintf(defines, sizeof defines, "MMT_DTYPE_F64=%d", p->dtype == MMT_F64);
    size_t bytes = sizeof(double) * p->m * p->n;
    mmt_status st = mmt_resource_read(path, &source, &n, err);
    if (st == MMT_OK)
        st = mmt_kernel_binary(b->be, b->dev, NULL, path + 10, source, defines, &bin, &n, &log, NULL, err);
    if (st == MMT_OK) st = b->be->load(b->dev, bin, n, "mmt_gemm_ref64", &mod, err);
    if (st == MMT_OK) st = b->be->alloc(b->dev, bytes, &ws, err);
    if (st == MMT_OK) {
        mmt_gemm_params g = {.m = p->m, .n = p->n, .k = p->k, .lda = b->lda, .ldb = b->ldb, .ldc = b->ldc,
                             .trans_a = p->trans_a, .trans_b = p->trans_b, .alpha = 1, .beta = 0, .a = b->a[0],
                             .b = b->b[0], .c = b->c[0], .workspace = ws, .workspace_size = (int64_t)bytes};
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
    const mmt_problem *p = &b->p;
    size_t es = (size_t)mmt_dtype_size(p->dtype);
    b->lda = p->trans_a ? p->m : p->k;
    b->ldb = p->trans_b ? p->k : p->n;
    b->ldc = p->n;
    b->a_bytes = es * p->m * p->k;
    b->b_bytes = es * p->k * p->n;
    b->c_bytes = es * p->m * p->n;
    size_t set_bytes = b->a_bytes + b->b_bytes + b->c_bytes;
    b->n_sets = (int)((2 * (size_t)cache_bytes + set_bytes - 1) / set_bytes);
    if (b->n_sets < 1) b->n_sets = 1;
    if (b->n_sets > MMT_BENCH_MAX_SETS) b->n_sets = MMT_BENCH_MAX_SETS;

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
        fill_random(b->host_a, p->m * p->k, p->dtype, 3 * i + 1);
        fill_random(b->host_b, p->k * p->n, p->dtype, 3 * i + 2);
        fill_random(b->host_c, p->m * p->n, p->dtype, 3 * i + 3);
        st = be->copy(b->a[i], b->host_a, b->a_bytes, MMT_H2D, err);
        if (st == MMT_OK) st = be->copy(b->b[i], b->host_b, b->b_bytes, MMT_H2D, err);
        if (st == MMT_OK) st = be->copy(b->c[i], b->host_c, b->c_bytes, MMT_H2D, err);
    }
    b->ref = st == MMT_OK ? malloc(sizeof(double) * p->m * p->n) : NULL;
    if (st == MMT_OK && !b->ref) st = mmt_err_set(err, MMT_OUT_OF_MEMORY, "out of host memory for the reference");
    int on_device = 0;
    if (st == MMT_OK) st = device_reference(b, &on_device, err);
    if (st == MMT_OK && !on_device) { /* set 0 again on the host: the reference is of set 0 */
        fill_random(b->host_a, p->m * p->k, p->dtype, 1);
        fill_random(b->host_b, p->k * p->n, p->dtype, 2);
        double *A = as_double(b->host_a, p->dtype, p->trans_a, p->m, p->k, b->lda);
        double *B = as_double(b->host_b, p->dtype, p->trans_b, p->k, p->n, b->ldb);
        if (!A || !B) st = mmt_err_set(err, MMT_OUT_OF_MEMORY, "out of host memory for the reference");
        else if (p->dtype == MMT_F64) ref_gemm_compensated(A, B, b->ref, p->m, p->n, p->k);
        else ref_gemm(A, B, b->ref, p->m, p->n, p->k);
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
                         .a = b->a[set], .b = b->b[set], .c = b->c[set]};
    return g;
}

mmt_status mmt_bench_verify(mmt_bench *b, mmt_gemm_fn fn, void *user, double *rel_error, int *ok, mmt_err *err)
{
    const mmt_problem *p = &b->p;
    int64_t count = p->m * p->n;
    for (int64_t i = 0; i < count; i++) {
        if (p->dtype == MMT_F64) ((double *)b->host_c)[i] = NAN;
        else ((float *)b->host_c)[i] = NAN;
    }
    FORWARD_IF_ERROR(b->be->copy(b->c[0], b->host_c, b->c_bytes, MMT_H2D, err));
    mmt_gemm_params g = params_of_set(b, 0, 0.0);
    FORWARD_IF_ERROR(fn(user, &g, b->stream, err));
    FORWARD_IF_ERROR(b->be->sync(b->stream, err));
    FORWARD_IF_ERROR(b->be->copy(b->host_c, b->c[0], b->c_bytes, MMT_D2H, err));
    double s = 0;
    for (int64_t i = 0; i < count; i++) {
        double d = elem(b->host_c, p->dtype, i) - b->alpha * b->ref[i];
        s += d * d; /* NaN stays NaN */
    }
    double norm = b->ref_norm > 0 ? b->ref_norm : 1.0;
    *rel_error = sqrt(s) / (fabs(b->alpha) * norm);
    *ok = *rel_error <= mmt_bench_error_bound(p); /* false for NaN */
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

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b;
}

static double median_of(const double *v, int n, double *scratch)
{
    memcpy(scratch, v, sizeof(double) * n);
    qsort(scratch, n, sizeof(double), cmp_double);
    return n % 2 ? scratch[n / 2] : 0.5 * (scratch[n / 2 - 1] + scratch[n / 2]);
}

enum { MIN_SAMPLES = 5, MAX_SAMPLES = 30, EARLY_SAMPLES = 2 };
static const double SAMPLE_MS = 20.0;    /* a sample is at least this long, so clock overhead vanishes */
static const double BUDGET_MS = 4000.0;  /* per candidate, past the minimum samples */
static const double STABLE = 0.005;      /* standard error of the median, relative */
static const double CLEARLY_SLOWER = 1.3;

mmt_status mmt_bench_time(mmt_bench *b, mmt_gemm_fn fn, void *user, double beat_ms, mmt_timing *t, mmt_err *err)
{
    timed_call call = {b, fn, user};
    double warm;
    FORWARD_IF_ERROR(b->be->elapsed(run_next_set, &call, 1, b->stream, &warm, err));
    int reps = warm > 0 ? (int)ceil(SAMPLE_MS / warm) : 1;
    if (reps < 1) reps = 1;
    if (reps > 1000) reps = 1000;

    double s[MAX_SAMPLES], scratch[MAX_SAMPLES], spent = 0;
    int n = 0;
    memset(t, 0, sizeof *t);
    while (n < MAX_SAMPLES) {
        FORWARD_IF_ERROR(b->be->elapsed(run_next_set, &call, reps, b->stream, &s[n], err));
        spent += s[n] * reps;
        n++;
        double med = median_of(s, n, scratch);
        if (beat_ms > 0 && n >= EARLY_SAMPLES && scratch[0] > CLEARLY_SLOWER * beat_ms) {
            t->stopped_early = 1;
            break;
        }
        if (n < MIN_SAMPLES) continue;
        double dev[MAX_SAMPLES];
        for (int i = 0; i < n; i++) dev[i] = fabs(s[i] - med);
        double mad = median_of(dev, n, scratch);
        double se = 1.4826 * mad * 1.2533 / sqrt((double)n);
        if (se / med < STABLE || spent > BUDGET_MS) break;
    }
    t->samples = n;
    t->median_ms = median_of(s, n, scratch);
    t->min_ms = scratch[0];
    t->max_ms = scratch[n - 1];
    return MMT_OK;
}
