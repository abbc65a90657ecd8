/* epilogue_bench.h - what the GPU epilogue benches (epilogue_gpu.c, epilogue_fp8_gpu.c) share:
 * their four ways of a call (libmmtuned's GEMM alone and with the epilogue, cuBLASLt's matmul
 * alone and with its fused epilogue), each checked at sampled elements first, then timed in
 * paired rounds once the variant with the epilogue in a template's store is built, and the
 * table they print. */
#ifndef MMT_BENCH_EPILOGUE_BENCH_H
#define MMT_BENCH_EPILOGUE_BENCH_H

#include "lt_bench.h"

enum { EPI_ROUNDS = 15, EPI_WAYS = 4, EPI_SAMPLED = 512 };
static const char *const epi_way_names[EPI_WAYS] = {"mmt_gemm_ex", "mmt_gemm_epilogue", "cuBLASLt",
                                                    "cuBLASLt GELU_BIAS"};

/* The table's head, after a line saying what is timed (what). */
static void epi_bench_head(const char *what)
{
    printf("%s; ms a call (median of %d paired rounds)\n", what, EPI_ROUNDS);
    printf("%-16s %12s %12s %12s %12s %9s %9s %9s\n", "shape", "mmt GEMM", "mmt +epi", "Lt GEMM", "Lt fused",
           "mmt epi", "Lt epi", "mmt/Lt");
}

/* Shape `shape`'s row: each way's largest sampled error (error(arg, w), below bound or the
 * bench fails), then, libmmtuned's builds done (a template's variant with the epilogue in its
 * store builds off the path meanwhile), the ways timed by run(arg, w) on stream. */
static void epi_bench_row(const char *shape, gpu_way run, double (*error)(void *arg, int w), double bound, void *arg,
                          mmt_ctx *ctx, cudaStream_t stream)
{
    double worst[EPI_WAYS], med[EPI_WAYS];
    for (int w = 0; w < EPI_WAYS; w++) {
        worst[w] = error(arg, w);
        if (!(worst[w] < bound)) {
            char why[64];
            snprintf(why, sizeof why, "wrong result (error %g)", worst[w]);
            die(epi_way_names[w], why);
        }
    }
    int built = 0;
    if (mmt_wait_kernels(ctx, &built) != MMT_OK) die("mmt_wait_kernels", mmt_last_error(ctx));
    run(arg, 1);
    const char *served = "";
    mmt_last_choice(ctx, &served);
    printf("%-16s mmt_gemm_epilogue: %s\n", shape, served);
    gpu_paired(run, arg, stream, EPI_WAYS, EPI_ROUNDS, 1, med);
    printf("%-16s %12.4f %12.4f %12.4f %12.4f %+8.1f%% %+8.1f%% %8.2fx\n", shape, med[0], med[1], med[2], med[3],
           100 * (med[1] / med[0] - 1), 100 * (med[3] / med[2] - 1), med[3] / med[1]);
    printf("%-16s sampled errors: %.1e %.1e %.1e %.1e\n", "", worst[0], worst[1], worst[2], worst[3]);
}

static void epi_bench_foot(void)
{
    printf("(mmt epi, Lt epi: the epilogue's call over the same library's GEMM alone; mmt/Lt: libmmtuned's epilogue "
           "call's speed over cuBLASLt's fused one)\n");
}

#endif
