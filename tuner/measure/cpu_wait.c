/* cpu_wait.c - the CPUs' pressure over a span (see cpu_wait.h). */
#include "cpu_wait.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"

/* The "some" line's total: microseconds some task waited for a CPU since boot; -1 if the
 * file is not there or reads otherwise. */
static int64_t stall_now(void)
{
    FILE *f = fopen("/proc/pressure/cpu", "r");
    if (!f) return -1;
    long long total = -1;
    if (fscanf(f, "some avg10=%*f avg60=%*f avg300=%*f total=%lld", &total) != 1) total = -1;
    fclose(f);
    return total;
}

void mmt_cpu_wait_start(mmt_cpu_wait *w)
{
    const char *env = getenv("MMTUNE_CPU_WAIT");
    w->stall_us = env && strcmp(env, "off") == 0 ? -1 : stall_now();
    w->t0 = mmt_now_s();
}

double mmt_cpu_wait_share(const mmt_cpu_wait *w)
{
    const int64_t now = w->stall_us >= 0 ? stall_now() : -1;
    const double span_us = 1e6 * (mmt_now_s() - w->t0);
    if (now < w->stall_us || span_us < 1000) return -1;
    const double share = (double)(now - w->stall_us) / span_us;
    return share > 1 ? 1 : share;
}
