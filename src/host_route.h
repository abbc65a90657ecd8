/* host_route.h - GEMMs of host matrices on a GPU context, out of core (ooc.h). Internal to
 * libmmtuned. */
#ifndef MMT_HOST_ROUTE_H
#define MMT_HOST_ROUTE_H

#include "ctx.h"

/* The GEMM of device operands a tile runs through, on the context of its GPU (api.c's
 * checked call). */
typedef mmt_status (*mmt_device_gemm_fn)(mmt_ctx *ctx, const mmt_gemm_desc *d, int sgemm, int64_t m, int64_t n,
                                         int64_t k, double alpha, const void *a, int64_t lda, const void *b,
                                         int64_t ldb, double beta, void *c, int64_t ldc, mmt_choice *how,
                                         char *config, size_t config_size, mmt_err *err);

/* A checked call on host matrices (user: its problem as the caller wrote it, sizes filled
 * in): the row-major problem out of core on the context's GPUs, each tile through
 * device_gemm on its GPU's context, with this context's policies; *how and config say what
 * served the tiles and the plan (OOC_TILE_M=..., OOC_TUNED=...). */
mmt_status mmt_host_route(mmt_ctx *ctx, const mmt_problem *user, int sgemm, double alpha, const void *a, int64_t lda,
                          const void *b, int64_t ldb, double beta, void *c, int64_t ldc, mmt_device_gemm_fn device_gemm,
                          mmt_choice *how, char *config, size_t config_size, mmt_err *err);

#endif
