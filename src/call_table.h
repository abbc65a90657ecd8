/* call_table.h - the per-context table of libmmtuned's calls on device memory (or on the
 * CPU): a call's key (its row-major problem, the operands' alignment, the context's
 * policies) maps to what runs it, a loaded kernel or the vendor library by a route. Internal
 * to libmmtuned; every function may be called from several threads at once. */
#ifndef MMT_CALL_TABLE_H
#define MMT_CALL_TABLE_H

#include "ctx.h"

/* Reads the families of mode and their tuned entries once: MMT_UNSUPPORTED where this
 * backend has no template for it (a call of no size says so too). */
mmt_status mmt_table_serve_mode(mmt_ctx *ctx, mmt_mode mode, mmt_err *err);

/* Runs a checked call of user's problem (the caller's layout, sizes filled in; operands on
 * the context's device) on the context's stream: looked up, made the first time, launched.
 * sgemm: it came through mmt_sgemm, whose policy may allow f32x3. *how and config say what
 * served it. */
mmt_status mmt_table_run(mmt_ctx *ctx, const mmt_problem *user, int sgemm, double alpha, const void *a, int64_t lda,
                         const void *b, int64_t ldb, double beta, void *c, int64_t ldc, mmt_choice *how, char *config,
                         size_t config_size, mmt_err *err);

/* The strided batch bt of user's checked problem (operands on the context's device, the
 * strides those of the caller's matrices) in one call of the vendor library's strided-batched
 * routine where it has one (cuBLAS), on the context's stream; MMT_UNSUPPORTED, saying nothing,
 * where there is none (the CPU, no vendor library, MMTUNE_VENDOR=off): the caller runs the
 * GEMMs one by one through mmt_table_run. */
mmt_status mmt_table_run_batched(mmt_ctx *ctx, const mmt_problem *user, double alpha, const void *a, int64_t lda,
                                 const void *b, int64_t ldb, double beta, void *c, int64_t ldc, const mmt_batch *bt,
                                 mmt_choice *how, char *config, size_t config_size, mmt_err *err);

/* Frees the table, the modules, the additions, the modes' records and the vendor library:
 * mmt_close, once no call runs. */
void mmt_table_free(mmt_ctx *ctx);

#endif
