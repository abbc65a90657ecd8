/* grouped_gpu.c - a mixture of experts' layer on a GPU: mmt_gemm_grouped (bf16, row-major C =
 * A B_g^T, A's rows and C's in groups, B_g the group's N x K weights, one after another)
 * against the loop of cuBLAS calls an application writes (cublasGemmEx, one a non-empty group),
 * on one stream, nothing tuned (MMTUNE_DB as set). Group sizes drawn from 0 to MAX rows (a
 * fixed seed; every seventh group empty), for 8 and 64 groups, N x K 4096 x 4096 and 7168 x
 * 2048, MAX 64, 512 and 4096 (the operands of the largest case made once for each N x K).
 * Paired rounds: about 20 ms of each way a sample, each after an untimed run of its own of
 * twice that, the order reversed every other round, 9 rounds. Each way's result is checked
 * first, C poisoned, at 256 sampled elements against a double reference, after libmmtuned's
 * first call and the kernels it built meanwhile. Prints each case's median time of both
 * ways, what served libmmtuned's call and the ratio (above 1.00x: libmmtuned faster than the
 * loop).
 *   grouped_gpu [DEVICE (0)]
 * Exits 77 without a GPU. */
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_bench.h"
#include "half.h"

enum { ROUNDS = 9, SAMPLED = 256, MAX_GROUPS = 64 };

typedef struct layer {
    int64_t groups, n, k, rows, sizes[MAX_GROUPS];
    uint16_t *a, *b, *c; /* device */
    mmt_ctx *ctx;
    cublasHandle_t h;
    cudaStream_t stream;
} layer;

/* One call of way w (0 libmmtuned, 1 the loop of cuBLAS calls) on the layer's stream. */
static void run(void *arg, int w)
{
    layer *l = arg;
    if (w == 0) {
        const mmt_gemm_desc d = {MMT_BF16, MMT_BF16, MMT_COMPUTE_NATIVE, MMT_ROW_MAJOR, MMT_NO_TRANS, MMT_TRANS};
        if (mmt_gemm_grouped(l->ctx, &d, l->groups, l->sizes, l->n, l->k, 1, l->a, l->k, l->b, l->k, l->n * l->k, 0,
                             l->c, l->n) != MMT_OK)
            die("mmt_gemm_grouped", mmt_last_error(l->ctx));
        return;
    }
    const float one = 1, zero = 0;
    for (int64_t g = 0, row = 0; g < l->groups; row += l->sizes[g], g++) {
        if (!l->sizes[g]) continue;
        /* column-major C_g^T (n x m_g) = B_g (stored n x k: k x n column-major, transposed) A_g^T */
        if (cublasGemmEx(l->h, CUBLAS_OP_T, CUBLAS_OP_N, (int)l->n, (int)l->sizes[g], (int)l->k, &one,
                         l->b + g * l->n * l->k, CUDA_R_16BF, (int)l->k, l->a + row * l->k, CUDA_R_16BF, (int)l->k,
                         &zero, l->c + row * l->n, CUDA_R_16BF, (int)l->n, CUBLAS_COMPUTE_32F,
                         CUBLAS_GEMM_DEFAULT) != CUBLAS_STATUS_SUCCESS)
            die("cublasGemmEx", "failed");
    }
}

/* Way w's result at SAMPLED elements of C (poisoned first) against a double reference: the
 * largest error relative to the element's scale. */
static double sampled_error(layer *l, int w, const uint16_t *ha, const uint16_t *hb, const int64_t *group_of)
{
    cuda_ok(cudaMemsetAsync(l->c, 0xff, sizeof(uint16_t) * (size_t)(l->rows * l->n), l->stream), "poison");
    run(l, w);
    cuda_ok(cudaStreamSynchronize(l->stream), "sync");
    double worst = 0;
    for (int i = 0; i < SAMPLED; i++) {
        const int64_t r = (int64_t)((i * 2654435761u) % (uint64_t)l->rows),
                      col = (int64_t)((i * 40503u) % (uint64_t)l->n);
        uint16_t got;
        cuda_ok(cudaMemcpy(&got, l->c + r * l->n + col, sizeof got, cudaMemcpyDeviceToHost), "copy");
        const uint16_t *bg = hb + (group_of[r] * l->n + col) * l->k;
        double sum = 0, scale = 0;
        for (int64_t j = 0; j < l->k; j++) {
            const double x = mmt_bf16_to_double(ha[r * l->k + j]) * mmt_bf16_to_double(bg[j]);
            sum += x, scale += fabs(x);
        }
        const double e = fabs(mmt_bf16_to_double(got) - sum) / (scale > 0 ? scale : 1);
        worst = isnan(e) || e > worst ? (isnan(e) ? INFINITY : e) : worst;
    }
    return worst;
}

int main(int argc, char **argv)
{
    static const int64_t nk[2][2] = {{4096, 4096}, {7168, 2048}}, group_counts[2] = {8, 64}, maxes[3] = {64, 512, 4096};
    const char *device = argc > 1 ? argv[1] : "0";
    layer l = {0};
    const int rc = gpu_bench_open("grouped_gpu", device, &l.ctx, &l.stream);
    if (rc) return rc;
    if (cublasCreate(&l.h) != CUBLAS_STATUS_SUCCESS || cublasSetStream(l.h, l.stream) != CUBLAS_STATUS_SUCCESS)
        die("cuBLAS", "no handle");
    printf("bf16 -> bf16, C = A B_g^T by groups of rows; ms a call (median of %d paired rounds)\n", ROUNDS);
    printf("%-12s %6s %5s %7s %10s %10s %8s  %s\n", "N x K", "groups", "max", "rows", "mmtuned", "cuBLAS loop",
           "ratio", "libmmtuned served by");
    unsigned long long seed = 88172645463325252ull;
    for (int s = 0; s < 2; s++) {
        /* the operands of the largest case, filled once: values of random sign in [0.5, 1)
         * with random 7-bit mantissas, written as bf16 bit patterns (seconds for billions) */
        l.n = nk[s][0], l.k = nk[s][1];
        const int64_t most = MAX_GROUPS * maxes[2];
        const size_t a_n = (size_t)(most * l.k), b_n = (size_t)(MAX_GROUPS * l.n * l.k);
        uint16_t *ha = malloc(sizeof *ha * a_n), *hb = malloc(sizeof *hb * b_n);
        int64_t *group_of = malloc(sizeof *group_of * (size_t)most);
        if (!ha || !hb || !group_of) die("host memory", "out of it");
        uint32_t x = 1;
        for (size_t j = 0; j < a_n + b_n; j++) {
            x = x * 1664525u + 1013904223u;
            const uint16_t v = (uint16_t)(((x >> 16) & 0x807f) | 0x3f00);
            if (j < a_n) ha[j] = v;
            else hb[j - a_n] = v;
        }
        cuda_ok(cudaMalloc((void **)&l.a, sizeof *ha * a_n), "alloc");
        cuda_ok(cudaMalloc((void **)&l.b, sizeof *hb * b_n), "alloc");
        cuda_ok(cudaMalloc((void **)&l.c, sizeof(uint16_t) * (size_t)(most * l.n)), "alloc");
        cuda_ok(cudaMemcpy(l.a, ha, sizeof *ha * a_n, cudaMemcpyHostToDevice), "copy");
        cuda_ok(cudaMemcpy(l.b, hb, sizeof *hb * b_n, cudaMemcpyHostToDevice), "copy");
        for (int gi = 0; gi < 2; gi++)
            for (int mi = 0; mi < 3; mi++) {
                l.groups = group_counts[gi], l.rows = 0;
                for (int64_t g = 0; g < l.groups; g++) {
                    seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
                    l.sizes[g] = g % 7 == 3 ? 0 : (int64_t)(seed % (uint64_t)(maxes[mi] + 1));
                    l.rows += l.sizes[g];
                }
                if (!l.rows) continue;
                for (int64_t g = 0, r = 0; g < l.groups; g++)
                    for (int64_t i = 0; i < l.sizes[g]; i++) group_of[r++] = g;
                run(&l, 0); /* a kernel it builds off the caller's path takes over once built */
                cuda_ok(cudaStreamSynchronize(l.stream), "sync");
                if (mmt_wait_kernels(l.ctx, NULL) != MMT_OK) die("mmt_wait_kernels", mmt_last_error(l.ctx));
                for (int w = 0; w < 2; w++) {
                    const double e = sampled_error(&l, w, ha, hb, group_of);
                    if (!(e < 1e-2)) { /* bf16 out: 2^-8 of the scale, and the sum's own */
                        fprintf(stderr, "grouped_gpu: %s: wrong result (error %g)\n", w ? "the loop" : "libmmtuned",
                                e);
                        return 1;
                    }
                }
                const char *config = NULL;
                mmt_last_choice(l.ctx, &config);
                char served[160];
                snprintf(served, sizeof served, "%s", config ? config : "?");
                double med[2];
                gpu_paired(run, &l, l.stream, 2, ROUNDS, 1, med);
                const double ours = med[0], loop = med[1];
                char shape[32];
                snprintf(shape, sizeof shape, "%lldx%lld", (long long)l.n, (long long)l.k);
                printf("%-12s %6lld %5lld %7lld %10.4f %10.4f %7.2fx  %s\n", shape, (long long)l.groups,
                       (long long)maxes[mi], (long long)l.rows, ours, loop, loop / ours, served);
            }
        cudaFree(l.a), cudaFree(l.b), cudaFree(l.c);
        free(ha), free(hb), free(group_of);
    }
    cublasDestroy(l.h);
    mmt_close(l.ctx);
    return 0;
}
