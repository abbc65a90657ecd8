/* cublaslt.h - cuBLASLt, opened with dlopen, as the lean path of the vendor family on CUDA
 * devices. cublasGemmEx and cublasSgemm choose their kernel on every call; a plan made once
 * per problem (descriptors, and the algorithm cuBLASLt's heuristic ranks first) and kept
 * skips that choice: 0.5-2 us less host time a call on an H200 (BENCHMARKS.md), which is
 * what a call under 20 us or so costs an application. A plan needs no workspace unless the
 * caller allows one, which is then taken in the call's stream order from a pool of its own,
 * so calls on different streams never share it; elsewhere the caller runs cuBLAS. */
#ifndef MMT_CUBLASLT_H
#define MMT_CUBLASLT_H

#include "backend.h"
#include "problem.h"

typedef struct mmt_cublaslt mmt_cublaslt;

/* Opens libcublasLt and creates a handle for GPU `ordinal` (its workspaces' pool is made
 * there). On failure *out is NULL and err says why. */
mmt_status mmt_cublaslt_open(int ordinal, mmt_cublaslt **out, mmt_err *err);
void mmt_cublaslt_close(mmt_cublaslt *lt);

/* The row-major GEMM of p as cublas.h describes it for mode and out, through the problem's
 * cached plan, on stream with the device's context current; asynchronous. workspace: the
 * plan may be one that needs workspace (tensor-core modes). MMT_OK when it ran;
 * MMT_UNSUPPORTED, nothing launched, where cuBLASLt has no such plan for it, no workspace
 * can be had, or the problem is not small (the caller runs cuBLAS; no message is formatted).
 * Not thread-safe: the caller runs one call at a time. */
mmt_status mmt_cublaslt_gemm(mmt_cublaslt *lt, mmt_mode mode, mmt_dtype out, const mmt_gemm_params *p, int workspace,
                             void *stream);

/* p's GEMM on a plan kept per problem whatever its size (workspace allowed): the one route
 * of FP8, which cuBLAS's own calls lack. MMT_UNSUPPORTED, nothing launched, where cuBLASLt
 * has no algorithm for it (FP8 takes both operands K-major: row-major NT), and for FP8 C
 * unless beta is 0 (its FP8 D reads beta C from a C of another type). Not thread-safe. */
mmt_status mmt_cublaslt_gemm_whole(mmt_cublaslt *lt, mmt_mode mode, mmt_dtype out, const mmt_gemm_params *p,
                                   void *stream);

/* The same with cuBLASLt's epilogue fused in: C = act(alpha op(A) op(B) + beta C + bias),
 * bias (NULL: none) a vector of bias_type with a value per column of p's row-major C, act
 * ReLU or GELU's tanh form (or none), on a plan kept per problem and epilogue whatever the
 * problem's size. MMT_OK when it ran; MMT_UNSUPPORTED, nothing launched, where cuBLASLt has
 * no algorithm for it (a bias type it does not take, say) or refuses it, and where its own
 * is far slower than the GEMM and a pass after it (GELU on doubles is also less exact):
 * an epilogue over matrices whose rows do not all start on 16 bytes. Not thread-safe, as
 * above. */
mmt_status mmt_cublaslt_gemm_epilogue(mmt_cublaslt *lt, mmt_mode mode, mmt_dtype out, const mmt_gemm_params *p,
                                      mmt_activation act, const void *bias, mmt_dtype bias_type, void *stream);

/* Whether p's plan with workspace allowed is one that needs some: only then is it another
 * call than the plan without (the tuner times both). Not thread-safe, as above. */
int mmt_cublaslt_needs_workspace(mmt_cublaslt *lt, mmt_mode mode, mmt_dtype out, const mmt_gemm_params *p);

/* Whether p has a usable plan without workspace (mmt_cublaslt_gemm runs it, not cuBLAS). Not
 * thread-safe, as above. */
int mmt_cublaslt_has_plan(mmt_cublaslt *lt, mmt_mode mode, mmt_dtype out, const mmt_gemm_params *p);

#endif
