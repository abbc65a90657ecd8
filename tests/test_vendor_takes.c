/* test_vendor_takes.c - which calls the vendor library is asked to serve (vendor.h's
 * mmt_vendor_takes), no GPU needed: on a GPU every 16- and 32-bit mode and f64 in any
 * orientation and alignment; FP8 only as cuBLASLt takes it, row-major NT on 16-byte rows, no
 * e5m2 x e5m2; e4m3 C only of e4m3 operands and only where beta is 0 (its FP8 D reads beta C
 * from a C of another type); block scales where their layouts are known to be cuBLASLt's.
 * On the CPU, OpenBLAS's f32 and f64 alone. A call the vendor cannot serve is never asked. */
#include <stdio.h>

#include "backend.h"
#include "check.h"
#include "vendor.h"

static mmt_problem problem(mmt_mode mode, mmt_dtype out, int trans_a, int trans_b, int64_t m, int64_t k)
{
    return (mmt_problem){.dtype = mmt_mode_dtype(mode), .out = out, .mode = mode, .layout = MMT_ROW_MAJOR,
                         .trans_a = trans_a, .trans_b = trans_b, .m = m, .n = 256, .k = k};
}

int main(void)
{
    /* the CPU: OpenBLAS's sgemm and dgemm */
    mmt_problem p = problem(MMT_MODE_F32, MMT_F32, 0, 0, 100, 100);
    CHECK_EQ_INT(mmt_vendor_takes(&mmt_backend_cpu, &p, 4, 4, 4, 0), 1);
    p = problem(MMT_MODE_BF16, MMT_BF16, 0, 0, 100, 100);
    CHECK_EQ_INT(mmt_vendor_takes(&mmt_backend_cpu, &p, 16, 16, 16, 1), 0);

    mmt_err err;
    const mmt_backend *cuda = mmt_backend_cuda_compiler(&err);
    if (!cuda) {
        printf("the GPU's rules skipped: %s\n", err.msg);
        return check_result();
    }
    static const struct {
        mmt_mode mode;
        mmt_dtype out;
        int trans_a, trans_b, align, beta_zero;
        int64_t m, k;
        int takes;
    } cases[] = {
        {MMT_MODE_BF16, MMT_BF16, 0, 0, 2, 0, 100, 100, 1},   /* any orientation and alignment */
        {MMT_MODE_F64, MMT_F64, 1, 1, 8, 0, 100, 100, 1},
        {MMT_MODE_E4M3, MMT_BF16, 0, 1, 16, 0, 100, 128, 1},  /* FP8: NT on 16-byte rows */
        {MMT_MODE_E4M3, MMT_BF16, 0, 0, 16, 0, 100, 128, 0},
        {MMT_MODE_E4M3, MMT_BF16, 0, 1, 8, 0, 100, 128, 0},
        {MMT_MODE_E5M2, MMT_BF16, 0, 1, 16, 0, 100, 128, 0},  /* no e5m2 x e5m2 */
        {MMT_MODE_E4M3, MMT_E4M3, 0, 1, 16, 1, 100, 128, 1},  /* e4m3 C at beta 0 */
        {MMT_MODE_E4M3, MMT_E4M3, 0, 1, 16, 0, 100, 128, 0},  /* ... not with beta */
        {MMT_MODE_E4M3, MMT_E4M3, 0, 1, 8, 1, 100, 128, 0},
        {MMT_MODE_E4M3, MMT_E5M2, 0, 1, 16, 1, 100, 128, 0},  /* e5m2 C */
        {MMT_MODE_E4M3_E5M2, MMT_E4M3, 0, 1, 16, 1, 100, 128, 0},
        {MMT_MODE_E4M3_E5M2, MMT_BF16, 0, 1, 16, 0, 100, 128, 1},
        {MMT_MODE_E4M3_BLOCK, MMT_BF16, 0, 1, 16, 0, 100, 1024, 1}, /* block scales: M in 4s, K in 512s */
        {MMT_MODE_E4M3_BLOCK, MMT_BF16, 0, 1, 16, 0, 101, 1024, 0},
        {MMT_MODE_E4M3_BLOCK, MMT_BF16, 0, 1, 16, 0, 100, 640, 0},
        {MMT_MODE_E4M3_BLOCK, MMT_E4M3, 0, 1, 16, 1, 100, 1024, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        p = problem(cases[i].mode, cases[i].out, cases[i].trans_a, cases[i].trans_b, cases[i].m, cases[i].k);
        const int a = cases[i].align;
        const int takes = mmt_vendor_takes(cuda, &p, a, a, a, cases[i].beta_zero);
        if (takes != cases[i].takes)
            fprintf(stderr, "case %zu (%s->%s): takes %d\n", i, mmt_mode_name(p.mode), mmt_dtype_name(p.out), takes);
        CHECK_EQ_INT(takes, cases[i].takes);
    }
    return check_result();
}
