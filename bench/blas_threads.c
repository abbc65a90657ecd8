/* blas_threads.c - an application's threads calling cblas_sgemm at once through the drop-in
 * BLAS (libmmtuned_blas.so, opened here as LD_PRELOAD would put it first) against OpenBLAS's
 * own cblas_sgemm, in one process: T threads each making CALLS calls of one small f32
 * problem, and one thread alone; nanoseconds a call of a thread, the best of 5 runs. With
 * nothing tuned, libmmtuned serves OpenBLAS itself, so the difference is the drop-in's path;
 * with MMTUNE_DB set to a database, also its count of the untuned calls (as by default).
 *   [MMTUNE_DB=FILE] blas_threads [T (2)] [MxNxK (8x8x8)]
 * Exits 77 without OpenBLAS. */
#include <stdio.h>
#include <stdlib.h>

#include "openblas_sgemm.h"
#include "threads_at_once.h"

enum { CALLS = 200000, RUNS = 5 };
static int m = 8, n = 8, k = 8;
static cblas_sgemm_fn sgemm;

static void *calls(void *arg)
{
    (void)arg;
    float *a = malloc(sizeof(float) * (size_t)(m * k)), *b = malloc(sizeof(float) * (size_t)(k * n)),
          *c = malloc(sizeof(float) * (size_t)(m * n));
    if (!a || !b || !c) abort();
    for (int i = 0; i < m * k; i++) a[i] = (float)(i % 7) / 8 - 0.375f;
    for (int i = 0; i < k * n; i++) b[i] = (float)(i % 5) / 4 - 0.5f;
    for (int i = 0; i < CALLS; i++)
        sgemm(CBLAS_ROW_MAJOR, CBLAS_NO_TRANS, CBLAS_NO_TRANS, m, n, k, 1, a, k, b, n, 0, c, n);
    free(a), free(b), free(c);
    return NULL;
}

/* Nanoseconds a call of each of `threads` threads calling at once, the best of RUNS runs. */
static double best_ns(cblas_sgemm_fn fn, int threads)
{
    sgemm = fn;
    return 1e9 * threads_at_once_s(threads, calls, RUNS) / CALLS;
}

int main(int argc, char **argv)
{
    const int threads = argc > 1 ? atoi(argv[1]) : 2;
    if (threads < 1 || threads > 64 || (argc > 2 && sscanf(argv[2], "%dx%dx%d", &m, &n, &k) != 3)) {
        fprintf(stderr, "usage: blas_threads [THREADS (1-64)] [MxNxK]\n");
        return 2;
    }
    setenv("OPENBLAS_NUM_THREADS", "1", 0); /* small calls: OpenBLAS runs them on the caller's thread anyway */
    /* nothing tuned: OpenBLAS serves; MMTUNE_DB set to a database counts the untuned calls there */
    setenv("MMTUNE_DB", "/nonexistent/mmtune-blas-threads.db", 0);
    const cblas_sgemm_fn openblas = openblas_sgemm();
    if (!openblas) {
        fprintf(stderr, "blas_threads: OpenBLAS is not installed\n");
        return 77;
    }
    void *lib = dlopen(MMT_BLAS_LIBRARY, RTLD_NOW | RTLD_LOCAL);
    const cblas_sgemm_fn dropin = lib ? (cblas_sgemm_fn)(uintptr_t)dlsym(lib, "cblas_sgemm") : NULL;
    if (!dropin) {
        fprintf(stderr, "blas_threads: %s: %s\n", MMT_BLAS_LIBRARY, dlerror());
        return 1;
    }
    sgemm = openblas, calls(NULL);
    const double o1 = best_ns(openblas, 1), ot = best_ns(openblas, threads);
    sgemm = dropin, calls(NULL); /* the drop-in's context opened */
    const double d1 = best_ns(dropin, 1), dt = best_ns(dropin, threads);
    printf("f32 %dx%dx%d, ns a call of a thread: 1 thread: OpenBLAS %.1f, the drop-in %.1f (%.2fx); %d threads at "
           "once: OpenBLAS %.1f, the drop-in %.1f (%.2fx)\n",
           m, n, k, o1, d1, o1 / d1, threads, ot, dt, ot / dt);
    return 0;
}
