/* call_cost.c - what a call through libmmtuned costs beyond the vendor library called
 * directly, where the vendor serves (nothing tuned): for small shapes, whose time is the
 * caller's own path, rounds of R back-to-back calls of each (the GPU: device memory, one
 * stream, waited for at the end of a round), alternated, 15 rounds; and on a GPU the parts
 * of libmmtuned's path that ask the driver (where a pointer lives, the current context),
 * alone and before the vendor's calls, and the vendor through the plan libmmtuned keeps
 * (cuBLASLt, cublaslt.h) called directly.
 *   call_cost [DEVICE (cpu)] [R (2000)] [MODE:MxNxK ...  (a set of small shapes)]
 * Prints per shape the median microseconds a call of each and their ratio. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "call_buffer.h"
#include "clock.h"
#include "mmtuned.h"
#include "problem.h"
#include "stats.h"
#include "vendor.h"

enum { ROUNDS = 15 };

static void die(const char *what, const char *msg)
{
    fprintf(stderr, "call_cost: %s: %s\n", what, msg);
    exit(1);
}

typedef struct shape {
    mmt_mode mode;
    int64_t m, n, k;
} shape;

typedef struct caller {
    mmt_ctx *ctx;
    mmt_vendor_call vendor;
    const mmt_backend *gpu; /* NULL on the CPU */
    void *a, *b, *c;
} caller;

/* Microseconds a call of R calls: through libmmtuned (how 0), the vendor (how 1), the vendor
 * after the three queries libmmtuned's GPU path makes of where A, B and C live (how 2), or
 * the vendor through libmmtuned's kept plan (how 3). */
enum { LIBMMTUNED, VENDOR, VENDOR_QUERIED, VENDOR_PLANNED };
static double round_us(const caller *cl, const shape *s, int how, int reps)
{
    const int direct = how != LIBMMTUNED;
    const mmt_cuda_async *async = how == VENDOR_QUERIED ? mmt_cuda_async_api() : NULL;
    mmt_vendor_call vendor = cl->vendor;
    vendor.route = how == VENDOR_PLANNED ? MMT_VENDOR_PLAN : MMT_VENDOR_CALL;
    mmt_err err;
    const mmt_dtype dtype = mmt_mode_dtype(s->mode);
    const mmt_gemm_desc desc = {.ab_type = dtype, .c_type = dtype, .layout = MMT_ROW_MAJOR,
                                .compute = mmt_mode_compute(s->mode),
                                .trans_a = MMT_NO_TRANS, .trans_b = MMT_NO_TRANS};
    const mmt_gemm_params gp = {.m = s->m, .n = s->n, .k = s->k, .lda = s->k, .ldb = s->n, .ldc = s->n,
                                .alpha = 1, .beta = 0, .a = cl->a, .b = cl->b, .c = cl->c};
    const double t0 = mmt_now_s();
    for (int i = 0; i < reps; i++) {
        if (async && async->is_host(cl->a) + async->is_host(cl->b) + async->is_host(cl->c)) die("query", "host?");
        mmt_status st = direct ? mmt_vendor_gemm(&vendor, &gp, NULL, &err)
                               : mmt_gemm_ex(cl->ctx, &desc, s->m, s->n, s->k, 1, cl->a, s->k, cl->b, s->n, 0, cl->c,
                                             s->n);
        if (st != MMT_OK) die(direct ? "vendor" : "libmmtuned", direct ? err.msg : mmt_last_error(cl->ctx));
    }
    if (cl->gpu && cl->gpu->sync(NULL, &err) != MMT_OK) die("sync", err.msg);
    return 1e6 * (mmt_now_s() - t0) / reps;
}

/* The driver queries of libmmtuned's GPU path, microseconds each. */
static void driver_parts(const caller *cl, int reps)
{
    const mmt_cuda_async *async = mmt_cuda_async_api();
    double t0 = mmt_now_s();
    int host = 0;
    for (int i = 0; i < reps; i++) host += async->is_host(i % 3 == 0 ? cl->a : i % 3 == 1 ? cl->b : cl->c);
    const double query = 1e6 * (mmt_now_s() - t0) / reps;
    t0 = mmt_now_s();
    for (int i = 0; i < reps; i++) {
        int pushed;
        if (mmt_cuda_context_enter(0, &pushed, NULL) != MMT_OK) die("context", "cannot enter");
        mmt_cuda_context_leave(pushed);
    }
    const double enter = 1e6 * (mmt_now_s() - t0) / reps;
    printf("driver: where a pointer lives %.3f us a query (%d of %d said host); the context entered and left "
           "%.3f us\n",
           query, host, reps, enter);
}

int main(int argc, char **argv)
{
    const char *device = argc > 1 ? argv[1] : "cpu";
    const int reps = argc > 2 ? atoi(argv[2]) : 2000;
    setenv("MMTUNE_DB", "/nonexistent/mmtune-call-cost.db", 1); /* nothing tuned: the vendor serves */
    const mmt_backend *be;
    int ordinal;
    mmt_device_info dev;
    mmt_err err;
    if (mmt_backend_for_device(device, &be, &ordinal, &err) != MMT_OK || be->probe(ordinal, &dev, &err) != MMT_OK)
        die(device, err.msg);
    caller cl = {.gpu = strcmp(be->name, "cpu") == 0 ? NULL : be};
    if (mmt_open(&cl.ctx, device, NULL) != MMT_OK) die("mmt_open", mmt_last_error(cl.ctx));
    mmt_vendor *v;
    if (mmt_vendor_open(be, &dev, &v, &err) != MMT_OK) die("vendor", err.msg);
    static const shape cpu[] = {{MMT_MODE_F32, 40, 30, 20}, {MMT_MODE_F32, 64, 64, 64}, {MMT_MODE_F64, 32, 32, 32}};
    static const shape gpu[] = {{MMT_MODE_F32, 64, 64, 64},      {MMT_MODE_F16, 64, 64, 64},
                                {MMT_MODE_F16, 256, 256, 256},   {MMT_MODE_F16, 1024, 512, 768},
                                {MMT_MODE_F64, 128, 128, 128},   {MMT_MODE_F32, 256, 256, 8192},
                                {MMT_MODE_F16, 512, 512, 4096},  {MMT_MODE_F16, 96, 640, 1024},
                                {MMT_MODE_TF32, 512, 512, 4096}, {MMT_MODE_F16, 512, 4096, 1024}};
    const shape *shapes = cl.gpu ? gpu : cpu;
    int n_shapes = cl.gpu ? 10 : 3;
    shape given[32];
    if (argc > 3) { /* the caller's shapes */
        n_shapes = 0;
        for (int i = 3; i < argc && n_shapes < 32; i++) {
            char mode[16];
            long long m, n, k;
            shape *s = &given[n_shapes++];
            if (sscanf(argv[i], "%15[^:]:%lldx%lldx%lld", mode, &m, &n, &k) != 4 || mmt_mode_parse(mode, &s->mode) ||
                m < 1 || n < 1 || k < 1)
                die(argv[i], "not MODE:MxNxK (f32:64x64x64, say)");
            s->m = m, s->n = n, s->k = k;
        }
        shapes = given;
    }
    size_t most = 0; /* bytes of the largest operand */
    for (int i = 0; i < n_shapes; i++) {
        const shape *s = &shapes[i];
        const int64_t largest = s->m * s->k > s->k * s->n ? s->m * s->k : s->k * s->n;
        const size_t bytes = mmt_dtype_size(mmt_mode_dtype(s->mode)) * (size_t)(largest > s->m * s->n ? largest : s->m * s->n);
        if (bytes > most) most = bytes;
    }
    cl.a = call_buffer("call_cost", cl.gpu, &dev, most), cl.b = call_buffer("call_cost", cl.gpu, &dev, most);
    cl.c = call_buffer("call_cost", cl.gpu, &dev, most);
    printf("%s, vendor %s, %d calls a round, %d rounds each, alternated\n", dev.name, mmt_vendor_name(v), reps,
           ROUNDS);
    for (int i = 0; i < n_shapes; i++) {
        const shape *s = &shapes[i];
        /* f32x3's yardstick is SGEMM, as the tuner's */
        cl.vendor = (mmt_vendor_call){v, s->mode == MMT_MODE_F32X3 ? MMT_MODE_F32 : s->mode, mmt_mode_dtype(s->mode),
                                      MMT_VENDOR_CALL};
        double us[4][ROUNDS];
        const int ways = cl.gpu ? 4 : 2;
        for (int w = 0; w < ways; w++) round_us(&cl, s, w, reps / 10 + 1); /* warm */
        for (int r = 0; r < ROUNDS; r++)
            for (int w = 0; w < ways; w++) us[w][r] = round_us(&cl, s, w, reps);
        const char *config;
        mmt_last_choice(cl.ctx, &config);
        const double o = mmt_stats_median(us[LIBMMTUNED], ROUNDS), t = mmt_stats_median(us[VENDOR], ROUNDS);
        printf("%s %lldx%lldx%lld: libmmtuned %.3f us a call, the vendor %.3f us: %.2fx (served by %s)",
               mmt_mode_name(s->mode), (long long)s->m, (long long)s->n, (long long)s->k, o, t, t / o, config);
        if (cl.gpu)
            printf("; the vendor after three pointer queries %.3f us; through the kept plan %.3f us",
                   mmt_stats_median(us[VENDOR_QUERIED], ROUNDS), mmt_stats_median(us[VENDOR_PLANNED], ROUNDS));
        printf("\n");
    }
    if (cl.gpu) driver_parts(&cl, reps);
    mmt_vendor_close(v);
    mmt_close(cl.ctx);
    return 0;
}
