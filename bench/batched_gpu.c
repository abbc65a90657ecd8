/* batched_gpu.c - strided batches of bf16 GEMMs on a GPU: libmmtuned's mmt_gemm_strided_batched
 * against cuBLAS's cublasGemmStridedBatchedEx, bf16 in and out, fp32 accumulation, row-major
 * C = A B and C = A B^T (B stored N x K), the matrices packed one after another, beta 0, on
 * one stream, nothing tuned (MMTUNE_DB as set). Each way's result is checked first, C
 * poisoned, at 256 sampled elements against a double reference, after libmmtuned's first call
 * and the kernels it built meanwhile; then paired rounds (gpu_bench.h), 15 rounds.
 *   batched_gpu [DEVICE (0)] [BATCHxMxNxK ...]  (default: 64x512x512x64 32x1024x1024x128 8x4096x4096x128)
 * Prints per shape and layout the median time of a batch of each way, cuBLAS's over
 * libmmtuned's (above 1.00x: libmmtuned faster) and what served libmmtuned's batch. Exits 77
 * without a GPU. */
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_bench.h"
#include "half.h"

enum { ROUNDS = 15, SAMPLED = 256 };

typedef struct batch {
    int64_t count, m, n, k;
    int tb;              /* B stored N x K: C = A B^T */
    uint16_t *a, *b, *c; /* device */
    mmt_ctx *ctx;
    cublasHandle_t h;
    cudaStream_t stream;
} batch;

/* One batch of way w (0 libmmtuned, 1 cuBLAS) on the stream. */
static void run(void *arg, int w)
{
    batch *t = arg;
    const int64_t sa = t->m * t->k, sb = t->k * t->n, sc = t->m * t->n;
    if (w == 0) {
        const mmt_gemm_desc d = {MMT_BF16, MMT_BF16, MMT_COMPUTE_NATIVE, MMT_ROW_MAJOR, MMT_NO_TRANS,
                                 t->tb ? MMT_TRANS : MMT_NO_TRANS};
        if (mmt_gemm_strided_batched(t->ctx, &d, t->m, t->n, t->k, 1, t->a, t->k, sa, t->b, t->tb ? t->k : t->n, sb, 0,
                                     t->c, t->n, sc, t->count) != MMT_OK)
            die("mmt_gemm_strided_batched", mmt_last_error(t->ctx));
        return;
    }
    const float one = 1, zero = 0;
    /* column-major C^T (n x m) = op(B)^T (n x k) A^T (k x m): B read as stored (N x K, C = A B^T) */
    const int ldb = (int)(t->tb ? t->k : t->n);
    if (cublasGemmStridedBatchedEx(t->h, t->tb ? CUBLAS_OP_T : CUBLAS_OP_N, CUBLAS_OP_N, (int)t->n, (int)t->m,
                                   (int)t->k, &one, t->b, CUDA_R_16BF, ldb, sb, t->a, CUDA_R_16BF, (int)t->k, sa,
                                   &zero, t->c, CUDA_R_16BF, (int)t->n, sc, (int)t->count, CUBLAS_COMPUTE_32F,
                                   CUBLAS_GEMM_DEFAULT) != CUBLAS_STATUS_SUCCESS)
        die("cublasGemmStridedBatchedEx", "failed");
}

/* Way w's result at SAMPLED elements of the batch's C's (poisoned first) against a double
 * reference: the largest error relative to the element's scale. */
static double sampled_error(batch *t, int w, const uint16_t *ha, const uint16_t *hb)
{
    cuda_ok(cudaMemsetAsync(t->c, 0xff, sizeof(uint16_t) * (size_t)(t->count * t->m * t->n), t->stream), "poison");
    run(t, w);
    cuda_ok(cudaStreamSynchronize(t->stream), "sync");
    double worst = 0;
    for (int i = 0; i < SAMPLED; i++) {
        const int64_t g = i % t->count, r = (int64_t)((i * 2654435761u) % (uint64_t)t->m),
                      col = (int64_t)((i * 40503u) % (uint64_t)t->n);
        uint16_t got;
        cuda_ok(cudaMemcpy(&got, t->c + (g * t->m + r) * t->n + col, sizeof got, cudaMemcpyDeviceToHost), "copy");
        const uint16_t *ag = ha + (g * t->m + r) * t->k, *bg = hb + g * t->k * t->n + (t->tb ? col * t->k : col);
        double sum = 0, scale = 0;
        for (int64_t j = 0; j < t->k; j++) {
            const double x = mmt_bf16_to_double(ag[j]) * mmt_bf16_to_double(bg[t->tb ? j : j * t->n]);
            sum += x, scale += fabs(x);
        }
        const double e = fabs(mmt_bf16_to_double(got) - sum) / (scale > 0 ? scale : 1);
        worst = isnan(e) || e > worst ? (isnan(e) ? INFINITY : e) : worst;
    }
    return worst;
}

int main(int argc, char **argv)
{
    static const char *const defaults[] = {"64x512x512x64", "32x1024x1024x128", "8x4096x4096x128"};
    const char *device = argc > 1 ? argv[1] : "0";
    const int n_shapes = argc > 2 ? argc - 2 : 3;
    batch t = {0};
    const int rc = gpu_bench_open("batched_gpu", device, &t.ctx, &t.stream);
    if (rc) return rc;
    if (cublasCreate(&t.h) != CUBLAS_STATUS_SUCCESS || cublasSetStream(t.h, t.stream) != CUBLAS_STATUS_SUCCESS)
        die("cuBLAS", "no handle");
    printf("bf16 -> bf16, row-major strided batches; ms a batch (median of %d paired rounds)\n", ROUNDS);
    printf("%-20s %4s %10s %10s %8s  %s\n", "batch x MxNxK", "", "mmtuned", "cuBLAS", "ratio",
           "libmmtuned served by");
    for (int i = 0; i < n_shapes; i++) {
        const char *arg = argc > 2 ? argv[i + 2] : defaults[i];
        long long count, m, n, k;
        if (sscanf(arg, "%lldx%lldx%lldx%lld", &count, &m, &n, &k) != 4 || count < 1 || m < 1 || n < 1 || k < 1)
            die(arg, "not BATCHxMxNxK");
        t.count = count, t.m = m, t.n = n, t.k = k;
        const size_t a_n = (size_t)(count * m * k), b_n = (size_t)(count * k * n), c_n = (size_t)(count * m * n);
        uint16_t *ha = malloc(sizeof *ha * a_n), *hb = malloc(sizeof *hb * b_n);
        if (!ha || !hb) die(arg, "out of host memory");
        srand(1);
        for (size_t j = 0; j < a_n; j++) ha[j] = mmt_bf16_from_double(2.0 * rand() / RAND_MAX - 1);
        for (size_t j = 0; j < b_n; j++) hb[j] = mmt_bf16_from_double(2.0 * rand() / RAND_MAX - 1);
        cuda_ok(cudaMalloc((void **)&t.a, sizeof *ha * a_n), "alloc");
        cuda_ok(cudaMalloc((void **)&t.b, sizeof *hb * b_n), "alloc");
        cuda_ok(cudaMalloc((void **)&t.c, sizeof(uint16_t) * c_n), "alloc");
        cuda_ok(cudaMemcpy(t.a, ha, sizeof *ha * a_n, cudaMemcpyHostToDevice), "copy");
        cuda_ok(cudaMemcpy(t.b, hb, sizeof *hb * b_n, cudaMemcpyHostToDevice), "copy");
        for (t.tb = 0; t.tb < 2; t.tb++) {
            run(&t, 0); /* a kernel it builds off the caller's path takes over once built */
            cuda_ok(cudaStreamSynchronize(t.stream), "sync");
            if (mmt_wait_kernels(t.ctx, NULL) != MMT_OK) die("mmt_wait_kernels", mmt_last_error(t.ctx));
            for (int w = 0; w < 2; w++) {
                const double e = sampled_error(&t, w, ha, hb);
                if (!(e < 1e-2)) { /* bf16 out: 2^-8 of the scale, and the sum's own */
                    fprintf(stderr, "batched_gpu: %s %s: wrong result (error %g)\n", arg, w ? "cuBLAS" : "libmmtuned",
                            e);
                    return 1;
                }
            }
            const char *config = NULL;
            mmt_last_choice(t.ctx, &config);
            char served[160];
            snprintf(served, sizeof served, "%s", config ? config : "?");
            double med[2];
            gpu_paired(run, &t, t.stream, 2, ROUNDS, 1, med);
            printf("%-20s %4s %10.4f %10.4f %7.2fx  %s\n", arg, t.tb ? "NT" : "NN", med[0], med[1],
                   med[1] / med[0], served);
        }
        cudaFree(t.a), cudaFree(t.b), cudaFree(t.c);
        free(ha), free(hb);
    }
    cublasDestroy(t.h);
    mmt_close(t.ctx);
    return 0;
}
