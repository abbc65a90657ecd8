/* epilogue_gpu.c - a bias and GELU after a bf16 GEMM on a GPU, against cuBLASLt's fused
 * epilogue: libmmtuned's mmt_gemm_ex alone and mmt_gemm_epilogue (bias per column, GELU's
 * tanh form: fused into cuBLASLt's call where cuBLAS serves, else into the store of the
 * template's kernel the database chooses, timed once that variant is built), and cuBLASLt's
 * matmul alone and with CUBLASLT_EPILOGUE_GELU_BIAS (the bias of C's type), bf16 in and out,
 * fp32 accumulation, row-major NN, beta 0, on one stream (cuBLASLt with the first algorithm its
 * heuristic gives with 32 MiB of workspace). Paired rounds: about 20 ms of each
 * a sample, each after an untimed run of its own of twice that (bench.c says why), the order
 * reversed every other round, 15 rounds. Each result is checked first, output poisoned, at
 * 512 sampled elements against a double reference of the same formula.
 *   epilogue_gpu [DEVICE (0)] [MxNxK ...]   (default: 4096x4096x4096 8192x4096x4096)
 * Prints per shape the median time of a call of each way, the epilogue's cost over each
 * GEMM, and libmmtuned's epilogue call against cuBLASLt's fused one. Exits 77 without a GPU. */
#include <cublasLt.h>
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "epilogue_bench.h"
#include "half.h"

typedef struct shape {
    int64_t m, n, k;
    uint16_t *a, *b, *c, *bias;             /* device */
    const uint16_t *ha, *hb, *hbias;       /* the host's copies, for the reference */
    void *workspace;            /* cuBLASLt's, as much as cuBLAS's own calls take on Hopper */
    mmt_ctx *ctx;
    cublasLtHandle_t lt;
    cublasLtMatmulDesc_t desc[2]; /* no epilogue, GELU_BIAS */
    cublasLtMatrixLayout_t la, lb, lc;
    cublasLtMatmulAlgo_t algo[2];
    cudaStream_t stream;
} shape;

/* cuBLASLt's matmul of row-major C = A B, as column-major C^T = B^T A^T, with epilogue e
 * (0: none, 1: GELU with the bias per row of C^T, a column of C) and its first heuristic's
 * algorithm. */
static void lt_plan(shape *s, int e)
{
    lt_ok(cublasLtMatmulDescCreate(&s->desc[e], CUBLAS_COMPUTE_32F, CUDA_R_32F), "matmul desc");
    if (e) {
        const cublasLtEpilogue_t epi = CUBLASLT_EPILOGUE_GELU_BIAS;
        const cudaDataType_t bt = CUDA_R_16BF;
        lt_ok(cublasLtMatmulDescSetAttribute(s->desc[e], CUBLASLT_MATMUL_DESC_EPILOGUE, &epi, sizeof epi), "epilogue");
        lt_ok(cublasLtMatmulDescSetAttribute(s->desc[e], CUBLASLT_MATMUL_DESC_BIAS_POINTER, &s->bias, sizeof s->bias),
              "bias pointer");
        lt_ok(cublasLtMatmulDescSetAttribute(s->desc[e], CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &bt, sizeof bt),
              "bias type");
    }
    s->algo[e] = lt_first_algo(s->lt, s->desc[e], s->lb, s->la, s->lc);
}

/* One call of way w on the shape's stream. */
static void run(void *arg, int w)
{
    shape *s = arg;
    const mmt_gemm_desc d = {MMT_BF16, MMT_BF16, MMT_COMPUTE_NATIVE, MMT_ROW_MAJOR, MMT_NO_TRANS, MMT_NO_TRANS};
    const mmt_epilogue epi = {MMT_BIAS_PER_COL, MMT_BF16, s->bias, MMT_ACT_GELU_TANH, 1};
    const float one = 1, zero = 0;
    if (w < 2) {
        const mmt_status st =
            w == 0 ? mmt_gemm_ex(s->ctx, &d, s->m, s->n, s->k, 1, s->a, s->k, s->b, s->n, 0, s->c, s->n)
                   : mmt_gemm_epilogue(s->ctx, &d, &epi, s->m, s->n, s->k, 1, s->a, s->k, s->b, s->n, 0, s->c, s->n);
        if (st != MMT_OK) die(epi_way_names[w], mmt_last_error(s->ctx));
    } else {
        const int e = w - 2;
        lt_ok(cublasLtMatmul(s->lt, s->desc[e], &one, s->b, s->lb, s->a, s->la, &zero, s->c, s->lc, s->c, s->lc,
                             &s->algo[e], s->workspace, LT_WORKSPACE, s->stream),
              epi_way_names[w]);
    }
}

/* Way w's result at SAMPLED elements against a double reference of the same formula (the
 * GEMM rounded to bf16 first where the way has an epilogue, as both round it): the largest
 * error relative to the element's scale. C is poisoned (NaN) before the call. */
static double sampled_error(void *arg, int w)
{
    shape *s = arg;
    const uint16_t *ha = s->ha, *hb = s->hb, *hbias = s->hbias;
    const size_t c_bytes = sizeof(uint16_t) * (size_t)(s->m * s->n);
    cuda_ok(cudaMemsetAsync(s->c, 0xff, c_bytes, s->stream), "poison");
    run(s, w);
    cuda_ok(cudaStreamSynchronize(s->stream), "sync");
    double worst = 0;
    for (int i = 0; i < EPI_SAMPLED; i++) {
        const int64_t r = (int64_t)((i * 2654435761u) % (uint64_t)s->m), col = (int64_t)((i * 40503u) % (uint64_t)s->n);
        uint16_t got;
        cuda_ok(cudaMemcpy(&got, s->c + r * s->n + col, sizeof got, cudaMemcpyDeviceToHost), "copy");
        double sum = 0, scale = 0;
        for (int64_t l = 0; l < s->k; l++) {
            const double x = mmt_bf16_to_double(ha[r * s->k + l]) * mmt_bf16_to_double(hb[l * s->n + col]);
            sum += x, scale += fabs(x);
        }
        double want = sum;
        if (w % 2) {
            const double v = mmt_bf16_to_double(mmt_bf16_from_double(sum)) + mmt_bf16_to_double(hbias[col]);
            want = 0.5 * v * (1 + tanh(sqrt(2 / 3.14159265358979323846) * (v + 0.044715 * v * v * v)));
            scale += fabs(mmt_bf16_to_double(hbias[col]));
        }
        const double e = fabs(mmt_bf16_to_double(got) - want) / (scale > 0 ? scale : 1);
        worst = isnan(e) || e > worst ? (isnan(e) ? INFINITY : e) : worst;
    }
    return worst;
}

int main(int argc, char **argv)
{
    static const char *const defaults[] = {"4096x4096x4096", "8192x4096x4096"};
    const char *device = argc > 1 ? argv[1] : "0";
    const int n_shapes = argc > 2 ? argc - 2 : 2;
    shape s = {0};
    const int rc = gpu_bench_open("epilogue_gpu", device, &s.ctx, &s.stream);
    if (rc) return rc;
    lt_ok(cublasLtCreate(&s.lt), "cuBLASLt");
    cuda_ok(cudaMalloc(&s.workspace, LT_WORKSPACE), "alloc");
    epi_bench_head("bf16 -> bf16, row NN, bias per column, GELU (tanh)");
    for (int i = 0; i < n_shapes; i++) {
        const char *arg = argc > 2 ? argv[i + 2] : defaults[i];
        long long m, n, k;
        if (sscanf(arg, "%lldx%lldx%lld", &m, &n, &k) != 3 || m < 1 || n < 1 || k < 1) die(arg, "not MxNxK");
        s.m = m, s.n = n, s.k = k;
        uint16_t *ha = malloc(sizeof *ha * (size_t)(m * k)), *hb = malloc(sizeof *hb * (size_t)(k * n)),
                 *hbias = malloc(sizeof *hbias * (size_t)n);
        if (!ha || !hb || !hbias) die(arg, "out of host memory");
        srand(1);
        for (long long j = 0; j < m * k; j++) ha[j] = mmt_bf16_from_double(2.0 * rand() / RAND_MAX - 1);
        for (long long j = 0; j < k * n; j++) hb[j] = mmt_bf16_from_double(2.0 * rand() / RAND_MAX - 1);
        for (long long j = 0; j < n; j++) hbias[j] = mmt_bf16_from_double(2.0 * rand() / RAND_MAX - 1);
        cuda_ok(cudaMalloc((void **)&s.a, sizeof *ha * (size_t)(m * k)), "alloc");
        cuda_ok(cudaMalloc((void **)&s.b, sizeof *hb * (size_t)(k * n)), "alloc");
        cuda_ok(cudaMalloc((void **)&s.c, sizeof(uint16_t) * (size_t)(m * n)), "alloc");
        cuda_ok(cudaMalloc((void **)&s.bias, sizeof *hbias * (size_t)n), "alloc");
        cuda_ok(cudaMemcpy(s.a, ha, sizeof *ha * (size_t)(m * k), cudaMemcpyHostToDevice), "copy");
        cuda_ok(cudaMemcpy(s.b, hb, sizeof *hb * (size_t)(k * n), cudaMemcpyHostToDevice), "copy");
        cuda_ok(cudaMemcpy(s.bias, hbias, sizeof *hbias * (size_t)n, cudaMemcpyHostToDevice), "copy");
        /* column-major: A^T is k x m (ld k), B^T n x k (ld n), C^T n x m (ld n) */
        lt_ok(cublasLtMatrixLayoutCreate(&s.la, CUDA_R_16BF, (uint64_t)k, (uint64_t)m, k), "layout");
        lt_ok(cublasLtMatrixLayoutCreate(&s.lb, CUDA_R_16BF, (uint64_t)n, (uint64_t)k, n), "layout");
        lt_ok(cublasLtMatrixLayoutCreate(&s.lc, CUDA_R_16BF, (uint64_t)n, (uint64_t)m, n), "layout");
        lt_plan(&s, 0);
        lt_plan(&s, 1);
        s.ha = ha, s.hb = hb, s.hbias = hbias;
        epi_bench_row(arg, run, sampled_error, 1e-2, &s, s.ctx, s.stream); /* bf16 out: 2^-8 of the scale */
        for (int e = 0; e < 2; e++) cublasLtMatmulDescDestroy(s.desc[e]);
        cublasLtMatrixLayoutDestroy(s.la), cublasLtMatrixLayoutDestroy(s.lb), cublasLtMatrixLayoutDestroy(s.lc);
        cudaFree(s.a), cudaFree(s.b), cudaFree(s.c), cudaFree(s.bias);
        free(ha), free(hb), free(hbias);
    }
    epi_bench_foot();
    cublasLtDestroy(s.lt);
    cudaFree(s.workspace);
    mmt_close(s.ctx);
    return 0;
}
