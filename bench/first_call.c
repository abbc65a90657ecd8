/* first_call.c - what the first call of a shape nobody tuned costs an application, beyond
 * the calls after it: on a context that has already served another shape (the library
 * loaded, the vendor opened), each of N new shapes (sides 100 to 1500, calls of milliseconds,
 * whose noise does not hide a compile's) is called four times through mmt_sgemm (the GPU:
 * device memory, synchronised), and the first call's time is printed against the median of
 * the other three, with what served it. A compile on the caller's path would show as the
 * first call's excess; the target is at most 20 ms on the CPU and 50 ms on a GPU.
 *   first_call [DEVICE (cpu)] [DATABASE ("": none, nothing tuned)] [N (8)]
 * Prints a line per shape and the largest excess. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "call_buffer.h"
#include "clock.h"
#include "mmtuned.h"

/* One call and its wall time in ms (a GPU call waits for its stream). */
static double timed(mmt_ctx *ctx, const mmt_backend *be, int64_t m, int64_t n, int64_t k, const void *a,
                    const void *b, void *c)
{
    mmt_err err;
    const double t0 = mmt_now_s();
    if (mmt_sgemm(ctx, MMT_ROW_MAJOR, MMT_NO_TRANS, MMT_NO_TRANS, m, n, k, 1, a, k, b, n, 0, c, n) != MMT_OK ||
        (be && be->sync(NULL, &err) != MMT_OK)) {
        fprintf(stderr, "first_call: %s\n", mmt_last_error(ctx));
        exit(1);
    }
    return 1e3 * (mmt_now_s() - t0);
}

int main(int argc, char **argv)
{
    const char *device = argc > 1 ? argv[1] : "cpu";
    const char *database = argc > 2 && *argv[2] ? argv[2] : NULL;
    if (!database) setenv("MMTUNE_DB", "/nonexistent/mmtune-first-call.db", 1); /* nothing tuned */
    const int count = argc > 3 ? atoi(argv[3]) : 8;
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
    const int64_t most = 4096;
    const size_t bytes = sizeof(float) * most * most;
    void *a = call_buffer("first_call", be, &dev, bytes), *b = call_buffer("first_call", be, &dev, bytes),
         *c = call_buffer("first_call", be, &dev, bytes);
    timed(ctx, be, 64, 64, 64, a, b, c); /* the library and the vendor loaded */
    double worst = 0;
    for (int i = 0; i < count; i++) {
        const int64_t m = 100 + 437 * i % 1400, n = 150 + 911 * i % 1350, k = 120 + 613 * i % 1380;
        const double first = timed(ctx, be, m, n, k, a, b, c);
        double t[3];
        for (int r = 0; r < 3; r++) t[r] = timed(ctx, be, m, n, k, a, b, c);
        const double lo = fmin(t[0], fmin(t[1], t[2])), hi = fmax(t[0], fmax(t[1], t[2]));
        const double again = t[0] + t[1] + t[2] - lo - hi; /* the median */
        const char *config;
        const mmt_choice how = mmt_last_choice(ctx, &config);
        printf("%5lldx%5lldx%5lld  first %8.2f ms  again %8.2f ms  excess %8.2f ms  choice %d %s\n", (long long)m,
               (long long)n, (long long)k, first, again, first - again, (int)how, config);
        if (first - again > worst) worst = first - again;
    }
    printf("largest excess of a first call: %.2f ms (%s)\n", worst, device);
    mmt_close(ctx);
    return 0;
}
