/* test_problem.c - problem names (src/problem.c): mmt_problem_parse reads back what
 * mmt_problem_format writes, for every mode (FP8 too), output type, layout and transpose, and
 * refuses malformed text with a reason (what `mmtune --problem` prints). */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "problem.h"

static void test_round_trip(void)
{
    const struct { mmt_mode mode; mmt_dtype out; } kinds[] = {
        {MMT_MODE_F32, MMT_F32},   {MMT_MODE_F64, MMT_F64},  {MMT_MODE_BF16, MMT_BF16}, {MMT_MODE_BF16, MMT_F32},
        {MMT_MODE_F16, MMT_F16},   {MMT_MODE_F16, MMT_F32},  {MMT_MODE_TF32, MMT_F32},  {MMT_MODE_F32X3, MMT_F32},
        {MMT_MODE_E4M3, MMT_F32},  {MMT_MODE_E4M3, MMT_BF16}, {MMT_MODE_E5M2, MMT_F16},
        {MMT_MODE_E4M3_E5M2, MMT_BF16}, {MMT_MODE_E5M2_E4M3, MMT_F32}, {MMT_MODE_E4M3, MMT_E4M3},
        {MMT_MODE_E5M2_E4M3, MMT_E5M2}, {MMT_MODE_E5M2, MMT_E4M3},
    };
    int n = 0;
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
        for (int col = 0; col < 2; col++)
            for (int t = 0; t < 4; t++) {
                mmt_problem p = {.dtype = mmt_mode_dtype(kinds[i].mode), .out = kinds[i].out, .mode = kinds[i].mode,
                                 .layout = col ? MMT_COL_MAJOR : MMT_ROW_MAJOR, .trans_a = t & 1, .trans_b = t >> 1,
                                 .m = 1 + i, .n = 4097, .k = 123456789012LL};
                char text[128], again[128];
                mmt_problem_format(&p, text, sizeof text);
                mmt_problem q;
                memset(&q, 0x5a, sizeof q);
                const char *why = mmt_problem_parse(text, &q);
                if (why) fprintf(stderr, "'%s': %s\n", text, why);
                CHECK(why == NULL);
                mmt_problem_format(&q, again, sizeof again);
                CHECK_EQ_STR(again, text);
                CHECK(q.dtype == p.dtype && q.out == p.out && q.mode == p.mode && q.layout == p.layout &&
                      q.trans_a == p.trans_a && q.trans_b == p.trans_b && q.m == p.m && q.n == p.n && q.k == p.k);
                n++;
            }
    CHECK_EQ_INT(n, 128);
    mmt_problem q;
    CHECK(mmt_problem_parse("  bf16->f32   col  NT 128x64x32 ", &q) == NULL); /* blanks are free */
    CHECK(q.dtype == MMT_BF16 && q.out == MMT_F32 && q.layout == MMT_COL_MAJOR && !q.trans_a && q.trans_b);
    /* FP8: one byte a value, C in f32 where none is named (the accumulation's type) */
    CHECK(mmt_problem_parse("e4m3 row NT 64x64x64", &q) == NULL);
    CHECK(q.dtype == MMT_E4M3 && q.out == MMT_F32 && q.mode == MMT_MODE_E4M3 && mmt_dtype_size(q.dtype) == 1);
    /* FP8 C, of either kind whatever the inputs' */
    CHECK(mmt_problem_parse("e4m3->e5m2 row NT 64x64x64", &q) == NULL && q.out == MMT_E5M2);
    CHECK(mmt_problem_parse("e5m2xe4m3->e4m3 row NT 64x64x64", &q) == NULL && q.out == MMT_E4M3);
    mmt_mode m;
    CHECK(mmt_mode_of(MMT_E5M2, MMT_COMPUTE_NATIVE, &m) == 0 && m == MMT_MODE_E5M2);
    CHECK(mmt_mode_of(MMT_E4M3, MMT_COMPUTE_TF32, &m) != 0);
    CHECK(mmt_mode_compute(MMT_MODE_E4M3) == MMT_COMPUTE_NATIVE);
    /* FP8 of two kinds: the pair's mode, A's type as the problem's, B's by the mode; the
     * row-major normal form of a column-major problem swaps them */
    CHECK(mmt_mode_of(MMT_E5M2_E4M3, MMT_COMPUTE_NATIVE, &m) == 0 && m == MMT_MODE_E5M2_E4M3);
    CHECK(mmt_mode_ab_type(m) == MMT_E5M2_E4M3 && mmt_dtype_size(MMT_E5M2_E4M3) == 1);
    CHECK(mmt_problem_parse("e4m3xe5m2->bf16 col NT 64x32x16", &q) == NULL);
    CHECK(q.dtype == MMT_E4M3 && mmt_mode_b_dtype(q.mode) == MMT_E5M2);
    const mmt_problem r = mmt_problem_normalise(&q);
    CHECK(r.mode == MMT_MODE_E5M2_E4M3 && r.dtype == MMT_E5M2 && mmt_mode_b_dtype(r.mode) == MMT_E4M3);
    CHECK(r.m == 32 && r.n == 64 && r.trans_a && !r.trans_b);
}

static void test_refused(void)
{
    const struct { const char *text, *says; } bad[] = {
        {"", "four fields"},
        {"f32 row NN", "four fields"},
        {"f32 row NN 8x8x8 extra", "four fields"},
        {"f33 row NN 8x8x8", "unknown mode"},
        {"bf16->f8 row NN 8x8x8", "output type"},
        {"f32->bf16 row NN 8x8x8", "output type"}, /* f32 inputs write f32 */
        {"f64->f32 row NN 8x8x8", "output type"},
        {"bf16->e4m3 row NT 8x8x8", "output type"}, /* FP8 C is FP8 inputs' alone */
        {"e5m2->f64 row NT 8x8x8", "output type"},
        {"e4m3-block->bf16 col NT 8x8x8", "row-major"},
        {"f32->e5m2 row NN 8x8x8", "output type"},
        {"f32 diagonal NN 8x8x8", "layout"},
        {"f32 row NX 8x8x8", "transposes"},
        {"f32 row N 8x8x8", "transposes"},
        {"f32 row NNN 8x8x8", "transposes"},
        {"f32 row NN 8x8", "sizes"},
        {"f32 row NN 8x0x8", "sizes"},
        {"f32 row NN 8x-1x8", "sizes"},
        {"f32 row NN 8x8x8x8", "sizes"},
        {"f32 row NN 8x8xk", "sizes"},
        {"f32 row NN x8x8", "sizes"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        mmt_problem q = {.m = 77};
        const char *why = mmt_problem_parse(bad[i].text, &q);
        if (!why || !strstr(why, bad[i].says)) fprintf(stderr, "'%s': %s\n", bad[i].text, why ? why : "accepted");
        CHECK(why != NULL && strstr(why, bad[i].says) != NULL);
        CHECK_EQ_INT(q.m, 77); /* untouched */
    }
    CHECK(mmt_problem_parse(NULL, NULL) != NULL);
}

/* A column-major problem and the row-major one it runs as are the same run; another
 * transpose or size is not. */
static void test_normal_form(void)
{
    const mmt_problem col = {.dtype = MMT_F32, .out = MMT_F32, .layout = MMT_COL_MAJOR, .trans_a = 1, .m = 30, .n = 20,
                             .k = 10};
    const mmt_problem row = {.dtype = MMT_F32, .out = MMT_F32, .layout = MMT_ROW_MAJOR, .trans_b = 1, .m = 20, .n = 30,
                             .k = 10};
    mmt_problem other = row;
    other.trans_a = 1;
    CHECK(mmt_problem_same_normal_form(&col, &row));
    CHECK(!mmt_problem_same_normal_form(&col, &other));
    const mmt_problem list[] = {other, row};
    CHECK(mmt_problem_among(&col, list, 2));
    CHECK(!mmt_problem_among(&col, list, 1));
    CHECK(!mmt_problem_among(&col, list, 0));
}

int main(void)
{
    test_round_trip();
    test_refused();
    test_normal_form();
    return check_result();
}
