/* clock.h - the monotonic clock every timer of the project reads (CPU timing, watchdogs,
 * budgets, ETAs), in seconds. */
#ifndef MMT_CLOCK_H
#define MMT_CLOCK_H

#include <time.h>

static inline double mmt_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

#endif
