/* gpu_bench.h - what the GPU benches share: libmmtuned's context on the GPU, their failures,
 * and paired rounds of the ways of doing one call, timed with events on one stream. A sample is about 20 ms of one way,
 * after an untimed run of its own of twice that (the GPU's clock settles to the way's power,
 * bench.c says why); the order of the ways is reversed every other round. */
#ifndef MMT_BENCH_GPU_BENCH_H
#define MMT_BENCH_GPU_BENCH_H

#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#include "mmtuned.h"
#include "stats.h"

enum { GPU_MOST_WAYS = 8, GPU_MOST_ROUNDS = 32 };

static const char *gpu_bench = "bench"; /* the program's name, for its messages */

static void die(const char *what, const char *why)
{
    fprintf(stderr, "%s: %s: %s\n", gpu_bench, what, why);
    exit(1);
}

static void cuda_ok(cudaError_t e, const char *what)
{
    if (e != cudaSuccess) die(what, cudaGetErrorString(e));
}

/* Bench `name` on GPU `device` (its number): 0 with libmmtuned's context there (*ctx) calling
 * on a stream of its own (*stream); 77 where there is no GPU. */
static int gpu_bench_open(const char *name, const char *device, mmt_ctx **ctx, cudaStream_t *stream)
{
    gpu_bench = name;
    setvbuf(stdout, NULL, _IOLBF, 0);
    int gpus = 0;
    if (cudaGetDeviceCount(&gpus) != cudaSuccess || gpus < 1) {
        fprintf(stderr, "%s: no GPU\n", name);
        return 77;
    }
    cuda_ok(cudaSetDevice(atoi(device)), "device");
    if (mmt_open(ctx, device, NULL) != MMT_OK) die("mmt_open", *ctx ? mmt_last_error(*ctx) : "no context");
    cuda_ok(cudaStreamCreate(stream), "stream");
    if (mmt_set_stream(*ctx, *stream) != MMT_OK) die("mmt_set_stream", mmt_last_error(*ctx));
    return 0;
}

/* One call of way w of the bench's state arg, on its stream. */
typedef void (*gpu_way)(void *arg, int w);

/* ms a call of way w over reps calls. */
static double gpu_timed(gpu_way run, void *arg, cudaStream_t stream, int w, int reps)
{
    cudaEvent_t t0, t1;
    cuda_ok(cudaEventCreate(&t0), "event");
    cuda_ok(cudaEventCreate(&t1), "event");
    cuda_ok(cudaEventRecord(t0, stream), "event");
    for (int i = 0; i < reps; i++) run(arg, w);
    cuda_ok(cudaEventRecord(t1, stream), "event");
    cuda_ok(cudaEventSynchronize(t1), "sync");
    float ms;
    cuda_ok(cudaEventElapsedTime(&ms, t0, t1), "event");
    cudaEventDestroy(t0), cudaEventDestroy(t1);
    return ms / reps;
}

/* median[w]: the median ms a call of way w (of ways) over rounds paired rounds; the calls a
 * sample from way `pace`'s time. */
static void gpu_paired(gpu_way run, void *arg, cudaStream_t stream, int ways, int rounds, int pace, double *median)
{
    if (ways > GPU_MOST_WAYS || rounds > GPU_MOST_ROUNDS) die("gpu_paired", "too many ways or rounds");
    const double call_ms = gpu_timed(run, arg, stream, pace, 3);
    const int reps = call_ms > 20 ? 1 : (int)(20 / (call_ms > 1e-4 ? call_ms : 1e-4)) + 1;
    double ms[GPU_MOST_WAYS][GPU_MOST_ROUNDS];
    for (int r = 0; r < rounds; r++)
        for (int j = 0; j < ways; j++) {
            const int w = r % 2 ? ways - 1 - j : j;
            gpu_timed(run, arg, stream, w, 2 * reps); /* settle: the GPU's clock of this way's power */
            ms[w][r] = gpu_timed(run, arg, stream, w, reps);
        }
    for (int w = 0; w < ways; w++) median[w] = mmt_stats_median(ms[w], rounds);
}

#endif
