/* membw.c - STREAM's triad on this host (see membw.h). */
#include "membw.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "parallel_for.h"

enum { ARRAY_MIB = 128, PASSES = 5 };

typedef struct {
    double *a, *b, *c;
} arrays;

static void first_touch(void *ctx, int64_t begin, int64_t end)
{
    const arrays *x = ctx;
    for (int64_t i = begin; i < end; i++) x->a[i] = 0, x->b[i] = 1, x->c[i] = 2;
}

static void triad(void *ctx, int64_t begin, int64_t end)
{
    const arrays *x = ctx;
    for (int64_t i = begin; i < end; i++) x->a[i] = x->b[i] + 3 * x->c[i];
}

double mmt_membw_measure(const mmt_device_info *d, char *how, size_t size)
{
    int64_t cpus = 1, l3 = 0;
    mmt_device_get_prop(d, "cores", 5, &cpus);
    mmt_device_get_prop(d, "l3_bytes", 8, &l3);
    const size_t n = (size_t)ARRAY_MIB << 20 >> 3; /* doubles an array */
    double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *c = malloc(n * sizeof *c);
    double best = 0;
    if (a && b && c) {
        const int threads = cpus > 0 ? (int)cpus : 1;
        arrays x = {a, b, c};
        /* first touch by shares as the passes stream them, as STREAM does (each pass makes
         * its threads: their start is in the time, some microseconds of milliseconds) */
        mmt_parallel_for((int64_t)n, 0, threads, first_touch, &x);
        for (int pass = 0; pass < PASSES; pass++) {
            double t0 = mmt_now_s();
            mmt_parallel_for((int64_t)n, 0, threads, triad, &x);
            double s = mmt_now_s() - t0, gbs = s > 0 ? 3.0 * (double)(n * sizeof *a) / s / 1e9 : 0;
            if (gbs > best) best = gbs;
        }
        /* a result the compiler must keep */
        if (a[n / 2] != 7) best = 0;
    }
    free(a), free(b), free(c);
    int cached = (double)l3 * 4 > (double)ARRAY_MIB * (1 << 20);
    snprintf(how, size,
             "measured by this mmtune report on this host: STREAM's triad a = b + 3c over three arrays of %d MiB "
             "on %lld threads, the best of %d passes, 24 bytes an element (a write-allocate's read not counted): "
             "%.1f GB/s%s",
             ARRAY_MIB, (long long)cpus, PASSES, best,
             cached ? "; the arrays are less than 4 times the L3 the row records, so part of it may be cache" : "");
    return best;
}
