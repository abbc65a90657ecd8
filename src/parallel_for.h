/* parallel_for.h - a loop spread over the host's cores on plain threads, kept between loops
 * in a pool (parallel_for.c says how they wait, and what a fork or an unload does).
 * libmmtuned runs a CPU strided batch of small GEMMs on it (api.c), and mmtune's own loops
 * (random inputs, references, STREAM) use it instead of OpenMP, so that the OpenMP runtime
 * is loaded with the first CPU kernel, after libmmtuned's constructor bounded its idle
 * spinning (backend_cpu.c): mmtune's kernels then run as in an application. Internal to
 * libmmtuned; it may be called from several threads at once. */
#ifndef MMT_PARALLEL_FOR_H
#define MMT_PARALLEL_FOR_H

#include <stdint.h>

/* One share of a loop: iterations [begin, end). */
typedef void (*mmt_range_fn)(void *ctx, int64_t begin, int64_t end);

/* Runs fn over [0, n) on up to `threads` threads (0: one a core this process may use), the
 * caller among them, and returns when all is done. chunk 0: one contiguous share a thread,
 * the same split for the same n and threads (first touch, as STREAM has it); chunk > 0:
 * shares of that many iterations handed out as threads come free. Where a thread cannot be
 * made, those there are do the work. */
void mmt_parallel_for(int64_t n, int64_t chunk, int threads, mmt_range_fn fn, void *ctx);

#endif
