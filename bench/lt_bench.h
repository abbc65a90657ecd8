/* lt_bench.h - what the GPU benches that call cuBLASLt directly share: its failures, and the
 * first algorithm of its heuristic for a matmul with as much workspace as cuBLAS's own calls
 * take on Hopper (LT_WORKSPACE, which the caller allocates and passes to each call). */
#ifndef MMT_BENCH_LT_BENCH_H
#define MMT_BENCH_LT_BENCH_H

#include <cublasLt.h>
#include <stdint.h>

#include "gpu_bench.h"

#define LT_WORKSPACE ((size_t)32 << 20)

static void lt_ok(cublasStatus_t s, const char *what)
{
    if (s != CUBLAS_STATUS_SUCCESS) {
        char why[32];
        snprintf(why, sizeof why, "cuBLAS status %d", (int)s);
        die(what, why);
    }
}

/* The heuristic's first algorithm for D = A B (+ C) as desc, la, lb, lc and ld say. */
static cublasLtMatmulAlgo_t lt_first_algo_cd(cublasLtHandle_t lt, cublasLtMatmulDesc_t desc,
                                             cublasLtMatrixLayout_t la, cublasLtMatrixLayout_t lb,
                                             cublasLtMatrixLayout_t lc, cublasLtMatrixLayout_t ld)
{
    cublasLtMatmulPreference_t pref;
    lt_ok(cublasLtMatmulPreferenceCreate(&pref), "preference");
    const uint64_t workspace = LT_WORKSPACE;
    lt_ok(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace,
                                               sizeof workspace),
          "workspace");
    cublasLtMatmulHeuristicResult_t found;
    int count = 0;
    lt_ok(cublasLtMatmulAlgoGetHeuristic(lt, desc, la, lb, lc, ld, pref, 1, &found, &count), "heuristic");
    if (count < 1) die("heuristic", "no algorithm");
    cublasLtMatmulPreferenceDestroy(pref);
    return found.algo;
}

/* The same for D = C = A B. */
static cublasLtMatmulAlgo_t lt_first_algo(cublasLtHandle_t lt, cublasLtMatmulDesc_t desc, cublasLtMatrixLayout_t la,
                                          cublasLtMatrixLayout_t lb, cublasLtMatrixLayout_t lc)
{
    return lt_first_algo_cd(lt, desc, la, lb, lc, lc);
}

#endif
