/* test_batched.c - mmt_gemm_strided_batched on the CPU (api.c): with nothing tuned, each
 * GEMM of a batch served as mmt_gemm_ex serves it (the vendor library where there is one),
 * right for both layouts, every transpose, a shared A or B (stride 0), beta = 0 on NaN and
 * beta != 0, a batch of one and of a thousand; nothing written between the C matrices; and
 * the batches refused whole with nothing written (batched_check.h). */
#include <stdlib.h>

#include "batched_check.h"

int main(void)
{
    setenv("MMTUNE_DB", "/nonexistent/mmtune-test.db", 1); /* nothing tuned */
    mmt_ctx *ctx = NULL;
    CHECK_EQ_INT(mmt_open(&ctx, "cpu", NULL), MMT_OK);
    if (!ctx) return check_result();
    int runs = 0, bad = 0;
    for (int f64 = 0; f64 < 2; f64++)
        for (size_t si = 0; si < BC_SHAPES; si++)
            for (int col = 0; col < 2; col++)
                for (int t = 0; t < 4; t++) {
                    const batch_case bc = bc_case(gc_type(f64), gc_type(f64), MMT_COMPUTE_NATIVE,
                                                  f64 ? MMT_MODE_F64 : MMT_MODE_F32, si, col, t);
                    mmt_choice how;
                    char config[512];
                    const double e = bc_run(ctx, NULL, NULL, &bc, &how, config, sizeof config);
                    runs++;
                    if (!(e <= gc_bound_mode(bc.mode, bc.c, bc.k)) || how == MMT_CHOICE_NONE) {
                        fprintf(stderr, "%s %lldx%lldx%lld x%lld col=%d t=%d alpha=%g beta=%g: error %g, %s\n",
                                mmt_mode_name(bc.mode), (long long)bc.m, (long long)bc.n, (long long)bc.k,
                                (long long)bc.batch, col, t, bc.alpha, bc.beta, e, config);
                        bad++;
                    }
                }
    printf("strided batches on the CPU: %d runs, %d wrong\n", runs, bad);
    CHECK_EQ_INT(bad, 0);
    bc_refusals(ctx, NULL, NULL);
    mmt_close(ctx);
    return check_result();
}
