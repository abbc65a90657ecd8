/* cublas.h - cuBLAS, opened with dlopen, as the vendor baseline on CUDA devices. The
 * handle uses the device's primary context (the one the CUDA backend launches in) and
 * cuBLAS's default math mode: plain FP32 SGEMM, no TF32 tensor cores unless a call asks
 * for them (the tf32 mode). */
#ifndef MMT_CUBLAS_H
#define MMT_CUBLAS_H

#include "backend.h"
#include "problem.h"

typedef struct mmt_cublas mmt_cublas;

/* Opens libcublas and creates a handle on GPU `ordinal`. On failure *out is NULL and err
 * says why (MMT_NOT_FOUND when cuBLAS is not installed). */
mmt_status mmt_cublas_open(int ordinal, mmt_cublas **out, mmt_err *err);

/* Destroys the handle; NULL is a no-op. */
void mmt_cublas_close(mmt_cublas *cb);

/* "cuBLAS 13.1.0"; owned by cb. */
const char *mmt_cublas_name(const mmt_cublas *cb);

/* The row-major GEMM of p (device pointers; alpha and beta as in BLAS) for a problem of
 * precision mode `mode` whose C is of type `out`, on stream (a CUstream, NULL for the
 * default stream); asynchronous. Sizes must fit in 32 bits.
 *   f32, f64  cublasSgemm, cublasDgemm;
 *   bf16, f16 cublasGemmEx: 16-bit A and B, C of type out (f32 or the input type), fp32
 *             compute, alpha and beta as float;
 *   tf32      cublasGemmEx on f32 data with CUBLAS_COMPUTE_32F_FAST_TF32;
 *   f32x3     cublasSgemm: f32x3 keeps fp32 accuracy, so its baseline is plain SGEMM (the
 *             goal: f32x3 at 1.5x cuBLAS SGEMM or better). */
mmt_status mmt_cublas_gemm(mmt_cublas *cb, mmt_mode mode, mmt_dtype out, const mmt_gemm_params *p, void *stream,
                           mmt_err *err);

/* count GEMMs of p's sizes as mmt_cublas_gemm runs one, the i-th on p's pointers plus i
 * times each matrix's stride of bt, in one call of cuBLAS's strided-batched routine for the
 * mode (cublasSgemmStridedBatched, cublasDgemmStridedBatched, cublasGemmStridedBatchedEx);
 * the count must fit in 32 bits. */
mmt_status mmt_cublas_gemm_strided_batched(mmt_cublas *cb, mmt_mode mode, mmt_dtype out, const mmt_gemm_params *p,
                                           const mmt_batch *bt, void *stream, mmt_err *err);

/* count GEMMs, each a row-major one of its own sizes, pointers, leading dimensions, alpha and
 * beta as mmt_cublas_gemm takes one, in one call of cuBLAS's grouped form
 * (cublasGemmGroupedBatchedEx, each GEMM a group of one; its arrays of pointers copied to
 * device memory in the stream's order). C of the input type; bf16, f16, f32 (cuBLAS's plain
 * SGEMM arithmetic) and tf32. MMT_UNSUPPORTED, nothing launched,
 * where the installed cuBLAS has no grouped form (before 12.5), refuses the call or a size
 * exceeds 32 bits: the caller runs the GEMMs one by one. mmt_cublas_grouped_routine names the
 * form for a mode, NULL where there is none. */
mmt_status mmt_cublas_gemm_grouped(mmt_cublas *cb, mmt_mode mode, const mmt_gemm_params *ps, int count, void *stream,
                                   mmt_err *err);
const char *mmt_cublas_grouped_routine(const mmt_cublas *cb, mmt_mode mode);

/* The same GEMM, through the problem's cuBLASLt plan where it has one (cublaslt.h): the
 * algorithm cuBLASLt's heuristic ranks first, less of the host's time a call; workspace:
 * the plan may need workspace. libmmtuned's path; mmt_cublas_gemm stays the baseline,
 * cuBLAS as an application calls it. */
mmt_status mmt_cublas_gemm_planned(mmt_cublas *cb, mmt_mode mode, mmt_dtype out, const mmt_gemm_params *p,
                                   int workspace, void *stream, mmt_err *err);

/* The same GEMM with cuBLASLt's epilogue fused in (mmt_cublaslt_gemm_epilogue: act, and a
 * bias per column of p's row-major C). MMT_UNSUPPORTED, nothing launched, where cuBLASLt is
 * missing or has no algorithm for it: the caller runs the GEMM and the epilogue apart. */
mmt_status mmt_cublas_gemm_epilogue(mmt_cublas *cb, mmt_mode mode, mmt_dtype out, const mmt_gemm_params *p,
                                    mmt_activation act, const void *bias, mmt_dtype bias_type, void *stream,
                                    mmt_err *err);

/* Whether mmt_cublas_gemm_planned with workspace runs p otherwise than without: a plan that
 * needs workspace (cublaslt.h). */
int mmt_cublas_plan_needs_workspace(mmt_cublas *cb, mmt_mode mode, mmt_dtype out, const mmt_gemm_params *p);

/* Whether mmt_cublas_gemm_planned without workspace runs p through a kept plan, and so
 * otherwise than cuBLAS's own call. */
int mmt_cublas_has_plan(mmt_cublas *cb, mmt_mode mode, mmt_dtype out, const mmt_gemm_params *p);

#endif
