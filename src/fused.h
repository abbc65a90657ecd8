/* fused.h - a GEMM's epilogue in the store of the kernel that serves it (mmt_gemm_epilogue on
 * a GPU): the variant of the served instance built with EPI_BIAS, EPI_ACT and BIAS_C
 * (templates/cuda/mmt_fuse.h: the wgmma, mma.sync and CUDA-core templates), one per
 * instance, kind of epilogue and context, built off the callers' paths. The calls before it is ready run the
 * GEMM, then the epilogue's own kernel (epilogue.h). */
#ifndef MMT_FUSED_H
#define MMT_FUSED_H

#include "call_table.h"

/* The variant of hit's kernel with an epilogue in its store: bias 0 none, 1 one per row, 2
 * one per column of the kernel's row-major C (hit->problem's); act; bias_c: the bias in C's
 * type (else fp32). MMT_OK with *out where it is made (the kernel cache, or built before);
 * MMT_NOT_FOUND while the context's builder builds it (where there is no builder, the
 * caller's thread builds it); MMT_UNSUPPORTED where hit runs no kernel, runs Strassen
 * levels, its template has no such store, or building the variant failed (not tried
 * again). */
mmt_status mmt_fused_instance(mmt_ctx *ctx, const mmt_table_hit *hit, int bias, int act, int bias_c, mmt_module **out,
                              mmt_err *err);

/* Frees the context's variants (their modules are the table's): mmt_close, after its
 * builder has stopped. */
void mmt_fused_free(mmt_ctx *ctx);

#endif
