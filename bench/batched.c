/* batched.c - a strided batch on the CPU: libmmtuned's mmt_gemm_strided_batched against
 * OpenBLAS's cblas_?gemm called GEMM by GEMM in a loop (the vendor as an application calls
 * it, on its own threads), and OpenBLAS's cblas_?gemm_batch_strided where the installed one
 * has it. With nothing tuned, libmmtuned's batch is timed as it serves by default (OpenBLAS,
 * the safe choice for a shape nobody tuned) and with the vendor off (the CPU template's
 * default), and beside them mmt_gemm_ex called GEMM by GEMM (the path of a batch run one
 * after another). Every implementation's result is checked against a long double reference
 * first; then rounds of R back-to-back batches of each, the order reversed every other round
 * (A B C D, D C B A, ...), 15 rounds. Row-major, no transposes, the matrices packed.
 *   batched [MODE:BATCHxMxNxK ...]  (default: f32 and f64, 4000x8x8x8 to 16x256x256x64)
 * Prints per shape the median time of a batch of each, the OpenBLAS loop's time over
 * libmmtuned's, and what served libmmtuned's batches. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "clock.h"
#include "device.h"
#include "mmtuned.h"
#include "problem.h"
#include "stats.h"
#include "vendor.h"

enum { ROUNDS = 15, CBLAS_ROW_MAJOR = 101, CBLAS_NO_TRANS = 111 };
#define ROUND_S 0.02 /* a round of one implementation takes about this long */

typedef void (*sgemm_fn)(int, int, int, int, int, int, float, const float *, int, const float *, int, float, float *,
                         int);
typedef void (*dgemm_fn)(int, int, int, int, int, int, double, const double *, int, const double *, int, double,
                         double *, int);
typedef void (*sbatch_fn)(int, int, int, int, int, int, float, const float *, int, int, const float *, int, int, float,
                          float *, int, int, int);
typedef void (*dbatch_fn)(int, int, int, int, int, int, double, const double *, int, int, const double *, int, int,
                          double, double *, int, int, int);

static struct {
    sgemm_fn sgemm;
    dgemm_fn dgemm;
    sbatch_fn sbatch; /* NULL where OpenBLAS has none */
    dbatch_fn dbatch;
} blas;

typedef struct shape {
    mmt_mode mode;
    int64_t batch, m, n, k;
} shape;

/* The implementations, in the order of a round. */
enum { LIB_DEFAULT, LIB_TEMPLATE, LIB_LOOP, OPENBLAS_LOOP, OPENBLAS_BATCH, WAYS };
static const char *const way_name[WAYS] = {"libmmtuned", "libmmtuned, vendor off", "mmt_gemm_ex GEMM by GEMM",
                                           "OpenBLAS GEMM by GEMM", "OpenBLAS batch_strided"};

static mmt_ctx *ctx[2]; /* LIB_DEFAULT, LIB_TEMPLATE */

static void die(const char *what, const char *msg)
{
    fprintf(stderr, "batched: %s: %s\n", what, msg);
    exit(1);
}

/* One batch of s by implementation w, C = A B (beta 0). */
static void run(int w, const shape *s, const void *a, const void *b, void *c)
{
    const int f64 = s->mode == MMT_MODE_F64, m = (int)s->m, n = (int)s->n, k = (int)s->k;
    const int64_t sa = s->m * s->k, sb = s->k * s->n, sc = s->m * s->n, es = f64 ? 8 : 4;
    if (w == LIB_DEFAULT || w == LIB_TEMPLATE) {
        const mmt_dtype t = f64 ? MMT_F64 : MMT_F32;
        const mmt_gemm_desc d = {t, t, MMT_COMPUTE_NATIVE, MMT_ROW_MAJOR, MMT_NO_TRANS, MMT_NO_TRANS};
        if (mmt_gemm_strided_batched(ctx[w], &d, m, n, k, 1, a, k, sa, b, n, sb, 0, c, n, sc, s->batch) != MMT_OK)
            die("mmt_gemm_strided_batched", mmt_last_error(ctx[w]));
    } else if (w == LIB_LOOP) {
        const mmt_dtype t = f64 ? MMT_F64 : MMT_F32;
        const mmt_gemm_desc d = {t, t, MMT_COMPUTE_NATIVE, MMT_ROW_MAJOR, MMT_NO_TRANS, MMT_NO_TRANS};
        for (int64_t i = 0; i < s->batch; i++)
            if (mmt_gemm_ex(ctx[LIB_DEFAULT], &d, m, n, k, 1, (const char *)a + i * sa * es, k,
                            (const char *)b + i * sb * es, n, 0, (char *)c + i * sc * es, n) != MMT_OK)
                die("mmt_gemm_ex", mmt_last_error(ctx[LIB_DEFAULT]));
    } else if (w == OPENBLAS_LOOP) {
        for (int64_t i = 0; i < s->batch; i++) {
            const char *ai = (const char *)a + i * sa * es, *bi = (const char *)b + i * sb * es;
            char *ci = (char *)c + i * sc * es;
            if (f64)
                blas.dgemm(CBLAS_ROW_MAJOR, CBLAS_NO_TRANS, CBLAS_NO_TRANS, m, n, k, 1, (const double *)ai, k,
                           (const double *)bi, n, 0, (double *)ci, n);
            else
                blas.sgemm(CBLAS_ROW_MAJOR, CBLAS_NO_TRANS, CBLAS_NO_TRANS, m, n, k, 1, (const float *)ai, k,
                           (const float *)bi, n, 0, (float *)ci, n);
        }
    } else if (f64) {
        blas.dbatch(CBLAS_ROW_MAJOR, CBLAS_NO_TRANS, CBLAS_NO_TRANS, m, n, k, 1, a, k, (int)sa, b, n, (int)sb, 0, c, n,
                    (int)sc, (int)s->batch);
    } else {
        blas.sbatch(CBLAS_ROW_MAJOR, CBLAS_NO_TRANS, CBLAS_NO_TRANS, m, n, k, 1, a, k, (int)sa, b, n, (int)sb, 0, c, n,
                    (int)sc, (int)s->batch);
    }
}

/* Element i of x (f64 or f32) as a long double. */
static long double at(const void *x, int f64, int64_t i)
{
    return f64 ? ((const double *)x)[i] : ((const float *)x)[i];
}

/* Whether every C_i of c is within the rounding bound of its long double reference: 2 k eps
 * times the sum of |a||b| of each element. */
static int verified(const shape *s, const void *a, const void *b, const void *c, double *worst)
{
    const int f64 = s->mode == MMT_MODE_F64;
    const long double eps = f64 ? 0x1p-53L : 0x1p-24L;
    *worst = 0;
    for (int64_t g = 0; g < s->batch; g++)
        for (int64_t i = 0; i < s->m; i++)
            for (int64_t j = 0; j < s->n; j++) {
                long double sum = 0, mag = 0;
                for (int64_t p = 0; p < s->k; p++) {
                    const long double x = at(a, f64, g * s->m * s->k + i * s->k + p),
                                      y = at(b, f64, g * s->k * s->n + p * s->n + j);
                    sum += x * y, mag += fabsl(x * y);
                }
                const long double got = at(c, f64, g * s->m * s->n + i * s->n + j), e = fabsl(got - sum);
                if (!(e <= 2 * s->k * eps * mag + 1e-300L)) return 0;
                if (mag > 0 && e / (s->k * eps * mag) > *worst) *worst = (double)(e / (s->k * eps * mag));
            }
    return 1;
}

static void *filled(int f64, int64_t count, unsigned seed)
{
    void *x = malloc((size_t)count * (f64 ? 8 : 4));
    if (!x) die("malloc", "out of memory");
    for (int64_t i = 0; i < count; i++) {
        seed = seed * 1103515245u + 12345u;
        const double v = (double)(seed >> 8) / (1u << 24) - 0.5;
        if (f64) ((double *)x)[i] = v;
        else ((float *)x)[i] = (float)v;
    }
    return x;
}

static void bench_shape(const shape *s)
{
    const int f64 = s->mode == MMT_MODE_F64;
    void *a = filled(f64, s->batch * s->m * s->k, 1), *b = filled(f64, s->batch * s->k * s->n, 2);
    void *c = filled(f64, s->batch * s->m * s->n, 3);
    const int have_batch = f64 ? blas.dbatch != NULL : blas.sbatch != NULL;
    const int ways = have_batch ? WAYS : OPENBLAS_BATCH;
    char served[2][512];
    for (int w = 0; w < ways; w++) { /* each checked first, its kernels built and loaded */
        memset(c, 0xff, (size_t)(s->batch * s->m * s->n * (f64 ? 8 : 4))); /* NaN: beta 0 must not read it */
        run(w, s, a, b, c);
        if (w == LIB_DEFAULT || w == LIB_TEMPLATE) {
            mmt_wait_kernels(ctx[w], NULL);
            run(w, s, a, b, c);
            const char *config = "";
            mmt_choice how = mmt_last_choice(ctx[w], &config);
            static const char *const names[] = {"none", "exact", "nearest", "default", "vendor"};
            snprintf(served[w], sizeof served[w], "%s: %s", names[how], config);
        }
        double worst;
        if (!verified(s, a, b, c, &worst)) die(way_name[w], "a wrong result");
    }
    /* R batches a round: about ROUND_S seconds of the OpenBLAS loop */
    double t0 = mmt_now_s();
    run(OPENBLAS_LOOP, s, a, b, c);
    const double one = mmt_now_s() - t0;
    const int reps = one > ROUND_S ? 1 : (int)(ROUND_S / (one > 1e-7 ? one : 1e-7));
    double us[WAYS][ROUNDS];
    for (int r = 0; r < ROUNDS; r++)
        for (int i = 0; i < ways; i++) {
            const int w = r % 2 ? ways - 1 - i : i;
            t0 = mmt_now_s();
            for (int j = 0; j < reps; j++) run(w, s, a, b, c);
            us[w][r] = 1e6 * (mmt_now_s() - t0) / reps;
        }
    double med[WAYS];
    for (int w = 0; w < ways; w++) med[w] = mmt_stats_median(us[w], ROUNDS);
    printf("%s %lld x %lldx%lldx%lld (%d batches a round):", mmt_mode_name(s->mode), (long long)s->batch,
           (long long)s->m, (long long)s->n, (long long)s->k, reps);
    for (int w = 0; w < ways; w++) printf("%s %s %.1f us", w ? "," : "", way_name[w], med[w]);
    printf("\n  OpenBLAS GEMM by GEMM / libmmtuned %.2fx (served by %s), / vendor off %.2fx (%s)",
           med[OPENBLAS_LOOP] / med[LIB_DEFAULT], served[LIB_DEFAULT], med[OPENBLAS_LOOP] / med[LIB_TEMPLATE],
           served[LIB_TEMPLATE]);
    if (have_batch) printf(", OpenBLAS batch_strided / libmmtuned %.2fx", med[OPENBLAS_BATCH] / med[LIB_DEFAULT]);
    printf("\n");
    free(a), free(b), free(c);
}

int main(int argc, char **argv)
{
    static const shape defaults[] = {
        {MMT_MODE_F32, 4000, 8, 8, 8},  {MMT_MODE_F32, 256, 32, 32, 32}, {MMT_MODE_F32, 64, 64, 64, 64},
        {MMT_MODE_F32, 16, 256, 256, 64}, {MMT_MODE_F64, 4000, 8, 8, 8},  {MMT_MODE_F64, 256, 32, 32, 32},
        {MMT_MODE_F64, 64, 64, 64, 64}, {MMT_MODE_F64, 16, 256, 256, 64},
    };
    shape given[32];
    const shape *shapes = defaults;
    int n_shapes = sizeof defaults / sizeof defaults[0];
    if (argc > 1) {
        n_shapes = 0;
        for (int i = 1; i < argc && n_shapes < 32; i++) {
            char mode[16];
            long long batch, m, n, k;
            shape *s = &given[n_shapes++];
            if (sscanf(argv[i], "%15[^:]:%lldx%lldx%lldx%lld", mode, &batch, &m, &n, &k) != 5 ||
                mmt_mode_parse(mode, &s->mode) || (s->mode != MMT_MODE_F32 && s->mode != MMT_MODE_F64) || batch < 1 ||
                m < 1 || n < 1 || k < 1 || m * n > 1 << 28 || m * k > 1 << 28 || k * n > 1 << 28)
                die(argv[i], "not MODE:BATCHxMxNxK with MODE f32 or f64 (f32:64x64x64x64, say)");
            s->batch = batch, s->m = m, s->n = n, s->k = k;
        }
        shapes = given;
    }
    setenv("MMTUNE_DB", "/nonexistent/mmtune-batched.db", 1); /* nothing tuned */
    mmt_device_info dev;
    mmt_err err;
    if (mmt_backend_cpu.probe(0, &dev, &err) != MMT_OK) die("cpu", err.msg);
    mmt_vendor *v; /* OpenBLAS, as libmmtuned and the other benchmarks open it */
    if (mmt_vendor_open(&mmt_backend_cpu, &dev, &v, &err) != MMT_OK) die("OpenBLAS", err.msg);
    void *lib = dlopen("libopenblas.so.0", RTLD_NOW | RTLD_NOLOAD);
    if (!lib) lib = dlopen("libopenblas.so", RTLD_NOW | RTLD_NOLOAD);
    if (!lib) die("OpenBLAS", "not loaded");
    *(void **)&blas.sgemm = dlsym(lib, "cblas_sgemm"), *(void **)&blas.dgemm = dlsym(lib, "cblas_dgemm");
    *(void **)&blas.sbatch = dlsym(lib, "cblas_sgemm_batch_strided");
    *(void **)&blas.dbatch = dlsym(lib, "cblas_dgemm_batch_strided");
    char *(*corename)(void);
    *(void **)&corename = dlsym(lib, "openblas_get_corename");
    if (mmt_open(&ctx[LIB_DEFAULT], "cpu", NULL) != MMT_OK) die("mmt_open", mmt_last_error(ctx[LIB_DEFAULT]));
    setenv("MMTUNE_VENDOR", "off", 1); /* read when a context opens */
    if (mmt_open(&ctx[LIB_TEMPLATE], "cpu", NULL) != MMT_OK) die("mmt_open", mmt_last_error(ctx[LIB_TEMPLATE]));
    unsetenv("MMTUNE_VENDOR");
    printf("%s, %d cores; %s (%s kernels)%s; %d rounds, the order reversed every other round\n", dev.name,
           mmt_usable_cores(), mmt_vendor_name(v), corename ? corename() : "?",
           blas.sbatch ? "" : ", which has no cblas_?gemm_batch_strided", ROUNDS);
    for (int i = 0; i < n_shapes; i++) bench_shape(&shapes[i]);
    mmt_close(ctx[LIB_DEFAULT]);
    mmt_close(ctx[LIB_TEMPLATE]);
    dlclose(lib);
    mmt_vendor_close(v);
    return 0;
}
