/* cpu_wait.h - how busy the CPUs are while the tuner measures: the share of wall time some
 * task waited for a CPU (Linux's pressure stall information, /proc/pressure/cpu "some"),
 * which a tune on a machine shared with other work cannot see in its own timings alone. A
 * trial records it (trial.cpu_wait); above MMT_CPU_BUSY (store.h) it was measured busy. */
#ifndef MMT_CPU_WAIT_H
#define MMT_CPU_WAIT_H

#include <stdint.h>

typedef struct mmt_cpu_wait {
    int64_t stall_us; /* the counter's value at the start; < 0: not known here */
    double t0;        /* mmt_now_s() then */
} mmt_cpu_wait;

/* Starts a span; MMTUNE_CPU_WAIT=off makes every span's share not known (a machine that is
 * always busy, where every run would measure again). */
void mmt_cpu_wait_start(mmt_cpu_wait *w);

/* The share (0 to 1) of the span so far that some task waited for a CPU; < 0 where the
 * kernel does not say (no /proc/pressure) or the span is too short to tell (1 ms). */
double mmt_cpu_wait_share(const mmt_cpu_wait *w);

#endif
