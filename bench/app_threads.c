/* app_threads.c - an application's threads calling libmmtuned's CPU GEMM at once: T threads
 * each making CALLS calls of one small f32 problem (served by the CPU template: the vendor
 * off), the best of 5 runs, against one thread alone. Each thread's calls need the
 * template's packing buffers at the same time as the others'.
 *   app_threads [T (2)] [MxNxK (40x24x56)] */
#include <stdio.h>
#include <stdlib.h>

#include "mmtuned.h"
#include "threads_at_once.h"

enum { CALLS = 4000, RUNS = 5 };
static mmt_ctx *ctx;
static long long m = 40, n = 24, k = 56;

static void *calls(void *arg)
{
    (void)arg;
    float *a = malloc(sizeof(float) * m * k), *b = malloc(sizeof(float) * k * n), *c = malloc(sizeof(float) * m * n);
    if (!a || !b || !c) abort();
    for (long long i = 0; i < m * k; i++) a[i] = (float)(i % 7) / 8 - 0.375f;
    for (long long i = 0; i < k * n; i++) b[i] = (float)(i % 5) / 4 - 0.5f;
    for (int i = 0; i < CALLS; i++)
        if (mmt_sgemm(ctx, MMT_ROW_MAJOR, MMT_NO_TRANS, MMT_NO_TRANS, m, n, k, 1, a, k, b, n, 0, c, n) != MMT_OK) {
            fprintf(stderr, "app_threads: %s\n", mmt_last_error(ctx));
            exit(1);
        }
    free(a), free(b), free(c);
    return NULL;
}

/* Milliseconds of the best of RUNS runs of `threads` threads making their calls at once. */
static double best_ms(int threads) { return 1e3 * threads_at_once_s(threads, calls, RUNS); }

int main(int argc, char **argv)
{
    const int threads = argc > 1 ? atoi(argv[1]) : 2;
    if (threads < 1 || threads > 64 || (argc > 2 && sscanf(argv[2], "%lldx%lldx%lld", &m, &n, &k) != 3)) {
        fprintf(stderr, "usage: app_threads [THREADS (1-64)] [MxNxK]\n");
        return 2;
    }
    setenv("MMTUNE_VENDOR", "off", 1);
    setenv("MMTUNE_DB", "/nonexistent/mmtune-app-threads.db", 1); /* nothing tuned: the template's default */
    if (mmt_open(&ctx, "cpu", NULL) != MMT_OK) {
        fprintf(stderr, "app_threads: %s\n", mmt_last_error(ctx));
        return 1;
    }
    calls(NULL); /* the kernel built and loaded */
    const double one = best_ms(1), all = best_ms(threads);
    printf("f32 %lldx%lldx%lld, %d calls a thread: 1 thread %.2f ms, %d threads at once %.2f ms (%.2fx the one "
           "thread's time)\n",
           m, n, k, CALLS, one, threads, all, all / one);
    mmt_close(ctx);
    return 0;
}
