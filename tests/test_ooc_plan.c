/* test_ooc_plan.c - the out-of-core GEMM's plan (ooc_plan.h), with no GPU: the tiles cover
 * C exactly once, the panels cover K, edge tiles and panels are cut to the problem, the
 * buffers hold what the copies put in them and stay within the budget, the caller's knobs
 * are kept or refused with the numbers, and the device lists and environment parse; the
 * tuned knobs (ooc_tuned.h): their text both ways, the grid a tune measures, and the choice
 * of the exact or nearest tuned problem's knobs. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "ooc_plan.h"
#include "ooc_tuned.h"

#define GIB (1LL << 30)

/* Every element of C in exactly one tile, every k in exactly one panel, each tile's and
 * panel's buffers large enough for what ooc.c packs into them. */
static void check_cover(const mmt_ooc_plan *p)
{
    char *seen = calloc((size_t)(p->m * p->n), 1);
    CHECK(seen != NULL);
    if (!seen) return;
    for (int64_t t = 0; t < p->tiles_m * p->tiles_n; t++) {
        int64_t i0, j0, rows, cols;
        mmt_ooc_tile(p, t, &i0, &j0, &rows, &cols);
        CHECK(rows >= 1 && cols >= 1 && rows <= p->tile_m && cols <= p->tile_n);
        CHECK(i0 + rows <= p->m && j0 + cols <= p->n);
        for (int64_t i = i0; i < i0 + rows; i++)
            for (int64_t j = j0; j < j0 + cols; j++) seen[i * p->n + j]++;
        CHECK(rows * p->c_pitch * p->c_bytes <= p->c_bytes_tile && cols <= p->c_pitch);
        int64_t next = 0;
        for (int64_t q = 0; q < p->panels; q++) {
            int64_t k0, depth;
            mmt_ooc_panel(p, q, &k0, &depth);
            CHECK_EQ_INT(k0, next);
            next = k0 + depth;
            CHECK(p->k == 0 ? depth == 0 : depth >= 1 && depth <= p->panel_k);
            const int64_t a_rows = p->trans_a ? depth : rows, a_cols = p->trans_a ? rows : depth;
            const int64_t b_rows = p->trans_b ? cols : depth, b_cols = p->trans_b ? depth : cols;
            CHECK(a_cols <= p->a_pitch && a_rows * p->a_pitch * p->ab_bytes <= p->a_bytes);
            CHECK(b_cols <= p->b_pitch && b_rows * p->b_pitch * p->ab_bytes <= p->b_bytes);
        }
        CHECK_EQ_INT(next, p->k);
    }
    int64_t wrong = 0;
    for (int64_t i = 0; i < p->m * p->n; i++) wrong += seen[i] != 1;
    CHECK_EQ_INT(wrong, 0);
    free(seen);
    CHECK_EQ_INT(p->a_pitch * p->ab_bytes % 128, 0);
    CHECK_EQ_INT(p->b_pitch * p->ab_bytes % 128, 0);
    CHECK_EQ_INT(p->c_pitch * p->c_bytes % 128, 0);
    CHECK_EQ_INT(p->device_bytes, 2 * p->c_bytes_tile + p->streams * (p->a_bytes + p->b_bytes));
}

static void test_cover(void)
{
    /* ragged edges in every direction, each transpose, small forced tiles and panels */
    const int64_t sizes[][3] = {{1, 1, 1}, {7, 5, 3}, {100, 37, 250}, {257, 129, 65}, {64, 64, 0}};
    const mmt_ooc_knobs knobs[] = {{0}, {16, 8, 4, 1}, {33, 17, 7, 3}, {5, 300, 64, 8}};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (size_t kn = 0; kn < sizeof knobs / sizeof knobs[0]; kn++)
            for (int t = 0; t < 4; t++) {
                mmt_ooc_plan p;
                const int c_bytes = t == 3 ? 2 : 4; /* bf16 -> bf16 once */
                const char *why = mmt_ooc_plan_make(sizes[s][0], sizes[s][1], sizes[s][2], t & 1 ? 2 : 4, c_bytes,
                                                    t & 1, t >> 1, &knobs[kn], GIB, &p);
                CHECK(why == NULL);
                if (why) continue;
                check_cover(&p);
                if (knobs[kn].tile_m) {
                    CHECK_EQ_INT(p.tile_m, knobs[kn].tile_m < sizes[s][0] ? knobs[kn].tile_m : sizes[s][0]);
                    CHECK_EQ_INT(p.streams, knobs[kn].streams);
                }
                CHECK_EQ_INT(p.panels, sizes[s][2] ? (sizes[s][2] + p.panel_k - 1) / p.panel_k : 1);
                if (c_bytes == 2) CHECK_EQ_INT(p.panels, 1); /* a narrow C is rounded once */
            }
}

static void test_defaults(void)
{
    mmt_ooc_plan p;
    /* small: one tile, one panel */
    CHECK(mmt_ooc_plan_make(1000, 3000, 2000, 4, 4, 0, 0, NULL, 8 * GIB, &p) == NULL);
    CHECK_EQ_INT(p.tiles_m * p.tiles_n, 1);
    CHECK_EQ_INT(p.panels, 1);
    CHECK_EQ_INT(p.streams, 2);
    /* 65536^3 fp32 (16 GiB a matrix) with 40 GiB to spare: 4 tiles of 32768, panels of 2048 */
    CHECK(mmt_ooc_plan_make(65536, 65536, 65536, 4, 4, 0, 0, NULL, 40 * GIB, &p) == NULL);
    CHECK_EQ_INT(p.tile_m, 32768);
    CHECK_EQ_INT(p.tile_n, 32768);
    CHECK_EQ_INT(p.panel_k, 2048);
    CHECK_EQ_INT(p.panels, 32);
    CHECK(p.device_bytes <= 40 * GIB);
    /* the same with 2 GiB: halved until it fits, and it still covers C */
    CHECK(mmt_ooc_plan_make(65536, 65536, 65536, 4, 4, 1, 1, NULL, 2 * GIB, &p) == NULL);
    CHECK(p.device_bytes <= 2 * GIB);
    CHECK(p.tile_m < 32768 && p.tile_m >= 256);
    /* a budget of a few KiB: nothing fits, said with the numbers */
    const char *why = mmt_ooc_plan_make(65536, 65536, 65536, 4, 4, 0, 0, NULL, 4096, &p);
    CHECK(why != NULL && strstr(why, "MiB") != NULL);
    /* the caller's tile is kept even where it does not fit: refused, not shrunk */
    const mmt_ooc_knobs big = {65536, 65536, 0, 0};
    why = mmt_ooc_plan_make(65536, 65536, 65536, 4, 4, 0, 0, &big, 8 * GIB, &p);
    CHECK(why != NULL && strstr(why, "65536x65536") != NULL);
    const mmt_ooc_knobs bad = {0, 0, 0, 9};
    CHECK(mmt_ooc_plan_make(10, 10, 10, 4, 4, 0, 0, &bad, GIB, &p) != NULL);
    CHECK(mmt_ooc_plan_make(0, 10, 10, 4, 4, 0, 0, NULL, GIB, &p) != NULL);
}

static void test_devices(void)
{
    int ord[8], n = 0;
    CHECK(mmt_ooc_parse_devices("all", 3, 8, ord, &n) == NULL);
    CHECK_EQ_INT(n, 3);
    CHECK_EQ_INT(ord[2], 2);
    CHECK(mmt_ooc_parse_devices("1,0", 2, 8, ord, &n) == NULL);
    CHECK_EQ_INT(n, 2);
    CHECK_EQ_INT(ord[0], 1);
    CHECK(mmt_ooc_parse_devices("cuda:0,cuda:1", 2, 8, ord, &n) == NULL);
    CHECK_EQ_INT(n, 2);
    CHECK(mmt_ooc_parse_devices("cuda:1", 2, 8, ord, &n) == NULL);
    CHECK_EQ_INT(ord[0], 1);
    const char *why = mmt_ooc_parse_devices("0,2", 2, 8, ord, &n);
    CHECK(why && strstr(why, "no GPU 2"));
    CHECK(mmt_ooc_parse_devices("0,0", 2, 8, ord, &n) != NULL);
    CHECK(mmt_ooc_parse_devices("0,", 2, 8, ord, &n) != NULL);
    CHECK(mmt_ooc_parse_devices("x", 2, 8, ord, &n) != NULL);
    CHECK(mmt_ooc_parse_devices("all", 0, 8, ord, &n) != NULL);
}

static void test_env(void)
{
    int64_t tm, tn, pk;
    int streams;
    char devices[64];
    setenv("MMTUNE_OOC_TILE", "4096x2048", 1);
    setenv("MMTUNE_OOC_PANEL", "512", 1);
    setenv("MMTUNE_OOC_STREAMS", "3", 1);
    setenv("MMTUNE_OOC_DEVICES", "all", 1);
    CHECK(mmt_ooc_env(&tm, &tn, &pk, &streams, devices, sizeof devices) == NULL);
    CHECK_EQ_INT(tm, 4096);
    CHECK_EQ_INT(tn, 2048);
    CHECK_EQ_INT(pk, 512);
    CHECK_EQ_INT(streams, 3);
    CHECK_EQ_STR(devices, "all");
    setenv("MMTUNE_OOC_TILE", "1024", 1);
    CHECK(mmt_ooc_env(&tm, &tn, &pk, &streams, devices, sizeof devices) == NULL);
    CHECK_EQ_INT(tn, 1024);
    const char *bad[][2] = {{"MMTUNE_OOC_TILE", "0"}, {"MMTUNE_OOC_TILE", "12x"}, {"MMTUNE_OOC_PANEL", "-4"},
                            {"MMTUNE_OOC_STREAMS", "9"}, {"MMTUNE_OOC_STREAMS", "2a"}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        setenv(bad[i][0], bad[i][1], 1);
        const char *why = mmt_ooc_env(&tm, &tn, &pk, &streams, devices, sizeof devices);
        CHECK(why != NULL && strstr(why, bad[i][0]) != NULL);
        setenv(bad[i][0], "", 1);
    }
    unsetenv("MMTUNE_OOC_DEVICES");
    CHECK(mmt_ooc_env(&tm, &tn, &pk, &streams, devices, sizeof devices) == NULL);
    CHECK_EQ_INT(tm + tn + pk + streams, 0);
    CHECK_EQ_STR(devices, "");
}

static void test_knobs_text(void)
{
    const mmt_ooc_knobs k = {8192, 4096, 2048, 3};
    char text[128];
    mmt_ooc_knobs_format(&k, text, sizeof text);
    CHECK_EQ_STR(text, "OOC_TILE_M=8192,OOC_TILE_N=4096,OOC_PANEL_K=2048,OOC_STREAMS=3");
    mmt_ooc_knobs back = {0};
    CHECK_EQ_INT(mmt_ooc_knobs_parse(text, &back), 0);
    CHECK(back.tile_m == 8192 && back.tile_n == 4096 && back.panel_k == 2048 && back.streams == 3);
    const char *bad[] = {"", "OOC_TILE_M=1", "OOC_TILE_M=0,OOC_TILE_N=1,OOC_PANEL_K=1,OOC_STREAMS=1",
                         "OOC_TILE_M=1,OOC_TILE_N=1,OOC_PANEL_K=1,OOC_STREAMS=9",
                         "OOC_TILE_M=1,OOC_TILE_N=1,OOC_PANEL_K=1,OOC_STREAMS=2,X=1",
                         "OOC_TILE_N=1,OOC_TILE_M=1,OOC_PANEL_K=1,OOC_STREAMS=2", "BM=64,BN=64"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) CHECK_EQ_INT(mmt_ooc_knobs_parse(bad[i], &back), -1);
}

static int has(const mmt_ooc_knobs *g, size_t n, mmt_ooc_knobs k)
{
    for (size_t i = 0; i < n; i++)
        if (g[i].tile_m == k.tile_m && g[i].tile_n == k.tile_n && g[i].panel_k == k.panel_k && g[i].streams == k.streams)
            return 1;
    return 0;
}

static void test_grid(void)
{
    mmt_ooc_knobs g[MMT_OOC_GRID_MAX];
    /* 16384^3 fp32: tiles of 8192 and 4096, panels of 1024, 2048 and 4096, 2 and 3 streams; the default first */
    size_t n = mmt_ooc_grid(16384, 16384, 16384, 4, 4, g);
    CHECK_EQ_INT(n, 12);
    CHECK(g[0].tile_m == 8192 && g[0].tile_n == 8192 && g[0].panel_k == 2048 && g[0].streams == 2);
    CHECK(has(g, n, (mmt_ooc_knobs){4096, 4096, 4096, 3}));
    CHECK(has(g, n, (mmt_ooc_knobs){8192, 8192, 1024, 2}));
    for (size_t i = 0; i < n; i++) CHECK(!has(g, i, g[i])); /* none measured twice */
    /* bf16 -> bf16 takes all of K in one panel: nothing to choose there */
    n = mmt_ooc_grid(16384, 16384, 16384, 2, 2, g);
    CHECK_EQ_INT(n, 4);
    for (size_t i = 0; i < n; i++) CHECK_EQ_INT(g[i].panel_k, 16384);
    /* small: one tile (no halves under 256), panels within K */
    n = mmt_ooc_grid(300, 300, 1000, 4, 4, g);
    CHECK_EQ_INT(n, 4);
    for (size_t i = 0; i < n; i++) {
        mmt_ooc_plan p;
        CHECK(g[i].panel_k <= 1000 && g[i].tile_m == 300);
        CHECK(mmt_ooc_plan_make(300, 300, 1000, 4, 4, 0, 0, &g[i], 1LL << 40, &p) == NULL);
    }
}

static void test_tuned_choose(void)
{
    const mmt_problem f32 = {.dtype = MMT_F32, .out = MMT_F32, .mode = MMT_MODE_F32, .layout = MMT_ROW_MAJOR};
    mmt_best_rec b[4] = {{.problem = f32}, {.problem = f32}, {.problem = f32}, {.problem = f32}};
    b[0].problem.m = b[0].problem.n = b[0].problem.k = 16384;
    snprintf(b[0].params, sizeof b[0].params, "OOC_TILE_M=4096,OOC_TILE_N=4096,OOC_PANEL_K=4096,OOC_STREAMS=3");
    b[1].problem.m = b[1].problem.n = b[1].problem.k = 65536;
    snprintf(b[1].params, sizeof b[1].params, "OOC_TILE_M=32768,OOC_TILE_N=32768,OOC_PANEL_K=2048,OOC_STREAMS=2");
    b[2].problem.m = b[2].problem.n = b[2].problem.k = 20000; /* another kind: never borrowed */
    b[2].problem.trans_b = 1;
    snprintf(b[2].params, sizeof b[2].params, "OOC_TILE_M=1,OOC_TILE_N=1,OOC_PANEL_K=1,OOC_STREAMS=1");
    b[3].problem.m = b[3].problem.n = b[3].problem.k = 17000; /* nearest, but not knobs: passed over */
    snprintf(b[3].params, sizeof b[3].params, "BM=64");
    mmt_problem p = f32;
    p.m = p.n = p.k = 16384;
    mmt_ooc_knobs k;
    mmt_choice how = MMT_CHOICE_NONE;
    CHECK_EQ_INT(mmt_ooc_tuned_choose(b, 4, &p, &k, &how), 1);
    CHECK(how == MMT_CHOICE_EXACT && k.tile_m == 4096 && k.panel_k == 4096 && k.streams == 3);
    p.m = p.n = p.k = 40000; /* nearer 65536 than 16384 in log terms */
    CHECK_EQ_INT(mmt_ooc_tuned_choose(b, 4, &p, &k, &how), 1);
    CHECK(how == MMT_CHOICE_NEAREST && k.tile_m == 32768 && k.streams == 2);
    p.layout = MMT_COL_MAJOR; /* knobs are in the caller's terms: another layout is another kind */
    CHECK_EQ_INT(mmt_ooc_tuned_choose(b, 4, &p, &k, &how), 0);
    p = f32;
    p.mode = MMT_MODE_TF32, p.m = p.n = p.k = 16384;
    CHECK_EQ_INT(mmt_ooc_tuned_choose(b, 4, &p, &k, &how), 0);
    CHECK_EQ_INT(mmt_ooc_tuned_choose(b, 0, &p, &k, &how), 0);
}

int main(void)
{
    test_knobs_text();
    test_grid();
    test_tuned_choose();
    test_cover();
    test_defaults();
    test_devices();
    test_env();
    return check_result();
}
