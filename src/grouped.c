/* grouped.c - a grouped GEMM in one launch of the wgmma template (grouped.h). */
#include "grouped.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builder.h"
#include "call_table.h"
#include "kernel.h"
#include "space.h"

#define GROUPED_TEMPLATE "cuda/gemm_wgmma.cu"
enum { TILE_M = 128 }; /* the one launch's tile rows; its columns: tile_n (configure says why) */

/* The kinds of call the one launch takes, an instance each (ctx->grouped): 16-bit with C of
 * the input type, FP8 (the scales per tensor in alpha) with C of any type it writes. */
static const struct {
    mmt_mode mode;
    mmt_dtype out;
} kinds[MMT_GROUPED_KINDS] = {{MMT_MODE_BF16, MMT_BF16}, {MMT_MODE_F16, MMT_F16},  {MMT_MODE_E4M3, MMT_BF16},
                              {MMT_MODE_E4M3, MMT_F16},  {MMT_MODE_E4M3, MMT_F32}, {MMT_MODE_E5M2, MMT_BF16},
                              {MMT_MODE_E5M2, MMT_F16},  {MMT_MODE_E5M2, MMT_F32}};

/* user's kind, or -1 where the one launch does not take its mode and C. */
static int kind_of(const mmt_problem *user)
{
    for (int i = 0; i < MMT_GROUPED_KINDS; i++)
        if (kinds[i].mode == user->mode && kinds[i].out == user->out) return i;
    return -1;
}

/* FP8's sums are promoted to fp32 each stage (as cuBLASLt's are), whose second set of
 * accumulators leaves room for 192 columns (the space's ACC_REGS). */
static int64_t tile_n(const mmt_problem *user) { return mmt_dtype_fp8(user->dtype) ? 192 : 256; }

/* cfg's value of s's param `name`, or NULL where s has none. */
static int64_t *knob(const mmt_space *s, mmt_config *cfg, const char *name)
{
    for (int i = 0; i < s->n_params; i++)
        if (strcmp(s->params[i].name, name) == 0) return &cfg->v[i];
    return NULL;
}

/* Group g's rows: rows[g], or where rows is NULL (a strided batch) the problem's m. */
static inline int64_t rows_of(const int64_t *rows, int64_t g, const mmt_problem *user)
{
    return rows ? rows[g] : user->m;
}

/* Whether the template takes the call as it stands (grouped.h's terms; the modes and C types
 * test_gpu_grouped checks on a GPU), its groups of sum rows in all. */
static int takes(const mmt_problem *user, int64_t groups, int64_t sum, const void *a, int64_t lda, const void *b,
                 int64_t ldb, int64_t stride_b, const void *c, int64_t ldc)
{
    const int64_t es = mmt_dtype_size(user->dtype), cs = mmt_dtype_size(user->out);
    const int64_t b_rows = stride_b ? user->n * (groups < MMT_MAX_GROUPS ? groups : MMT_MAX_GROUPS) : user->n;
    return user->layout == MMT_ROW_MAJOR && !user->trans_a && user->trans_b && kind_of(user) >= 0 &&
           ((uintptr_t)a | (uintptr_t)b | (uintptr_t)c) % 16 == 0 && (lda | ldb) * es % 16 == 0 &&
           ldc * cs % 16 == 0 && (stride_b == 0 || stride_b == user->n * ldb) && sum <= 0x7fffffff &&
           b_rows <= 0x7fffffff && user->k <= 0x7fffffff;
}

/* The configuration: the family's default made 128 x 256 tiles (FP8: 128 x 192, promoted)
 * over two consumers and three stages on a persistent grid of one block a tile, C staged
 * through shared memory (a TMA store would write a tile's rows past its group's end). Of ten
 * tiles timed on bf16 MoE layers, 128 x 256 was the fastest for groups of every size
 * (BENCHMARKS.md). */
static int configure(const mmt_family *fam, const mmt_space_env *env, mmt_config *cfg)
{
    const mmt_space *s = fam->space;
    mmt_space_default(s, cfg);
    const int fp8 = mmt_dtype_fp8(env->problem->dtype);
    const struct {
        const char *name;
        int64_t value;
    } fixed[] = {{"BM", TILE_M}, {"BN", tile_n(env->problem)}, {"STAGES", 3}, {"CONSUMERS", 2}, {"CLUSTER", 1},
                 {"PERSIST", 1}, {"EPI", 1}, {"PACK", 0}, {"SPLITK", 1}, {"SWAP", 0}, {"PROMOTE", fp8}};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) {
        int64_t *v = knob(s, cfg, fixed[i].name);
        if (!v) return 0;
        *v = fixed[i].value;
    }
    int valid = 0;
    mmt_space_check(s, cfg, env, &valid, NULL, NULL);
    return valid;
}

mmt_status mmt_grouped_defines(const mmt_family *fam, const mmt_space_env *env, mmt_config *cfg, char *defines,
                               size_t size, mmt_err *err)
{
    if (kind_of(env->problem) < 0 || !configure(fam, env, cfg)) return MMT_UNSUPPORTED;
    FORWARD_IF_ERROR(mmt_kernel_defines(fam->space, cfg, env, defines, size - 16, err));
    strcat(defines, " GROUPED=1");
    return MMT_OK;
}

/* A kind's instance of the one launch, made once per context (ctx->grouped): nothing of it
 * depends on the call (its configuration is fixed, grouped.c's configure), so a call after
 * the first finds it at once. */
struct mmt_grouped_instance {
    mmt_module *mod;
    mmt_geometry geo; /* the grid is set a launch */
    char config[512];
};

enum { NOT_TRIED, MAKING, MADE, FAILED };

/* The instance of user's kind on ctx, from the kernel cache, else compiled where compile
 * (else MMT_NOT_FOUND); MMT_UNSUPPORTED where the family or its configuration is not there. */
static mmt_status instance_make(mmt_ctx *ctx, const mmt_problem *user, int compile, struct mmt_grouped_instance **out,
                                mmt_err *err)
{
    const mmt_family *fam = mmt_table_family(ctx, user->mode, GROUPED_TEMPLATE);
    if (!fam) return MMT_UNSUPPORTED;
    const mmt_problem stacked = mmt_problem_normalise(user);
    const mmt_space_env env = {.problem = &stacked, .device = &ctx->dev, .align_a = 16, .align_b = 16};
    mmt_config cfg;
    char defines[4096];
    FORWARD_IF_ERROR(mmt_grouped_defines(fam, &env, &cfg, defines, sizeof defines, err));
    mmt_module *mod;
    FORWARD_IF_ERROR(mmt_table_module(ctx, fam, defines, compile, &mod, err));
    struct mmt_grouped_instance *in = calloc(1, sizeof *in);
    RETURN_ERROR_IF(!in, err, MMT_OUT_OF_MEMORY, "out of memory");
    in->mod = mod;
    const mmt_status st = mmt_space_geometry(fam->space, &cfg, &env, &in->geo, err);
    if (st != MMT_OK) {
        free(in);
        return st;
    }
    char text[480];
    mmt_config_format(fam->space, &cfg, text, sizeof text);
    snprintf(in->config, sizeof in->config, "%s,GROUPED=1", text);
    *out = in;
    return MMT_OK;
}

/* Publishes what making a kind's instance (slot i) came to. */
static void instance_done(mmt_ctx *ctx, int i, mmt_status st, struct mmt_grouped_instance *in)
{
    if (st == MMT_OK) atomic_store(&ctx->grouped[i], in);
    atomic_store(&ctx->grouped_state[i], st == MMT_OK ? MADE : st == MMT_NOT_FOUND ? NOT_TRIED : FAILED);
}

/* An instance compiled off the callers' paths (builder.h) while the vendor serves. */
typedef struct instance_job {
    mmt_ctx *ctx;
    mmt_problem problem;
    int slot;
} instance_job;

static void instance_in_background(void *arg, int run)
{
    instance_job *j = arg;
    struct mmt_grouped_instance *in = NULL;
    mmt_err err;
    if (run) {
        const mmt_status st = instance_make(j->ctx, &j->problem, 1, &in, &err); /* before in is read */
        instance_done(j->ctx, j->slot, st, in);
    } else {
        atomic_store(&j->ctx->grouped_state[j->slot], NOT_TRIED);
    }
    free(j);
}

/* The instance of user's kind, made by the first call that needs it: from the
 * kernel cache, else compiled, where the vendor library serves the mode by the context's
 * builder (MMT_NOT_FOUND meanwhile, and for the calls while it builds), else on the
 * caller's path. Where making it fails, that call gets the error (a build off the path
 * tells no one) and the calls after it MMT_UNSUPPORTED: it is not tried again. */
static mmt_status instance_of(mmt_ctx *ctx, const mmt_problem *user, struct mmt_grouped_instance **out, mmt_err *err)
{
    const int i = kind_of(user);
    if ((*out = atomic_load(&ctx->grouped[i])) != NULL) return MMT_OK;
    int state = NOT_TRIED;
    if (!atomic_compare_exchange_strong(&ctx->grouped_state[i], &state, MAKING))
        return state == FAILED ? MMT_UNSUPPORTED : MMT_NOT_FOUND; /* another call makes it */
    const int vendor = mmt_table_vendor_serves(ctx, user->mode);
    mmt_status st = instance_make(ctx, user, !vendor, out, err);
    if (st == MMT_NOT_FOUND && ctx->builder) {
        instance_job *job = malloc(sizeof *job);
        if (job) *job = (instance_job){ctx, *user, i};
        if (job && mmt_builder_submit(ctx->builder, instance_in_background, job) == 0) return MMT_NOT_FOUND;
        free(job);
    }
    if (st == MMT_NOT_FOUND) st = instance_make(ctx, user, 1, out, err); /* no thread to build it: the caller waits */
    instance_done(ctx, i, st, *out);
    return st;
}

void mmt_grouped_free(mmt_ctx *ctx)
{
    for (int i = 0; i < MMT_GROUPED_KINDS; i++) free(atomic_load(&ctx->grouped[i]));
}

mmt_status mmt_grouped_run(mmt_ctx *ctx, const mmt_problem *user, int64_t groups, const int64_t *rows, double alpha,
                           const void *a, int64_t lda, const void *b, int64_t ldb, int64_t stride_b, double beta,
                           void *c, int64_t ldc, mmt_choice *how, char *config, size_t config_size, mmt_err *err)
{
    int64_t sum = 0, nonempty = 0;
    for (int64_t g = 0; g < groups; g++) {
        const int64_t r = rows_of(rows, g, user);
        sum += r, nonempty += r > 0;
    }
    if (!nonempty || !takes(user, groups, sum, a, lda, b, ldb, stride_b, c, ldc)) return MMT_UNSUPPORTED;
    /* where the vendor serves, its loop is faster for groups of more rows */
    if (sum > MMT_GROUPED_LAUNCH_ROWS * nonempty && mmt_table_vendor_serves(ctx, user->mode)) return MMT_UNSUPPORTED;
    const int64_t bm = TILE_M, bn = tile_n(user), tiles_n = (user->n + bn - 1) / bn;
    const int64_t avg = (sum + nonempty - 1) / nonempty;
    int64_t sms = 132;
    mmt_device_get_prop(&ctx->dev, "sm_count", 8, &sms);
    /* a group of the average rows that fills the GPU with tiles alone runs faster as a GEMM of
     * its own (strided batches of 8 bf16 4096x4096x128: 0.57x cuBLAS in one launch, 0.74x one
     * by one) */
    if ((avg + bm - 1) / bm * tiles_n >= sms) return MMT_UNSUPPORTED;
    struct mmt_grouped_instance *in;
    const mmt_status made = instance_of(ctx, user, &in, err);
    if (made == MMT_NOT_FOUND || made == MMT_UNSUPPORTED) return MMT_UNSUPPORTED; /* the groups one by one */
    FORWARD_IF_ERROR(made);
    mmt_geometry geo = in->geo;
    mmt_grouped_params gp;
    int64_t row = 0; /* the first row of group g0: the groups' rows follow one another */
    for (int64_t g0 = 0; g0 < groups; g0 += MMT_MAX_GROUPS) {
        const int64_t count = groups - g0 < MMT_MAX_GROUPS ? groups - g0 : MMT_MAX_GROUPS;
        memset(&gp, 0, sizeof gp);
        int64_t tiles = 0;
        for (int64_t i = 0; i < count; i++) {
            gp.first_row[i] = (int32_t)row, gp.first_tile[i] = (int32_t)tiles;
            const int64_t r = rows_of(rows, g0 + i, user);
            row += r, tiles += (r + bm - 1) / bm * tiles_n;
        }
        if (!tiles) continue;
        RETURN_ERROR_IF(tiles > 0x7fffffff, err, MMT_UNSUPPORTED, "%lld tiles in one launch", (long long)tiles);
        gp.first_row[count] = (int32_t)row;
        gp.first_tile[count] = (int32_t)tiles;
        gp.groups = (int32_t)count, gp.n = (int32_t)user->n, gp.b_rows = stride_b ? (int32_t)user->n : 0;
        const int64_t es = mmt_dtype_size(user->dtype);
        gp.p = (mmt_gemm_params){.m = sum,
                                 .n = stride_b ? user->n * count : user->n,
                                 .k = user->k,
                                 .lda = lda,
                                 .ldb = ldb,
                                 .ldc = ldc,
                                 .trans_a = 0,
                                 .trans_b = 1,
                                 .alpha = alpha,
                                 .beta = beta,
                                 .a = a,
                                 .b = (const char *)b + g0 * stride_b * es,
                                 .c = c};
        if (alpha == 0) gp.p.k = 0; /* A and B are not read */
        geo.grid[0] = tiles < sms ? tiles : sms;
        FORWARD_IF_ERROR(ctx->be->launch(in->mod, &gp.p, &geo, atomic_load(&ctx->stream), err));
    }
    *how = MMT_CHOICE_DEFAULT;
    mmt_copy_text(config, config_size, in->config);
    return MMT_OK;
}
