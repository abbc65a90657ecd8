/* grouped_gpu.c - a mixture of experts' layer on a GPU: mmt_gemm_grouped (bf16, or e4m3 with
 * bf16 C; row-major C = A B_g^T, A's rows and C's in groups, B_g the group's N x K weights,
 * one after another) against the loop of cuBLAS calls an application writes, one a non-empty
 * group (bf16: cublasGemmEx; e4m3: cublasLtMatmul, each group's plan made beforehand with the
 * first algorithm of cuBLASLt's heuristic, fp32 sums promoted as libmmtuned's are), on one
 * stream, nothing tuned (MMTUNE_DB as set). Group sizes drawn from 0 to MAX rows (a
 * fixed seed; every seventh group empty), for 8 and 64 groups, N x K 4096 x 4096 and 7168 x
 * 2048, MAX 64, 512 and 4096 (the operands of the largest case made once for each N x K).
 * Paired rounds: about 20 ms of each way a sample, each after an untimed run of its own of
 * twice that, the order reversed every other round, 9 rounds. Each way's result is checked
 * first, C poisoned, at 256 sampled elements against a double reference, after libmmtuned's
 * first call and the kernels it built meanwhile. Prints each case's median time of both
 * ways, what served libmmtuned's call and the ratio (above 1.00x: libmmtuned faster than the
 * loop).
 *   grouped_gpu [DEVICE (0)] [bf16 (default) | e4m3]
 * Exits 77 without a GPU. */
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "half.h"
#include "lt_bench.h"

enum { ROUNDS = 9, SAMPLED = 256, MAX_GROUPS = 64 };

typedef struct layer {
    int fp8;   /* A and B e4m3 (else bf16); C bf16 */
    size_t es; /* bytes of an element of A and B */
    int64_t groups, n, k, rows, sizes[MAX_GROUPS];
    char *a, *b;
    uint16_t *c; /* device */
    mmt_ctx *ctx;
    cublasHandle_t h;
    cudaStream_t stream;
    /* e4m3: cuBLASLt's plan of each group, its workspace */
    cublasLtHandle_t lt;
    cublasLtMatmulDesc_t desc;
    cublasLtMatrixLayout_t lb, la[MAX_GROUPS], lc[MAX_GROUPS];
    cublasLtMatmulAlgo_t algo[MAX_GROUPS];
    void *workspace;
} layer;

/* Each non-empty group's cuBLASLt plan: column-major C_g^T (n x m_g) = B_g (k x n, transposed)
 * A_g^T (k x m_g), the layout FP8 matmuls take, with the first algorithm of the heuristic. */
static void lt_plans(layer *l)
{
    const cublasOperation_t t = CUBLAS_OP_T;
    lt_ok(cublasLtMatmulDescCreate(&l->desc, CUBLAS_COMPUTE_32F, CUDA_R_32F), "matmul desc");
    lt_ok(cublasLtMatmulDescSetAttribute(l->desc, CUBLASLT_MATMUL_DESC_TRANSA, &t, sizeof t), "transa");
    lt_ok(cublasLtMatrixLayoutCreate(&l->lb, CUDA_R_8F_E4M3, (uint64_t)l->k, (uint64_t)l->n, l->k), "layout");
    for (int64_t g = 0; g < l->groups; g++) {
        if (!l->sizes[g]) continue;
        lt_ok(cublasLtMatrixLayoutCreate(&l->la[g], CUDA_R_8F_E4M3, (uint64_t)l->k, (uint64_t)l->sizes[g], l->k),
              "layout");
        lt_ok(cublasLtMatrixLayoutCreate(&l->lc[g], CUDA_R_16BF, (uint64_t)l->n, (uint64_t)l->sizes[g], l->n),
              "layout");
        l->algo[g] = lt_first_algo(l->lt, l->desc, l->lb, l->la[g], l->lc[g]);
    }
}

static void lt_plans_free(layer *l)
{
    for (int64_t g = 0; g < l->groups; g++)
        if (l->sizes[g]) cublasLtMatrixLayoutDestroy(l->la[g]), cublasLtMatrixLayoutDestroy(l->lc[g]);
    cublasLtMatrixLayoutDestroy(l->lb);
    cublasLtMatmulDescDestroy(l->desc);
}

/* One call of way w (0 libmmtuned, 1 the loop of cuBLAS calls) on the layer's stream. */
static void run(void *arg, int w)
{
    layer *l = arg;
    if (w == 0) {
        const mmt_gemm_desc d = {l->fp8 ? MMT_E4M3 : MMT_BF16, MMT_BF16, MMT_COMPUTE_NATIVE, MMT_ROW_MAJOR,
                                 MMT_NO_TRANS, MMT_TRANS};
        if (mmt_gemm_grouped(l->ctx, &d, l->groups, l->sizes, l->n, l->k, 1, l->a, l->k, l->b, l->k, l->n * l->k, 0,
                             l->c, l->n) != MMT_OK)
            die("mmt_gemm_grouped", mmt_last_error(l->ctx));
        return;
    }
    const float one = 1, zero = 0;
    for (int64_t g = 0, row = 0; g < l->groups; row += l->sizes[g], g++) {
        if (!l->sizes[g]) continue;
        const char *bg = l->b + g * l->n * l->k * l->es, *ag = l->a + row * l->k * l->es;
        if (l->fp8) {
            lt_ok(cublasLtMatmul(l->lt, l->desc, &one, bg, l->lb, ag, l->la[g], &zero, l->c + row * l->n, l->lc[g],
                                 l->c + row * l->n, l->lc[g], &l->algo[g], l->workspace, LT_WORKSPACE, l->stream),
                  "cublasLtMatmul");
            continue;
        }
        /* column-major C_g^T (n x m_g) = B_g (stored n x k: k x n column-major, transposed) A_g^T */
        if (cublasGemmEx(l->h, CUBLAS_OP_T, CUBLAS_OP_N, (int)l->n, (int)l->sizes[g], (int)l->k, &one, bg,
                         CUDA_R_16BF, (int)l->k, ag, CUDA_R_16BF, (int)l->k, &zero, l->c + row * l->n, CUDA_R_16BF,
                         (int)l->n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT) != CUBLAS_STATUS_SUCCESS)
            die("cublasGemmEx", "failed");
    }
}

/* Way w's result at SAMPLED elements of C (poisoned first) against a double reference: the
 * largest error relative to the element's scale. */
static double element(const layer *l, const void *x, int64_t i)
{
    return l->fp8 ? mmt_e4m3_to_double(((const uint8_t *)x)[i]) : mmt_bf16_to_double(((const uint16_t *)x)[i]);
}

static double sampled_error(layer *l, int w, const void *ha, const void *hb, const int64_t *group_of)
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
        const int64_t bg = (group_of[r] * l->n + col) * l->k;
        double sum = 0, scale = 0;
        for (int64_t j = 0; j < l->k; j++) {
            const double x = element(l, ha, r * l->k + j) * element(l, hb, bg + j);
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
    const char *device = argc > 1 ? argv[1] : "0", *mode = argc > 2 ? argv[2] : "bf16";
    layer l = {.fp8 = strcmp(mode, "e4m3") == 0};
    if (!l.fp8 && strcmp(mode, "bf16") != 0) die(mode, "not bf16 or e4m3");
    l.es = l.fp8 ? 1 : 2;
    const int rc = gpu_bench_open("grouped_gpu", device, &l.ctx, &l.stream);
    if (rc) return rc;
    if (cublasCreate(&l.h) != CUBLAS_STATUS_SUCCESS || cublasSetStream(l.h, l.stream) != CUBLAS_STATUS_SUCCESS)
        die("cuBLAS", "no handle");
    lt_ok(cublasLtCreate(&l.lt), "cuBLASLt");
    cuda_ok(cudaMalloc(&l.workspace, LT_WORKSPACE), "alloc");
    printf("%s -> bf16, C = A B_g^T by groups of rows; ms a call (median of %d paired rounds)\n", mode, ROUNDS);
    printf("%-12s %6s %5s %7s %10s %10s %8s  %s\n", "N x K", "groups", "max", "rows", "mmtuned",
           l.fp8 ? "cuBLASLt loop" : "cuBLAS loop",
           "ratio", "libmmtuned served by");
    unsigned long long seed = 88172645463325252ull;
    for (int s = 0; s < 2; s++) {
        /* the operands of the largest case, filled once: values of random sign in [0.5, 1)
         * with random mantissas, written as bf16 (7 bits) or e4m3 (3 bits) bit patterns
         * (seconds for billions) */
        l.n = nk[s][0], l.k = nk[s][1];
        const int64_t most = MAX_GROUPS * maxes[2];
        const size_t a_n = (size_t)(most * l.k), b_n = (size_t)(MAX_GROUPS * l.n * l.k);
        char *ha = malloc(l.es * a_n), *hb = malloc(l.es * b_n);
        int64_t *group_of = malloc(sizeof *group_of * (size_t)most);
        if (!ha || !hb || !group_of) die("host memory", "out of it");
        uint32_t x = 1;
        for (size_t j = 0; j < a_n + b_n; j++) {
            x = x * 1664525u + 1013904223u;
            char *to = j < a_n ? ha + l.es * j : hb + l.es * (j - a_n);
            if (l.fp8) *(uint8_t *)to = (uint8_t)(((x >> 16) & 0x87) | 0x30);
            else *(uint16_t *)to = (uint16_t)(((x >> 16) & 0x807f) | 0x3f00);
        }
        cuda_ok(cudaMalloc((void **)&l.a, l.es * a_n), "alloc");
        cuda_ok(cudaMalloc((void **)&l.b, l.es * b_n), "alloc");
        cuda_ok(cudaMalloc((void **)&l.c, sizeof(uint16_t) * (size_t)(most * l.n)), "alloc");
        cuda_ok(cudaMemcpy(l.a, ha, l.es * a_n, cudaMemcpyHostToDevice), "copy");
        cuda_ok(cudaMemcpy(l.b, hb, l.es * b_n, cudaMemcpyHostToDevice), "copy");
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
                if (l.fp8) lt_plans(&l);
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
                if (l.fp8) lt_plans_free(&l);
            }
        cudaFree(l.a), cudaFree(l.b), cudaFree(l.c);
        free(ha), free(hb), free(group_of);
    }
    cudaFree(l.workspace);
    cublasLtDestroy(l.lt);
    cublasDestroy(l.h);
    mmt_close(l.ctx);
    return 0;
}
