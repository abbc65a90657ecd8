/* threads_at_once.h - the benchmarks of an application's threads calling at once
 * (app_threads.c, blas_threads.c): the best time of several runs of T threads. */
#ifndef MMT_BENCH_THREADS_AT_ONCE_H
#define MMT_BENCH_THREADS_AT_ONCE_H

#include <pthread.h>
#include <stdlib.h>

#include "clock.h"

/* Seconds of the best of `runs` runs of `threads` threads (at most 64) each running body
 * at once, from the first start to the last end. */
static double threads_at_once_s(int threads, void *(*body)(void *), int runs)
{
    double best = 0;
    for (int r = 0; r < runs; r++) {
        pthread_t t[64];
        const double t0 = mmt_now_s();
        for (int i = 0; i < threads; i++)
            if (pthread_create(&t[i], NULL, body, NULL) != 0) abort();
        for (int i = 0; i < threads; i++) pthread_join(t[i], NULL);
        const double s = mmt_now_s() - t0;
        if (r == 0 || s < best) best = s;
    }
    return best;
}

#endif
