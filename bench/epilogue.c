/* epilogue.c - what a GEMM's epilogue costs on the CPU: mmt_gemm_ex alone against
 * mmt_gemm_epilogue with a bias per column and ReLU, and with a bias per column and GELU's
 * tanh form (f32, row-major NN, beta 0, the database's choice of GEMM for each), in rounds
 * of about 20 ms of each, the order reversed every other round, 15 rounds (where the
 * template serves, after its variants with the epilogue in the store are built).
 *   epilogue [MxNxK ...]   (default: 2048x2048x512 4096x1024x1024 512x4096x1024 256x256x256)
 * Prints per shape the median time of a call of each, the epilogue's cost over the GEMM and
 * what served the GELU call (mmt_last_choice). */
#include <stdio.h>
#include <stdlib.h>

#include "clock.h"
#include "mmtuned.h"
#include "stats.h"

enum { ROUNDS = 15, WAYS = 3 }; /* the GEMM alone, + bias and ReLU, + bias and GELU */

int main(int argc, char **argv)
{
    static const char *const defaults[] = {"2048x2048x512", "4096x1024x1024", "512x4096x1024", "256x256x256"};
    const int n_shapes = argc > 1 ? argc - 1 : 4;
    mmt_ctx *ctx = NULL;
    if (mmt_open(&ctx, "cpu", NULL) != MMT_OK) {
        fprintf(stderr, "epilogue: %s\n", ctx ? mmt_last_error(ctx) : "cannot open the CPU");
        return 1;
    }
    const mmt_gemm_desc desc = {MMT_F32, MMT_F32, MMT_COMPUTE_NATIVE, MMT_ROW_MAJOR, MMT_NO_TRANS, MMT_NO_TRANS};
    printf("%-16s %12s %14s %14s %8s %8s\n", "f32 row NN", "GEMM ms", "+ ReLU ms", "+ GELU ms", "ReLU", "GELU");
    for (int s = 0; s < n_shapes; s++) {
        long long m, n, k;
        const char *arg = argc > 1 ? argv[s + 1] : defaults[s];
        if (sscanf(arg, "%lldx%lldx%lld", &m, &n, &k) != 3 || m < 1 || n < 1 || k < 1) {
            fprintf(stderr, "epilogue: %s is not MxNxK\n", arg);
            return 2;
        }
        float *a = malloc(sizeof(float) * m * k), *b = malloc(sizeof(float) * k * n);
        float *c = malloc(sizeof(float) * m * n), *bias = malloc(sizeof(float) * n);
        for (long long i = 0; i < m * k; i++) a[i] = (float)((i * 7919 % 2001) - 1000) / 1000;
        for (long long i = 0; i < k * n; i++) b[i] = (float)((i * 104729 % 2001) - 1000) / 1000;
        for (long long i = 0; i < n; i++) bias[i] = (float)(i % 17) / 17 - 0.5f;
        const mmt_epilogue epi[WAYS] = {{MMT_BIAS_NONE, MMT_F32, NULL, MMT_ACT_NONE, 1},
                                        {MMT_BIAS_PER_COL, MMT_F32, bias, MMT_ACT_RELU, 1},
                                        {MMT_BIAS_PER_COL, MMT_F32, bias, MMT_ACT_GELU_TANH, 1}};
        double t0 = mmt_now_s();
        for (int w = 0; w < WAYS; w++) /* warm: kernels built, threads made */
            if (mmt_gemm_epilogue(ctx, &desc, &epi[w], m, n, k, 1, a, k, b, n, 0, c, n) != MMT_OK) {
                fprintf(stderr, "epilogue: %s\n", mmt_last_error(ctx));
                return 1;
            }
        const double call_s = (mmt_now_s() - t0) / WAYS;
        int built = 0; /* where the template serves, its variants with the epilogue in the store */
        if (mmt_wait_kernels(ctx, &built) != MMT_OK) return 1;
        mmt_gemm_epilogue(ctx, &desc, &epi[2], m, n, k, 1, a, k, b, n, 0, c, n);
        const char *served = "";
        mmt_last_choice(ctx, &served);
        const int reps = call_s > 0.02 ? 1 : (int)(0.02 / (call_s > 1e-6 ? call_s : 1e-6)) + 1;
        double ms[WAYS][ROUNDS];
        for (int r = 0; r < ROUNDS; r++)
            for (int j = 0; j < WAYS; j++) {
                const int w = r % 2 ? WAYS - 1 - j : j;
                t0 = mmt_now_s();
                for (int i = 0; i < reps; i++) mmt_gemm_epilogue(ctx, &desc, &epi[w], m, n, k, 1, a, k, b, n, 0, c, n);
                ms[w][r] = (mmt_now_s() - t0) * 1e3 / reps;
            }
        double med[WAYS];
        for (int w = 0; w < WAYS; w++) med[w] = mmt_stats_median(ms[w], ROUNDS);
        printf("%-16s %12.3f %14.3f %14.3f %+7.1f%% %+7.1f%%  (GELU: %s)\n", arg, med[0], med[1], med[2],
               100 * (med[1] / med[0] - 1), 100 * (med[2] / med[0] - 1), served);
        free(a), free(b), free(c), free(bias);
    }
    printf("(a call's median over %d rounds; ReLU, GELU: the call with the bias and that activation over the GEMM "
           "alone)\n", ROUNDS);
    mmt_close(ctx);
    return 0;
}
