/* test_launch_check.c - mmt_launch_check (src/launch_check.c): a launch that meets what its
 * instance needs passes, and each way of missing it (an operand's address or row pitch less
 * aligned than the instance was built for, the other orientation, more rows or columns than
 * it computes, a workspace smaller than the geometry asks for or not 16-byte aligned, an
 * unknown version) is refused with MMT_INVALID_ARGUMENT and a message that names it; an
 * instance that states nothing is asked nothing. */
#include <stdint.h>

#include "backend.h"
#include "check.h"

static const mmt_launch_needs simt_aligned = {.version = MMT_LAUNCH_NEEDS_VERSION, .elem_bytes = 4, .align_a = 16,
                                              .align_b = 16, .trans_a = 0, .trans_b = 1};

/* A 16-byte aligned NT launch of 64 x 48 x 40 f32 (A 64 x 40, B 48 x 40). */
static mmt_gemm_params good(void)
{
    return (mmt_gemm_params){.m = 64, .n = 48, .k = 40, .lda = 40, .ldb = 40, .ldc = 48, .trans_a = 0, .trans_b = 1,
                             .alpha = 1, .a = (const void *)(uintptr_t)0x10000, .b = (const void *)(uintptr_t)0x20000,
                             .c = (void *)(uintptr_t)0x30000};
}

/* Refused, with `word` in the message. */
static void refused(const mmt_launch_needs *n, const mmt_gemm_params *p, const mmt_geometry *g, const char *word)
{
    mmt_err err = {0};
    CHECK_EQ_INT(mmt_launch_check(n, p, g, &err), MMT_INVALID_ARGUMENT);
    if (!strstr(err.msg, word)) fprintf(stderr, "'%s' lacks '%s'\n", err.msg, word);
    CHECK(strstr(err.msg, word) != NULL);
    CHECK(strstr(err.msg, "refused before it ran") != NULL);
}

static void test_alignment(void)
{
    mmt_err err;
    mmt_gemm_params p = good();
    CHECK_OK(mmt_launch_check(&simt_aligned, &p, NULL, &err), &err);
    p.lda = 41; /* a row pitch of 164 bytes: aligned to 4 */
    refused(&simt_aligned, &p, NULL, "A's address and row pitch aligned to 16 bytes, the launch's are aligned to 4");
    p = good();
    p.b = (const char *)p.b + 8;
    refused(&simt_aligned, &p, NULL, "B's address");
    /* what an instance does not ask for is not checked: one built for any alignment */
    mmt_launch_needs any = simt_aligned;
    any.align_a = any.align_b = 1;
    p.lda = 41;
    CHECK_OK(mmt_launch_check(&any, &p, NULL, &err), &err);
    /* 8-byte copies (an fp64 instance's VEC 1) take 8-byte rows, not 4 */
    mmt_launch_needs dmma = {.version = 1, .elem_bytes = 8, .align_a = 8, .align_b = 8, .trans_a = 0, .trans_b = 1};
    p = good();
    p.lda = 41, p.ldb = 3;
    CHECK_OK(mmt_launch_check(&dmma, &p, NULL, &err), &err);
    p.a = (const char *)p.a + 4;
    refused(&dmma, &p, NULL, "aligned to 8 bytes, the launch's are aligned to 4");
}

static void test_orientation_and_extent(void)
{
    mmt_err err;
    mmt_gemm_params p = good();
    p.trans_a = 1;
    refused(&simt_aligned, &p, NULL, "built for A as stored, the launch's is transposed");
    p = good();
    p.trans_b = 0;
    refused(&simt_aligned, &p, NULL, "built for B transposed");
    mmt_launch_needs either = simt_aligned;
    either.trans_a = either.trans_b = -1;
    CHECK_OK(mmt_launch_check(&either, &p, NULL, &err), &err);
    /* a thin instance computes at most max_n columns (max_m rows) */
    mmt_launch_needs thin = simt_aligned;
    thin.max_n = 48;
    p = good();
    CHECK_OK(mmt_launch_check(&thin, &p, NULL, &err), &err);
    p.n = 49;
    refused(&thin, &p, NULL, "at most 48 columns, the launch has N = 49");
    thin.max_n = 0, thin.max_m = 16;
    p = good();
    refused(&thin, &p, NULL, "at most 16 rows, the launch has M = 64");
}

static void test_workspace(void)
{
    mmt_err err;
    mmt_gemm_params p = good();
    mmt_geometry g = {.workspace = 4096};
    refused(&simt_aligned, &p, &g, "0 bytes of workspace, its geometry asks for 4096");
    static _Alignas(16) char ws[4096];
    p.workspace = ws, p.workspace_size = 4095;
    refused(&simt_aligned, &p, &g, "4095 bytes of workspace");
    p.workspace_size = 4096;
    CHECK_OK(mmt_launch_check(&simt_aligned, &p, &g, &err), &err);
    p.workspace = ws + 4, p.workspace_size = 4092, g.workspace = 4092;
    refused(&simt_aligned, &p, &g, "not 16-byte aligned");
    /* no needs (the CPU's instances, the reference kernel): the workspace alone */
    p.workspace = ws, p.workspace_size = 4096, p.lda = 41;
    CHECK_OK(mmt_launch_check(NULL, &p, &g, &err), &err);
    p.workspace_size = 100;
    refused(NULL, &p, &g, "asks for 4092");
}

static void test_version(void)
{
    mmt_err err;
    mmt_gemm_params p = good();
    p.lda = 41, p.trans_a = 1;
    const mmt_launch_needs none = {0};
    CHECK_OK(mmt_launch_check(&none, &p, NULL, &err), &err); /* a binary that states nothing */
    mmt_launch_needs later = simt_aligned;
    later.version = 2;
    p = good();
    refused(&later, &p, NULL, "version 2");
}

int main(void)
{
    test_alignment();
    test_orientation_and_extent();
    test_workspace();
    test_version();
    return check_result();
}
