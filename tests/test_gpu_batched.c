/* test_gpu_batched.c - mmt_gemm_strided_batched on GPU 0 (api.c, call_table.c, cublas.c):
 * with nothing tuned, every mode (bf16 and f16 with 16-bit and f32 C, tf32, f32x3, f32, f64)
 * runs as one call of cuBLAS's strided-batched routine (MMT_CHOICE_VENDOR), right for both
 * layouts, every transpose, a shared A or B, the BLAS rules for beta, batches of one and a
 * thousand, with nothing written between the C matrices (batched_check.h); with the vendor
 * off (MMTUNE_VENDOR=off) the templates run the GEMMs one by one, or 16-bit and FP8
 * row-major C = A B^T on matrices one after another, GEMMs too small to fill the GPU alone,
 * in one launch for the batch; host operands go one by one through the host-memory route; and the batches refused
 * whole, nothing written. Exits 77 (skipped) without a GPU. */
#include "batched_check.h"
#include "gpu_check.h"
#include "vendor_modes.h"

static batch_case case_of(const mode_case *mc, size_t si, int col, int t)
{
    return bc_case(mc->ab, mc->c, mc->compute, mc->mode, si, col, t);
}

/* Runs bc; 1 where it is wrong or not served as `want` says: text its configuration holds,
 * or with a leading '!' text it must not hold. */
static int wrong(mmt_ctx *ctx, const mmt_backend *put, const batch_case *bc, const char *want)
{
    mmt_choice how;
    char config[512];
    const double e = bc_run(ctx, put, &dev, bc, &how, config, sizeof config);
    const int served = how != MMT_CHOICE_NONE && (want[0] == '!' ? !strstr(config, want + 1) : !!strstr(config, want));
    if (e <= gc_bound_mode(bc->mode, bc->c, bc->k) && served) return 0;
    fprintf(stderr, "%s->%s %lldx%lldx%lld x%lld col=%d ta=%d tb=%d alpha=%g beta=%g: error %g, choice %d (%s)\n",
            mmt_mode_name(bc->mode), mmt_dtype_name(bc->c), (long long)bc->m, (long long)bc->n, (long long)bc->k,
            (long long)bc->batch, bc->col, bc->ta, bc->tb, bc->alpha, bc->beta, e, (int)how, config);
    return 1;
}

int main(void)
{
    int rc = gpu_open();
    if (rc) return rc;
    setenv("MMTUNE_DB", "/nonexistent/mmtune-test.db", 1); /* nothing tuned */
    mmt_ctx *ctx = NULL;
    CHECK_EQ_INT(mmt_open(&ctx, "0", NULL), MMT_OK);
    if (!ctx) return check_result();
    for (size_t mi = 0; mi < sizeof modes / sizeof modes[0]; mi++) {
        int runs = 0, bad = 0;
        for (size_t si = 0; si < BC_SHAPES; si++)
            for (int col = 0; col < 2; col++)
                for (int t = 0; t < 4; t++) {
                    const batch_case bc = case_of(&modes[mi], si, col, t);
                    bad += wrong(ctx, be, &bc, modes[mi].batched);
                    runs++;
                }
        printf("%s->%s, one cuBLAS call a batch: %d batches, %d wrong\n", mmt_mode_name(modes[mi].mode),
               mmt_dtype_name(modes[mi].c), runs, bad);
        CHECK_EQ_INT(bad, 0);
    }
    bc_refusals(ctx, be, &dev);
    /* host operands: the GEMMs one by one, each through the host-memory route */
    const batch_case host = case_of(&modes[5], 0, 0, 0);
    CHECK_EQ_INT(wrong(ctx, NULL, &host, "OOC_TILE_M="), 0);
    mmt_close(ctx);

    /* no vendor library: the templates run the GEMMs one by one */
    setenv("MMTUNE_VENDOR", "off", 1);
    CHECK_EQ_INT(mmt_open(&ctx, "0", NULL), MMT_OK);
    unsetenv("MMTUNE_VENDOR");
    if (!ctx) return check_result();
    int bad = 0;
    for (int col = 0; col < 2; col++) {
        const batch_case bc = case_of(&modes[5], 0, col, 3 * col);
        bad += wrong(ctx, be, &bc, "!LIBRARY=");
    }
    printf("f32 with the vendor off, the templates one GEMM at a time: %d wrong\n", bad);
    CHECK_EQ_INT(bad, 0);
    /* 16-bit and FP8 row-major C = A B^T, A's and C's one after another: one launch of the wgmma
     * template for the batch as a grouped GEMM's groups (more than a launch's 128 groups,
     * groups ending inside a tile, a shared B); GEMMs whose tiles fill the GPU alone, one by one */
    static const struct {
        batch_case bc;
        const char *want;
    } as_groups[] = {
        {{MMT_BF16, MMT_BF16, MMT_COMPUTE_NATIVE, MMT_MODE_BF16, 0, 0, 1, 64, 40, 96, 7, 0, 0, 1, 0, 1, 1},
         "GROUPED=1"},
        {{MMT_F16, MMT_F16, MMT_COMPUTE_NATIVE, MMT_MODE_F16, 0, 0, 1, 8, 24, 16, 300, 0, 0, -0.5, 0.75, 1, 1},
         "GROUPED=1"},
        {{MMT_BF16, MMT_BF16, MMT_COMPUTE_NATIVE, MMT_MODE_BF16, 0, 0, 1, 33, 16, 32, 5, 0, 1, 1, 2, 1, 1},
         "GROUPED=1"},
        {{MMT_BF16, MMT_BF16, MMT_COMPUTE_NATIVE, MMT_MODE_BF16, 0, 0, 1, 2304, 2048, 16, 2, 0, 0, 1, 0, 1, 1},
         "!GROUPED=1"},
        {{MMT_E4M3, MMT_BF16, MMT_COMPUTE_NATIVE, MMT_MODE_E4M3, 0, 0, 1, 64, 40, 96, 7, 0, 0, 0.5, 0, 1, 1},
         "GROUPED=1"}};
    bad = 0;
    for (size_t i = 0; i < sizeof as_groups / sizeof as_groups[0]; i++)
        bad += wrong(ctx, be, &as_groups[i].bc, as_groups[i].want);
    printf("bf16, f16 and e4m3 NT with the vendor off, one launch a batch of small GEMMs: %d wrong\n", bad);
    CHECK_EQ_INT(bad, 0);
    mmt_close(ctx);
    unsetenv("MMTUNE_DB");
    return check_result();
}
