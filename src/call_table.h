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

/* What a looked-up call ran, as copied from its entry under the lock: a thread keeps it to
 * repeat the same call without the lookup (mmt_table_repeat). */
typedef struct mmt_table_hit {
    int repeatable; /* 0: the call ran Strassen levels, or was not looked up */
    uint64_t gen;   /* the table's generation at the lookup */
    mmt_problem user, problem; /* the caller's problem, and its row-major normal form */
    int align_a, align_b, align_c, beta_zero;
    mmt_module *mod;
    mmt_geometry geometry;
    mmt_vendor_route route;
    mmt_miss_counter *miss;
} mmt_table_hit;

/* Runs a checked call of user's problem (the caller's layout, sizes filled in; operands on
 * the context's device) on the context's stream: looked up, made the first time, launched.
 * sgemm: it came through mmt_sgemm, whose policy may allow f32x3. *how and config say what
 * served it; *hit (may be NULL) what ran. */
mmt_status mmt_table_run(mmt_ctx *ctx, const mmt_problem *user, int sgemm, double alpha, const void *a, int64_t lda,
                         const void *b, int64_t ldb, double beta, void *c, int64_t ldc, mmt_choice *how, char *config,
                         size_t config_size, mmt_table_hit *hit, mmt_err *err);

/* Runs hit's call again on new operands of the same leading dimensions (the caller checked
 * them as the first call was checked), as mmt_table_run would: 0 without running where the
 * hit no longer holds (an entry or a policy changed since, or the operands' alignment or,
 * for FP8 C, beta's being 0 differs), 1 where it ran, with its status in *st. */
int mmt_table_repeat(mmt_ctx *ctx, const mmt_table_hit *hit, double alpha, const void *a, int64_t lda, const void *b,
                     int64_t ldb, double beta, void *c, int64_t ldc, mmt_status *st, mmt_err *err);

/* What a call of user's checked problem on operands a, b and c would run, looked up (made
 * the first time) as mmt_table_run looks it up, but not run and not counted: *hit (repeatable 0
 * where the entry runs Strassen levels), *how and config. A batch's GEMMs then run through
 * mmt_table_launch and are counted at once by mmt_table_count_calls. */
mmt_status mmt_table_lookup(mmt_ctx *ctx, const mmt_problem *user, int sgemm, const void *a, int64_t lda,
                            const void *b, int64_t ldb, double beta, const void *c, int64_t ldc, mmt_choice *how,
                            char *config, size_t config_size, mmt_table_hit *hit, mmt_err *err);

/* Runs a repeatable hit's call on operands of the alignment it was looked up for (the caller
 * checked them), on the calling thread, as mmt_table_run launches it; nothing else: no
 * count, no hand-over to a background mmtune, no sync. */
mmt_status mmt_table_launch(mmt_ctx *ctx, const mmt_table_hit *hit, double alpha, const void *a, int64_t lda,
                            const void *b, int64_t ldb, double beta, void *c, int64_t ldc, mmt_err *err);

/* mmt_table_launch with block scales (block-scaled FP8, problem.h; NULL elsewhere), run by
 * its kernel or the vendor library. */
mmt_status mmt_table_launch_scaled(mmt_ctx *ctx, const mmt_table_hit *hit, double alpha, const void *a, int64_t lda,
                                   const void *b, int64_t ldb, double beta, void *c, int64_t ldc, const float *scale_a,
                                   const float *scale_b, mmt_err *err);

/* hit's call with the epilogue fused in by the vendor library (mmt_vendor_gemm_epilogue:
 * act, and bias, NULL or a value per column of hit's row-major problem), where the vendor
 * serves hit; as mmt_table_launch, nothing else. MMT_UNSUPPORTED, nothing launched, where a
 * kernel serves it, alpha is 0, or the vendor cannot fuse it. */
mmt_status mmt_table_launch_epilogue(mmt_ctx *ctx, const mmt_table_hit *hit, double alpha, const void *a, int64_t lda,
                                     const void *b, int64_t ldb, double beta, void *c, int64_t ldc, mmt_activation act,
                                     const void *bias, mmt_dtype bias_type, mmt_err *err);

/* hit's call (a kernel's, no Strassen levels) by mod, a variant of hit's kernel with an
 * epilogue in its store (fused.h), which reads bias (NULL: none) and scale (FP8 C's) after
 * the launch parameters; as mmt_table_launch, nothing else. */
mmt_status mmt_table_launch_fused(mmt_ctx *ctx, const mmt_table_hit *hit, mmt_module *mod, const void *bias,
                                  float scale, double alpha, const void *a, int64_t lda, const void *b, int64_t ldb,
                                  double beta, void *c, int64_t ldc, mmt_err *err);

/* What follows `calls` launches of hit, done once for them all: where it runs untuned, the
 * calls counted with one atomic addition, the hand-over of its problem to a background
 * mmtune on its first call, and a due sync with the database; as mmt_table_run does after
 * each of its launches. */
void mmt_table_count_calls(mmt_ctx *ctx, const mmt_table_hit *hit, int64_t calls);

/* The strided batch bt of user's checked problem (operands on the context's device, the
 * strides those of the caller's matrices) in one call of the vendor library's strided-batched
 * routine where it has one (cuBLAS), on the context's stream; MMT_UNSUPPORTED, saying nothing,
 * where there is none (the CPU, no vendor library, MMTUNE_VENDOR=off): the caller runs the
 * GEMMs one by one through mmt_table_run. */
mmt_status mmt_table_run_batched(mmt_ctx *ctx, const mmt_problem *user, double alpha, const void *a, int64_t lda,
                                 const void *b, int64_t ldb, double beta, void *c, int64_t ldc, const mmt_batch *bt,
                                 mmt_choice *how, char *config, size_t config_size, mmt_err *err);

/* The groups of a grouped GEMM (mmt_gemm_grouped), checked whole: count GEMMs of user's
 * problem (operands on the context's device), the g-th of rows[g] rows on a[g], b[g] and
 * c[g] (0: nothing to run, its pointers not read), in one call of the vendor library's
 * grouped routine (cuBLAS's) on the context's stream, where it pays and is safe: where the
 * non-empty groups average at most MMT_GROUPED_VENDOR_ROWS rows and every matrix and row
 * starts on 16 bytes. cuBLAS's grouped form against its own GEMMs one after another (bf16,
 * N x K 4096 x 4096 and 7168 x 2048, 8 and 64 groups, H200): 1.24-1.63x with groups of 0 to
 * 64 rows, 0.63-0.68x with 0 to 512 and 0.42-0.44x with 0 to 4096. With bf16 C on 2-byte
 * boundaries, cuBLAS 13.1's grouped form ran a kernel that wrote 4 bytes at a time there (a
 * misaligned address: the CUDA context lost). MMT_UNSUPPORTED, saying nothing, where it does
 * not pay or is not safe, there is no such routine (the CPU, no vendor library,
 * MMTUNE_VENDOR=off, a mode or C type cuBLAS's grouped form lacks) or cuBLAS refuses the
 * call: the caller runs the groups one by one. */
#define MMT_GROUPED_VENDOR_ROWS 64
mmt_status mmt_table_run_grouped(mmt_ctx *ctx, const mmt_problem *user, int64_t count, const int64_t *rows,
                                 double alpha, const void *const *a, int64_t lda, const void *const *b, int64_t ldb,
                                 double beta, void *const *c, int64_t ldc, mmt_choice *how, char *config,
                                 size_t config_size, mmt_err *err);

/* The served family of mode whose template is template_name ("cuda/gemm_wgmma.cu"), or
 * NULL where the context's backend has none (read once, as calls read them). */
const mmt_family *mmt_table_family(mmt_ctx *ctx, mmt_mode mode, const char *template_name);

/* Whether the vendor library serves mode on the context's device (opened the first time). */
int mmt_table_vendor_serves(mmt_ctx *ctx, mmt_mode mode);

/* An instance of fam built from defines, loaded once per context and kept until mmt_close
 * (the table's modules): from the kernel cache, else compiled where compile, else
 * MMT_NOT_FOUND. */
mmt_status mmt_table_module(mmt_ctx *ctx, const mmt_family *fam, const char *defines, int compile, mmt_module **out,
                            mmt_err *err);

/* A variant of base, a module of the table: an instance of the family and defines base was
 * built from, extra defines after them, loaded as mmt_table_module loads one (compile: else
 * MMT_NOT_FOUND where no cache holds it). MMT_UNSUPPORTED where base is not the table's or
 * its template is none of the NULL-ended list templates. */
mmt_status mmt_table_variant(mmt_ctx *ctx, mmt_module *base, const char *const *templates, const char *extra,
                             int compile, mmt_module **out, mmt_err *err);

/* Frees the table, the modules, the additions, the modes' records and the vendor library:
 * mmt_close, once no call runs. */
void mmt_table_free(mmt_ctx *ctx);

#endif
