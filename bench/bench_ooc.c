/* bench_ooc.c - the out-of-core GEMM (mmt_gemm_ex on host matrices, src/ooc.c) timed on one
 * GPU context against
 *   kernels: the same tile kernels on device-resident data (each tile's panels run in turn
 *            on device buffers, no copies): the copy overhead is ooc / kernels - 1;
 *   device:  the whole problem on device-resident data, one call after a warm-up (where it
 *            fits; --no-device leaves it out);
 *   cuBLASXt: cublasXtSgemm / cublasXtDgemm on the same host matrices (fp32, f32x3's row
 *            too, and fp64: cuBLASXt has no tf32 or bf16 GEMM), opened with dlopen.
 * The out-of-core call is timed after a warm-up call (kernels built, buffers made), whose
 * kernels the device-data pass reuses; cuBLASXt after one of at most 1024^3 (within the
 * matrices). A sample of C is checked against a double dot product. Prints the command
 * line, then a table.
 *   bench_ooc [--device N] [--db FILE] [--modes fp32,tf32,f32x3,bf16,fp64] [--no-xt]
 *             [--no-device] [--devices all|0,1] [--pinned] SIZE...   (SIZE: N for N^3, or MxNxK)
 * --pinned puts the host matrices in pinned memory (cuMemHostAlloc), which the copies read
 * and write in place; without it they are malloc'd and packed through staging. The knobs
 * of the out-of-core GEMM come from MMTUNE_OOC_* (mmtuned.h). Exits 77 without a
 * GPU. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "bench.h"
#include "clock.h"
#include "ooc_plan.h"
#include "mmtuned.h"

typedef struct mode {
    const char *name;
    mmt_dtype ab, c;
    mmt_compute compute;
} mode;

static const mode modes[] = {
    {"fp32", MMT_F32, MMT_F32, MMT_COMPUTE_NATIVE}, {"tf32", MMT_F32, MMT_F32, MMT_COMPUTE_TF32},
    {"f32x3", MMT_F32, MMT_F32, MMT_COMPUTE_F32X3}, {"bf16", MMT_BF16, MMT_F32, MMT_COMPUTE_NATIVE},
    {"fp64", MMT_F64, MMT_F64, MMT_COMPUTE_NATIVE},
};

static int ordinal; /* the context's GPU */
static int pinned;  /* --pinned: host matrices in pinned memory, which the copies read in place */

/* count random elements of t (bench.h's inputs: never zero), malloc'd or pinned. */
static void *host_matrix(mmt_dtype t, size_t count, unsigned seed)
{
    void *x = NULL;
    mmt_err e;
    if (!pinned) x = malloc(count * mmt_dtype_size(t));
    else if (mmt_cuda_async_api()->host_alloc(ordinal, count * mmt_dtype_size(t), &x, &e) != MMT_OK) x = NULL;
    if (x) mmt_bench_fill_random(x, count, t, seed);
    return x;
}

static void free_matrices(void *a, void *b, void *c)
{
    void *x[3] = {a, b, c};
    for (int i = 0; i < 3; i++)
        if (!pinned) free(x[i]);
        else mmt_cuda_async_api()->host_free(ordinal, x[i]);
}

/* ---- cuBLASXt through dlopen (values from cublas_api.h) ---------------------------------------- */
typedef struct xt {
    void *lib, *h;
    int (*destroy)(void *);
    int (*sgemm)(void *, int, int, size_t, size_t, size_t, const float *, const float *, size_t, const float *,
                 size_t, const float *, float *, size_t);
    int (*dgemm)(void *, int, int, size_t, size_t, size_t, const double *, const double *, size_t, const double *,
                 size_t, const double *, double *, size_t);
} xt;

static int xt_open(xt *x, int n_devices, int *devices)
{
    static const char *const names[] = {"libcublas.so.13", "libcublas.so.12", "libcublas.so",
                                        "/usr/local/cuda/lib64/libcublas.so.13",
                                        "/usr/local/cuda/lib64/libcublas.so.12", NULL};
    memset(x, 0, sizeof *x);
    for (int i = 0; names[i] && !x->lib; i++) x->lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (!x->lib) return -1;
    int (*create)(void **) = (int (*)(void **))dlsym(x->lib, "cublasXtCreate");
    int (*select)(void *, int, int *) = (int (*)(void *, int, int *))dlsym(x->lib, "cublasXtDeviceSelect");
    *(void **)&x->destroy = dlsym(x->lib, "cublasXtDestroy");
    *(void **)&x->sgemm = dlsym(x->lib, "cublasXtSgemm");
    *(void **)&x->dgemm = dlsym(x->lib, "cublasXtDgemm");
    if (!create || !select || !x->destroy || !x->sgemm || !x->dgemm || create(&x->h) != 0) return -1;
    return select(x->h, n_devices, devices) == 0 ? 0 : -1;
}

/* The row-major product as cuBLASXt's column-major one: C^T = B^T A^T. */
static int xt_gemm(xt *x, mmt_dtype t, int64_t m, int64_t n, int64_t k, const void *a, const void *b, void *c)
{
    if (t == MMT_F32) {
        const float one = 1, zero = 0;
        return x->sgemm(x->h, 0, 0, n, m, k, &one, b, n, a, k, &zero, c, n);
    }
    const double one = 1, zero = 0;
    return x->dgemm(x->h, 0, 0, n, m, k, &one, b, n, a, k, &zero, c, n);
}

/* ---- one row of the table ------------------------------------------------------------------- */

/* The largest relative error of 64 sampled elements of C (row-major m x n). */
static double sample_error(const mode *md, int64_t m, int64_t n, int64_t k, const void *a, const void *b,
                           const void *c)
{
    double worst = 0;
    for (int s = 0; s < 64; s++) {
        const int64_t i = (int64_t)((s * 7919ull) % (uint64_t)m), j = (int64_t)((s * 104729ull) % (uint64_t)n);
        double sum = 0, scale = 0;
        for (int64_t l = 0; l < k; l++) {
            const double p = mmt_bench_elem(a, md->ab, (size_t)(i * k + l)) * mmt_bench_elem(b, md->ab, (size_t)(l * n + j));
            sum += p;
            scale += fabs(p);
        }
        const double e = fabs(mmt_bench_elem(c, md->c, (size_t)(i * n + j)) - sum) / (scale > 0 ? scale : 1);
        if (!(e <= worst)) worst = e;
    }
    return worst;
}

static int64_t knob(const char *config, const char *name)
{
    const char *at = strstr(config, name);
    return at ? atoll(at + strlen(name)) : 0;
}

static void bench(mmt_ctx *ctx, const mmt_backend *be, xt *x, int whole, const mode *md, int64_t m, int64_t n, int64_t k)
{
    const mmt_cuda_async *cu = mmt_cuda_async_api();
    const mmt_gemm_desc d = {md->ab, md->c, md->compute, MMT_ROW_MAJOR, MMT_NO_TRANS, MMT_NO_TRANS};
    const double flops = 2.0 * m * n * k;
    void *a = host_matrix(md->ab, (size_t)(m * k), 1), *b = host_matrix(md->ab, (size_t)(k * n), 2);
    void *c = host_matrix(md->c, (size_t)(m * n), 3);
    if (!a || !b || !c) {
        printf("%-6s %lldx%lldx%lld: not enough host memory\n", md->name, (long long)m, (long long)n, (long long)k);
        free_matrices(a, b, c);
        return;
    }
    /* out of core: a warm-up, then the timed call */
    mmt_status st = mmt_gemm_ex(ctx, &d, m, n, k, 1.0, a, k, b, n, 0.0, c, n);
    double t0 = mmt_now_s();
    if (st == MMT_OK) st = mmt_gemm_ex(ctx, &d, m, n, k, 1.0, a, k, b, n, 0.0, c, n);
    const double t_ooc = mmt_now_s() - t0;
    if (st != MMT_OK) {
        printf("%-6s %lldx%lldx%lld: %s: %s\n", md->name, (long long)m, (long long)n, (long long)k,
               mmt_status_string(st), mmt_last_error(ctx));
        free_matrices(a, b, c);
        return;
    }
    const char *cfg;
    mmt_last_choice(ctx, &cfg);
    char config[512];
    snprintf(config, sizeof config, "%s", cfg);
    const double err = sample_error(md, m, n, k, a, b, c);

    /* the same kernels on device data: every tile's panels in turn, tiles cut at the edges */
    const int64_t tm = knob(config, "OOC_TILE_M="), tn = knob(config, "OOC_TILE_N="), pk = knob(config, "OOC_PANEL_K=");
    double t_kern = NAN, t_dev = NAN;
    mmt_err e;
    void *da = NULL, *db = NULL, *dc = NULL;
    const int ea = mmt_dtype_size(md->ab), ec = mmt_dtype_size(md->c);
    if (tm > 0 && tn > 0 && pk > 0 && cu->dev_alloc(ordinal, (size_t)(tm * pk * ea), &da, &e) == MMT_OK &&
        cu->dev_alloc(ordinal, (size_t)(pk * tn * ea), &db, &e) == MMT_OK &&
        cu->dev_alloc(ordinal, (size_t)(tm * tn * ec), &dc, &e) == MMT_OK) {
        { /* the out-of-core calls built these kernels already */
            t0 = mmt_now_s();
            for (int64_t i = 0; i < m && st == MMT_OK; i += tm)
                for (int64_t j = 0; j < n && st == MMT_OK; j += tn)
                    for (int64_t l = 0; l < k && st == MMT_OK; l += pk) {
                        const int64_t r = m - i < tm ? m - i : tm, cl = n - j < tn ? n - j : tn,
                                      dp = k - l < pk ? k - l : pk;
                        st = mmt_gemm_ex(ctx, &d, r, cl, dp, 1.0, da, dp, db, cl, l ? 1.0 : 0.0, dc, cl);
                    }
            if (st == MMT_OK) st = be->sync(NULL, &e);
            t_kern = mmt_now_s() - t0;
        }
    }
    cu->dev_free(ordinal, da), cu->dev_free(ordinal, db), cu->dev_free(ordinal, dc);
    da = db = dc = NULL;
    /* the whole problem on device data, where it fits */
    if (st == MMT_OK && whole && cu->dev_alloc(ordinal, (size_t)(m * k * ea), &da, &e) == MMT_OK &&
        cu->dev_alloc(ordinal, (size_t)(k * n * ea), &db, &e) == MMT_OK &&
        cu->dev_alloc(ordinal, (size_t)(m * n * ec), &dc, &e) == MMT_OK) {
        for (int rep = 0; rep < 2 && st == MMT_OK; rep++) {
            t0 = mmt_now_s();
            st = mmt_gemm_ex(ctx, &d, m, n, k, 1.0, da, k, db, n, 0.0, dc, n);
            if (st == MMT_OK) st = be->sync(NULL, &e);
            t_dev = mmt_now_s() - t0;
        }
    }
    cu->dev_free(ordinal, da), cu->dev_free(ordinal, db), cu->dev_free(ordinal, dc);
    if (st != MMT_OK) printf("device-resident run: %s: %s\n", mmt_status_string(st), mmt_last_error(ctx));
    /* cuBLASXt on the same host matrices */
    double t_xt = NAN;
    if (x && (md->ab == MMT_F32 || md->ab == MMT_F64) && md->compute != MMT_COMPUTE_TF32) {
        int64_t w = m < n ? m : n; /* a warm-up, cuBLASXt's own set-up, within every matrix */
        if (k < w) w = k;
        if (w > 1024) w = 1024;
        if (xt_gemm(x, md->ab, w, w, w, a, b, c) == 0) {
            t0 = mmt_now_s();
            if (xt_gemm(x, md->ab, m, n, k, a, b, c) == 0) t_xt = mmt_now_s() - t0;
        }
    }
    printf("%-6s %6lld %6lld %6lld %9.3f %8.1f %9.3f %8.1f%% %9.3f %9.3f %8.2fx %9.1e  %s\n", md->name, (long long)m,
           (long long)n, (long long)k, t_ooc, flops / t_ooc * 1e-12, t_kern, (t_ooc / t_kern - 1) * 100, t_dev, t_xt,
           t_xt / t_ooc, err, config);
    fflush(stdout);
    free_matrices(a, b, c);
}

int main(int argc, char **argv)
{
    const char *device = "0", *db = NULL, *list = "fp32,tf32,f32x3,bf16", *devices = NULL;
    int use_xt = 1, whole = 1, first_size = argc;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--device") == 0 && i + 1 < argc) device = argv[++i];
        else if (strcmp(argv[i], "--db") == 0 && i + 1 < argc) db = argv[++i];
        else if (strcmp(argv[i], "--modes") == 0 && i + 1 < argc) list = argv[++i];
        else if (strcmp(argv[i], "--devices") == 0 && i + 1 < argc) devices = argv[++i];
        else if (strcmp(argv[i], "--no-xt") == 0) use_xt = 0;
        else if (strcmp(argv[i], "--no-device") == 0) whole = 0;
        else if (strcmp(argv[i], "--pinned") == 0) pinned = 1;
        else if (argv[i][0] == '-') {
            fprintf(stderr, "usage: bench_ooc [--device N] [--db FILE] [--modes fp32,tf32,f32x3,bf16,fp64] [--no-xt] "
                            "[--no-device] [--devices all|0,1] [--pinned] SIZE... (N or MxNxK)\n");
            return 2;
        } else if (first_size == argc) first_size = i;
    }
    if (first_size == argc) {
        fprintf(stderr, "bench_ooc: give at least one size (N for N^3, or MxNxK)\n");
        return 2;
    }
    mmt_err e;
    const mmt_backend *be = mmt_backend_cuda(&e);
    if (!be || be->device_count() == 0) {
        printf("bench_ooc: no GPU: skipped\n");
        return 77;
    }
    mmt_ctx *ctx = NULL;
    mmt_status st = mmt_open(&ctx, device, db);
    const mmt_host_gemm_config cfg = {.devices = devices};
    if (st == MMT_OK && devices) st = mmt_set_host_gemm(ctx, &cfg);
    if (st != MMT_OK) {
        fprintf(stderr, "bench_ooc: %s: %s\n", mmt_status_string(st), mmt_last_error(ctx));
        mmt_close(ctx);
        return 1;
    }
    printf("#");
    for (int i = 0; i < argc; i++) printf(" %s", argv[i]);
    const char *knobs[] = {"MMTUNE_OOC_TILE", "MMTUNE_OOC_PANEL", "MMTUNE_OOC_STREAMS", "MMTUNE_OOC_DEVICES"};
    for (int i = 0; i < 4; i++)
        if (getenv(knobs[i])) printf("  %s=%s", knobs[i], getenv(knobs[i]));
    printf("\n# ooc: host matrices out of core; kernels: the same tile kernels on device data (no copies); "
           "overhead: ooc / kernels - 1; device: the whole problem on device data; xt: cuBLASXt; err: sampled\n");
    printf("%-6s %6s %6s %6s %9s %8s %9s %9s %9s %9s %9s %9s  %s\n", "mode", "m", "n", "k", "ooc s", "TFLOP/s",
           "kernels s", "overhead", "device s", "xt s", "xt/ooc", "err", "configuration");
    int gpus[64], n_gpus = 1;
    gpus[0] = ordinal = atoi(strncmp(device, "cuda:", 5) == 0 ? device + 5 : device);
    const char *bad = devices ? mmt_ooc_parse_devices(devices, be->device_count(), 64, gpus, &n_gpus) : NULL;
    if (bad) { /* mmt_set_host_gemm accepted the list: it is the same parser */
        fprintf(stderr, "bench_ooc: --devices %s: %s\n", devices, bad);
        mmt_close(ctx);
        return 2;
    }
    xt x;
    const int have_xt = use_xt && xt_open(&x, n_gpus, gpus) == 0;
    if (use_xt && !have_xt) printf("# cuBLASXt is not available\n");
    for (int i = first_size; i < argc; i++) {
        long long m = 0, n = 0, k = 0;
        if (sscanf(argv[i], "%lldx%lldx%lld", &m, &n, &k) != 3) m = n = k = atoll(argv[i]);
        if (m <= 0 || n <= 0 || k <= 0) {
            fprintf(stderr, "bench_ooc: %s: a size is N or MxNxK\n", argv[i]);
            continue;
        }
        char modes_list[256];
        snprintf(modes_list, sizeof modes_list, "%s", list);
        for (char *save = NULL, *name = strtok_r(modes_list, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
            const mode *md = NULL;
            for (size_t j = 0; j < sizeof modes / sizeof modes[0]; j++)
                if (strcmp(modes[j].name, name) == 0) md = &modes[j];
            if (!md) fprintf(stderr, "bench_ooc: unknown mode %s (fp32 tf32 f32x3 bf16 fp64)\n", name);
            else bench(ctx, be, have_xt ? &x : NULL, whole, md, m, n, k);
        }
    }
    if (have_xt) x.destroy(x.h);
    mmt_close(ctx);
    return 0;
}
