/* first_call.c - what the first call of a shape nobody tuned costs an application, beyond
 * the calls after it and beyond the vendor library's own first call: on a context that has
 * already served another shape (the library loaded, the vendor opened), each of N new
 * shapes (sides 100 to 1500, calls of milliseconds, whose noise does not hide a compile's)
 * is called four times through mmt_sgemm (the GPU: device memory, synchronised), and the
 * first call's time is printed against the median of the other three, with what served it.
 * The vendor's own calls of the same shapes are timed the same way first, in a child
 * process that never loads libmmtuned's kernels (its own CUDA context, its own first call of
 * a 64^3 problem): a GPU library's first call of a shape may load a kernel of its own, which
 * an application pays with or without mmtune. A compile on the caller's path would show as
 * the excess beyond the vendor's; the target is at most 20 ms on the CPU and 50 ms on a GPU.
 *   first_call [DEVICE (cpu)] [DATABASE ("": none, nothing tuned)] [N (8)] [ROUTE (call)]
 * ROUTE: how the child calls the vendor: `call`, its own call (cublasSgemm: what an
 * application calls), or `plan`, through a cuBLASLt plan (what libmmtuned calls untuned). 
 * Prints a line per shape, the largest excess and the largest beyond the vendor's. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backend.h"
#include "call_buffer.h"
#include "clock.h"
#include "mmtuned.h"
#include "vendor.h"

enum { MAX_SHAPES = 64 };

/* One f32 GEMM of the shape's, row-major NN, on operands a, b, c of the device. */
typedef mmt_status (*gemm_call)(void *user, int64_t m, int64_t n, int64_t k, const void *a, const void *b, void *c,
                                mmt_err *err);

static mmt_status through_libmmtuned(void *user, int64_t m, int64_t n, int64_t k, const void *a, const void *b,
                                     void *c, mmt_err *err)
{
    mmt_ctx *ctx = user;
    if (mmt_sgemm(ctx, MMT_ROW_MAJOR, MMT_NO_TRANS, MMT_NO_TRANS, m, n, k, 1, a, k, b, n, 0, c, n) == MMT_OK)
        return MMT_OK;
    return mmt_err_set(err, MMT_LAUNCH, "%s", mmt_last_error(ctx));
}

static mmt_status through_vendor(void *user, int64_t m, int64_t n, int64_t k, const void *a, const void *b, void *c,
                                 mmt_err *err)
{
    const mmt_gemm_params p = {.m = m, .n = n, .k = k, .lda = k, .ldb = n, .ldc = n, .alpha = 1, .beta = 0,
                               .a = a, .b = b, .c = c};
    return mmt_vendor_gemm(user, &p, NULL, err);
}

/* One call and its wall time in ms (a GPU call waits for its stream). */
static double timed(gemm_call fn, void *user, const mmt_backend *gpu, int64_t m, int64_t n, int64_t k, const void *a,
                    const void *b, void *c)
{
    mmt_err err;
    const double t0 = mmt_now_s();
    if (fn(user, m, n, k, a, b, c, &err) != MMT_OK || (gpu && gpu->sync(NULL, &err) != MMT_OK)) {
        fprintf(stderr, "first_call: %s\n", err.msg);
        exit(1);
    }
    return 1e3 * (mmt_now_s() - t0);
}

static void shape_of(int i, int64_t *m, int64_t *n, int64_t *k)
{
    *m = 100 + 437 * i % 1400, *n = 150 + 911 * i % 1350, *k = 120 + 613 * i % 1380;
}

/* The first call of each of count shapes on fn, after a first call of 64^3: first[i] and
 * again[i] (the median of the three calls after it), in ms; with ctx (the calls are
 * libmmtuned's), what served each in served[i]. */
static void first_calls(gemm_call fn, void *user, const mmt_backend *gpu, const mmt_device_info *dev, int count,
                        double *first, double *again, mmt_ctx *ctx, char (*served)[200])
{
    const int64_t most = 4096;
    const size_t bytes = sizeof(float) * most * most;
    void *a = call_buffer("first_call", gpu, dev, bytes), *b = call_buffer("first_call", gpu, dev, bytes),
         *c = call_buffer("first_call", gpu, dev, bytes);
    timed(fn, user, gpu, 64, 64, 64, a, b, c); /* the library loaded */
    for (int i = 0; i < count; i++) {
        int64_t m, n, k;
        shape_of(i, &m, &n, &k);
        first[i] = timed(fn, user, gpu, m, n, k, a, b, c);
        double t[3];
        for (int r = 0; r < 3; r++) t[r] = timed(fn, user, gpu, m, n, k, a, b, c);
        const double lo = fmin(t[0], fmin(t[1], t[2])), hi = fmax(t[0], fmax(t[1], t[2]));
        again[i] = t[0] + t[1] + t[2] - lo - hi; /* the median */
        if (ctx) {
            const char *config;
            const mmt_choice how = mmt_last_choice(ctx, &config);
            snprintf(served[i], sizeof served[i], "%d %s", (int)how, config);
        }
    }
}

/* The vendor's excess per shape, from a child process that opens the vendor alone; NAN
 * each where there is no vendor. Before this process touches a GPU: a child forked after
 * that could not use it. */
static void vendor_excess(const char *device, int count, mmt_vendor_route route, double *excess)
{
    for (int i = 0; i < count; i++) excess[i] = NAN;
    int fd[2];
    if (pipe(fd) != 0) return;
    const pid_t pid = fork();
    if (pid == 0) {
        close(fd[0]);
        const mmt_backend *be = NULL;
        int ordinal = 0;
        mmt_device_info dev;
        mmt_vendor *v = NULL;
        mmt_err err;
        if (mmt_backend_for_device(device, &be, &ordinal, &err) != MMT_OK || be->probe(ordinal, &dev, &err) != MMT_OK ||
            mmt_vendor_open(be, &dev, &v, &err) != MMT_OK)
            _exit(1);
        mmt_vendor_call call = {v, MMT_MODE_F32, MMT_F32, route};
        double first[MAX_SHAPES], again[MAX_SHAPES];
        first_calls(through_vendor, &call, strcmp(be->name, "cpu") ? be : NULL, &dev, count, first, again, NULL, NULL);
        for (int i = 0; i < count; i++) first[i] -= again[i];
        const ssize_t want = (ssize_t)(sizeof(double) * (size_t)count);
        _exit(write(fd[1], first, (size_t)want) == want ? 0 : 1);
    }
    close(fd[1]);
    if (pid > 0) {
        double got[MAX_SHAPES];
        const ssize_t want = (ssize_t)(sizeof(double) * (size_t)count);
        if (read(fd[0], got, (size_t)want) == want) memcpy(excess, got, (size_t)want);
        waitpid(pid, NULL, 0);
    }
    close(fd[0]);
}

int main(int argc, char **argv)
{
    const char *device = argc > 1 ? argv[1] : "cpu";
    const char *database = argc > 2 && *argv[2] ? argv[2] : NULL;
    if (!database) setenv("MMTUNE_DB", "/nonexistent/mmtune-first-call.db", 1); /* nothing tuned */
    int count = argc > 3 ? atoi(argv[3]) : 8;
    if (count < 1 || count > MAX_SHAPES) count = 8;
    const mmt_vendor_route route = argc > 4 && strcmp(argv[4], "plan") == 0 ? MMT_VENDOR_PLAN : MMT_VENDOR_CALL;
    double vendor[MAX_SHAPES];
    vendor_excess(device, count, route, vendor);
    const mmt_backend *be = NULL;
    int ordinal = 0;
    mmt_device_info dev;
    mmt_err err;
    if (mmt_backend_for_device(device, &be, &ordinal, &err) != MMT_OK || be->probe(ordinal, &dev, &err) != MMT_OK) {
        fprintf(stderr, "first_call: %s\n", err.msg);
        return 1;
    }
    if (strcmp(be->name, "cpu") == 0) be = NULL; /* host memory */
    mmt_ctx *ctx;
    if (mmt_open(&ctx, device, database) != MMT_OK) {
        fprintf(stderr, "first_call: %s\n", mmt_last_error(ctx));
        return 1;
    }
    double first[MAX_SHAPES], again[MAX_SHAPES], worst = 0, beyond = -INFINITY;
    char served[MAX_SHAPES][200];
    first_calls(through_libmmtuned, ctx, be, &dev, count, first, again, ctx, served);
    for (int i = 0; i < count; i++) {
        int64_t m, n, k;
        shape_of(i, &m, &n, &k);
        const double excess = first[i] - again[i];
        printf("%5lldx%5lldx%5lld  first %8.2f ms  again %8.2f ms  excess %8.2f ms  the vendor's own %8.2f ms  "
               "choice %s\n",
               (long long)m, (long long)n, (long long)k, first[i], again[i], excess, vendor[i], served[i]);
        worst = fmax(worst, excess);
        if (!isnan(vendor[i])) beyond = fmax(beyond, excess - fmax(vendor[i], 0)); /* below 0: the noise's */
    }
    printf("largest excess of a first call: %.2f ms (%s); ", worst, device);
    if (isinf(beyond)) printf("the vendor's own not measured\n");
    else printf("beyond the vendor's own: %.2f ms\n", beyond);
    mmt_close(ctx);
    return 0;
}
