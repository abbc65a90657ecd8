/* epilogue_fp8_gpu.c - an FP8 layer's output on a GPU: e4m3 in, e4m3 out (rounded to nearest,
 * saturated) with the output's scale, against cuBLASLt's FP8 matmul with an e4m3 D: libmmtuned's
 * mmt_gemm_ex (the scale in alpha) and mmt_gemm_epilogue (a bias per column in fp32, GELU's
 * tanh form, the scale after it: in the store of the template's kernel, timed once that
 * variant is built), and cuBLASLt's matmul alone and with CUBLASLT_EPILOGUE_GELU_BIAS (a bf16
 * bias of the same values, its D scale; C of bf16, which beta 0 leaves unread), row-major
 * C = A B^T (B stored N x K: both operands K-major, as cuBLASLt's FP8 matmul takes them), fp32
 * accumulation, beta 0, on one stream (cuBLASLt with the first algorithm its heuristic gives
 * with 32 MiB of workspace). Paired rounds as epilogue_gpu.c. Each result is checked first,
 * output poisoned, at 512 sampled elements against a double reference of the same formula.
 *   epilogue_fp8_gpu [DEVICE (0)] [MxNxK ...]   (default: 4096x4096x4096 8192x8192x8192)
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
static const float SCALE = 0.25f; /* the output's */

typedef struct shape {
    int64_t m, n, k;
    uint8_t *a, *b, *c; /* device: A m x k, B n x k, C m x n, all FP8 */
    const uint8_t *ha, *hb; /* the host's copies, for the reference */
    const float *hbias;
    uint16_t *c16;      /* cuBLASLt's C (bf16), never read */
    float *bias, *scale;
    uint16_t *bias16;
    void *workspace;
    mmt_ctx *ctx;
    cublasLtHandle_t lt;
    cublasLtMatmulDesc_t desc[2]; /* no epilogue, GELU_BIAS */
    cublasLtMatrixLayout_t la, lb, lc, ld;
    cublasLtMatmulAlgo_t algo[2];
    cudaStream_t stream;
} shape;

/* cuBLASLt's matmul of row-major C = A B^T as column-major C^T = B A^T (B^T's storage read
 * transposed, A's as stored: both K-major), D in e4m3 times the scale, with epilogue e (0:
 * none, 1: GELU with the bias per row of C^T, a column of C). */
static void lt_plan(shape *s, int e)
{
    lt_ok(cublasLtMatmulDescCreate(&s->desc[e], CUBLAS_COMPUTE_32F, CUDA_R_32F), "matmul desc");
    const cublasOperation_t t = CUBLAS_OP_T;
    lt_ok(cublasLtMatmulDescSetAttribute(s->desc[e], CUBLASLT_MATMUL_DESC_TRANSA, &t, sizeof t), "transa");
    lt_ok(cublasLtMatmulDescSetAttribute(s->desc[e], CUBLASLT_MATMUL_DESC_D_SCALE_POINTER, &s->scale,
                                         sizeof s->scale),
          "D scale");
    if (e) {
        const cublasLtEpilogue_t epi = CUBLASLT_EPILOGUE_GELU_BIAS;
        const cudaDataType_t bt = CUDA_R_16BF;
        lt_ok(cublasLtMatmulDescSetAttribute(s->desc[e], CUBLASLT_MATMUL_DESC_EPILOGUE, &epi, sizeof epi), "epilogue");
        lt_ok(cublasLtMatmulDescSetAttribute(s->desc[e], CUBLASLT_MATMUL_DESC_BIAS_POINTER, &s->bias16,
                                             sizeof s->bias16),
              "bias pointer");
        lt_ok(cublasLtMatmulDescSetAttribute(s->desc[e], CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &bt, sizeof bt),
              "bias type");
    }
    s->algo[e] = lt_first_algo_cd(s->lt, s->desc[e], s->lb, s->la, s->lc, s->ld);
}

/* One call of way w on the shape's stream. */
static void run(void *arg, int w)
{
    shape *s = arg;
    const mmt_gemm_desc d = {MMT_E4M3, MMT_E4M3, MMT_COMPUTE_NATIVE, MMT_ROW_MAJOR, MMT_NO_TRANS, MMT_TRANS};
    const mmt_epilogue epi = {MMT_BIAS_PER_COL, MMT_F32, s->bias, MMT_ACT_GELU_TANH, SCALE};
    const float one = 1, zero = 0;
    if (w < 2) {
        const mmt_status st =
            w == 0 ? mmt_gemm_ex(s->ctx, &d, s->m, s->n, s->k, SCALE, s->a, s->k, s->b, s->k, 0, s->c, s->n)
                   : mmt_gemm_epilogue(s->ctx, &d, &epi, s->m, s->n, s->k, 1, s->a, s->k, s->b, s->k, 0, s->c, s->n);
        if (st != MMT_OK) die(epi_way_names[w], mmt_last_error(s->ctx));
    } else {
        const int e = w - 2;
        lt_ok(cublasLtMatmul(s->lt, s->desc[e], &one, s->b, s->lb, s->a, s->la, &zero, s->c16, s->lc, s->c, s->ld,
                             &s->algo[e], s->workspace, LT_WORKSPACE, s->stream),
              epi_way_names[w]);
    }
}

/* Way w's result at SAMPLED elements against a double reference of the same formula, C
 * saturated at e4m3's 448: the largest error relative to the element's scale. C is poisoned
 * (NaN) before the call. */
static double sampled_error(void *arg, int w)
{
    shape *s = arg;
    const uint8_t *ha = s->ha, *hb = s->hb;
    const float *hbias = s->hbias;
    cuda_ok(cudaMemsetAsync(s->c, 0xff, (size_t)(s->m * s->n), s->stream), "poison");
    run(s, w);
    cuda_ok(cudaStreamSynchronize(s->stream), "sync");
    double worst = 0;
    for (int i = 0; i < EPI_SAMPLED; i++) {
        const int64_t r = (int64_t)((i * 2654435761u) % (uint64_t)s->m), col = (int64_t)((i * 40503u) % (uint64_t)s->n);
        uint8_t got;
        cuda_ok(cudaMemcpy(&got, s->c + r * s->n + col, sizeof got, cudaMemcpyDeviceToHost), "copy");
        double sum = 0, scale = 0;
        for (int64_t l = 0; l < s->k; l++) {
            const double x = mmt_e4m3_to_double(ha[r * s->k + l]) * mmt_e4m3_to_double(hb[col * s->k + l]);
            sum += x, scale += fabs(x);
        }
        if (w % 2) {
            const double v = sum + hbias[col];
            sum = 0.5 * v * (1 + tanh(sqrt(2 / 3.14159265358979323846) * (v + 0.044715 * v * v * v)));
            scale += fabs(hbias[col]);
        }
        const double want = fmin(fmax(SCALE * sum, -448), 448);
        const double e = fabs(mmt_e4m3_to_double(got) - want) / (SCALE * (scale > 0 ? scale : 1));
        worst = isnan(e) || e > worst ? (isnan(e) ? INFINITY : e) : worst;
    }
    return worst;
}

static void *on_device(const void *x, size_t bytes)
{
    void *d = NULL;
    cuda_ok(cudaMalloc(&d, bytes), "alloc");
    if (x) cuda_ok(cudaMemcpy(d, x, bytes, cudaMemcpyHostToDevice), "copy");
    return d;
}

int main(int argc, char **argv)
{
    static const char *const defaults[] = {"4096x4096x4096", "8192x8192x8192"};
    const char *device = argc > 1 ? argv[1] : "0";
    const int n_shapes = argc > 2 ? argc - 2 : 2;
    shape s = {0};
    const int rc = gpu_bench_open("epilogue_fp8_gpu", device, &s.ctx, &s.stream);
    if (rc) return rc;
    lt_ok(cublasLtCreate(&s.lt), "cuBLASLt");
    s.workspace = on_device(NULL, LT_WORKSPACE);
    s.scale = on_device(&SCALE, sizeof SCALE);
    epi_bench_head("e4m3 -> e4m3 (scale 0.25), row NT, bias per column, GELU (tanh)");
    for (int i = 0; i < n_shapes; i++) {
        const char *arg = argc > 2 ? argv[i + 2] : defaults[i];
        long long m, n, k;
        if (sscanf(arg, "%lldx%lldx%lld", &m, &n, &k) != 3 || m < 1 || n < 1 || k < 1) die(arg, "not MxNxK");
        s.m = m, s.n = n, s.k = k;
        uint8_t *ha = malloc((size_t)(m * k)), *hb = malloc((size_t)(n * k));
        float *hbias = malloc(sizeof *hbias * (size_t)n);
        uint16_t *hbias16 = malloc(sizeof *hbias16 * (size_t)n);
        if (!ha || !hb || !hbias || !hbias16) die(arg, "out of host memory");
        srand(1);
        for (long long j = 0; j < m * k; j++) ha[j] = mmt_e4m3_from_double(2.0 * rand() / RAND_MAX - 1);
        for (long long j = 0; j < n * k; j++) hb[j] = mmt_e4m3_from_double(2.0 * rand() / RAND_MAX - 1);
        for (long long j = 0; j < n; j++) { /* one value for both: a bf16 one */
            hbias16[j] = mmt_bf16_from_double(2.0 * rand() / RAND_MAX - 1);
            hbias[j] = (float)mmt_bf16_to_double(hbias16[j]);
        }
        s.a = on_device(ha, (size_t)(m * k)), s.b = on_device(hb, (size_t)(n * k));
        s.c = on_device(NULL, (size_t)(m * n)), s.c16 = on_device(NULL, sizeof *s.c16 * (size_t)(m * n));
        s.bias = on_device(hbias, sizeof *hbias * (size_t)n);
        s.bias16 = on_device(hbias16, sizeof *hbias16 * (size_t)n);
        /* column-major: A's storage is k x m (ld k), B's k x n (ld k, read transposed), C^T n x m (ld n) */
        lt_ok(cublasLtMatrixLayoutCreate(&s.la, CUDA_R_8F_E4M3, (uint64_t)k, (uint64_t)m, k), "layout");
        lt_ok(cublasLtMatrixLayoutCreate(&s.lb, CUDA_R_8F_E4M3, (uint64_t)k, (uint64_t)n, k), "layout");
        lt_ok(cublasLtMatrixLayoutCreate(&s.lc, CUDA_R_16BF, (uint64_t)n, (uint64_t)m, n), "layout");
        lt_ok(cublasLtMatrixLayoutCreate(&s.ld, CUDA_R_8F_E4M3, (uint64_t)n, (uint64_t)m, n), "layout");
        lt_plan(&s, 0);
        lt_plan(&s, 1);
        s.ha = ha, s.hb = hb, s.hbias = hbias;
        epi_bench_row(arg, run, sampled_error, 0.07, &s, s.ctx, s.stream); /* e4m3 out: 2^-4 of the scale */
        for (int e = 0; e < 2; e++) cublasLtMatmulDescDestroy(s.desc[e]);
        cublasLtMatrixLayoutDestroy(s.la), cublasLtMatrixLayoutDestroy(s.lb);
        cublasLtMatrixLayoutDestroy(s.lc), cublasLtMatrixLayoutDestroy(s.ld);
        cudaFree(s.a), cudaFree(s.b), cudaFree(s.c), cudaFree(s.c16), cudaFree(s.bias), cudaFree(s.bias16);
        free(ha), free(hb), free(hbias), free(hbias16);
    }
    epi_bench_foot();
    cublasLtDestroy(s.lt);
    cudaFree(s.workspace), cudaFree(s.scale);
    mmt_close(s.ctx);
    return 0;
}
