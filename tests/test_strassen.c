/* test_strassen.c - Strassen-Winograd levels on the CPU (src/strassen.c with the CPU
 * template and templates/cpu/strassen_add.c through the real backend): every level on even
 * and odd shapes, every transpose, padded leading dimensions, the BLAS alpha/beta rules with
 * NaN poisoning, f32 and f64, within the tuner's bound for the levels, the workspace between
 * guards (strassen_check.h); then the plans themselves: the shapes a run hands the base
 * kernel, the workspace laid out for it, the 7 products and 5 passes of additions per level
 * (counted through a backend that counts launches), a workspace one byte short refused with
 * C untouched, and where the built-in CPU space lets levels run. */
#include "h100.h"
#include "strassen_check.h"

static const sc_shape shapes[] = {{64, 64, 64}, {67, 45, 93},   {33, 130, 71}, {8, 8, 8},   {100, 3, 50},
                                  {64, 64, 9},  {129, 257, 300}, {1, 1, 1},     {17, 33, 0}, {40, 200, 33}};

/* A CPU backend that counts launches per module: base calls and additions apart. */
static mmt_backend counting;
static mmt_module *counted_base;
static int base_calls, add_calls;

static mmt_status counting_launch(mmt_module *mod, const mmt_gemm_params *p, const mmt_geometry *g, void *stream,
                                  mmt_err *err)
{
    if (mod == counted_base) base_calls++;
    else add_calls++;
    return mmt_backend_cpu.launch(mod, p, g, stream, err);
}

static void test_plans(sc_env *e)
{
    const mmt_space *s = e->fam->space;
    mmt_err err;
    mmt_strassen_plan plan;
    int valid;
    mmt_config l1 = mmt_config_with_levels(s, &e->base, 1), l2 = mmt_config_with_levels(s, &e->base, 2);
    mmt_problem p = sc_problem(0, (sc_shape){64, 64, 64}, 0, 0);
    mmt_space_env env = {.problem = &p, .device = e->dev, .allow_levels = 1};

    /* one level of 64^3 f32: products of 32^3, temporaries S1..S4 T1..T4 P Q of 32 x 32 */
    CHECK_OK(mmt_strassen_plan_make(s, &l1, &env, &plan, &valid, &err), &err);
    CHECK_EQ_INT(valid, 1);
    CHECK_EQ_INT(plan.levels, 1);
    CHECK_EQ_INT(plan.unit, 4);
    CHECK_EQ_INT(plan.n_shapes, 2);
    CHECK_EQ_INT(plan.shape[0].m * 10000 + plan.shape[0].k, 64 * 10000 + 64);
    CHECK_EQ_INT(plan.shape[1].m + plan.shape[1].n + plan.shape[1].k, 96);
    CHECK_EQ_INT(plan.temp_bytes, 10 * 32 * 32 * 4);
    CHECK_EQ_INT(plan.workspace, plan.temp_bytes); /* the CPU kernel asks for no workspace */
    /* two levels: the second level's temporaries after the first's */
    CHECK_OK(mmt_strassen_plan_make(s, &l2, &env, &plan, &valid, &err), &err);
    CHECK_EQ_INT(valid, 1);
    CHECK_EQ_INT(plan.n_shapes, 2);
    CHECK_EQ_INT(plan.shape[1].m, 16);
    CHECK_EQ_INT(plan.temp_bytes, 10 * 32 * 32 * 4 + 10 * 16 * 16 * 4);
    /* odd: 67 x 45 x 93 peels 3 rows, 5 columns and 5 of depth around 64 x 40 x 88 */
    p.m = 67, p.n = 45, p.k = 93;
    CHECK_OK(mmt_strassen_plan_make(s, &l1, &env, &plan, &valid, &err), &err);
    CHECK_EQ_INT(valid, 1);
    CHECK_EQ_INT(plan.n_shapes, 5);
    const sc_shape want[5] = {{67, 45, 93}, {32, 20, 44}, {64, 40, 5}, {64, 5, 93}, {3, 45, 93}};
    for (int i = 0; i < 5 && i < plan.n_shapes; i++)
        CHECK(plan.shape[i].m == want[i].m && plan.shape[i].n == want[i].n && plan.shape[i].k == want[i].k);
    /* f64 keeps 16 bytes too: a unit of 2 elements */
    mmt_problem pd = sc_problem(1, (sc_shape){67, 45, 93}, 1, 0);
    env.problem = &pd;
    CHECK_OK(mmt_strassen_plan_make(s, &l1, &env, &plan, &valid, &err), &err);
    CHECK_EQ_INT(plan.unit, 2);
    CHECK_EQ_INT(plan.shape[1].m * 10000 + plan.shape[1].n * 100 + plan.shape[1].k, 32 * 10000 + 22 * 100 + 46);
    /* no levels, levels not allowed, or a mode without them: no plan */
    CHECK_OK(mmt_strassen_plan_make(s, &e->base, &env, &plan, &valid, &err), &err);
    CHECK_EQ_INT(valid + plan.levels, 0);
    CHECK_EQ_INT(mmt_strassen_applies(s, &l1, &env), 1);
    env.allow_levels = 0;
    CHECK_EQ_INT(mmt_strassen_applies(s, &l1, &env), 0);
    CHECK_EQ_INT(mmt_strassen_applies(s, &e->base, &env), 1);
    pd.mode = MMT_MODE_TF32, pd.dtype = pd.out = MMT_F32;
    env.allow_levels = 1;
    CHECK_EQ_INT(mmt_strassen_applies(s, &l1, &env), 0);
}

/* 7 products a level, 5 passes of additions (split A, split B, C11 += P, U3, += P5). */
static void test_counts(sc_env *e)
{
    counting = mmt_backend_cpu;
    counting.launch = counting_launch;
    const mmt_backend *real = e->be;
    if (!sc_open(e, 0, 0, 0)) return;
    e->be = &counting;
    counted_base = e->mod[0];
    for (int levels = 1; levels <= 2; levels++) {
        base_calls = add_calls = 0;
        double rel = sc_run(e, 0, levels, (sc_shape){64, 64, 64}, 0, 0, sc_cases[1], NULL);
        CHECK(rel <= mmt_bench_error_bound(&(mmt_problem){.mode = MMT_MODE_F32, .k = 64}, levels));
        CHECK_EQ_INT(base_calls, levels == 1 ? 7 : 49);
        CHECK_EQ_INT(add_calls, levels == 1 ? 5 : 5 + 7 * 5);
    }
    /* alpha == 0: one base call on the whole problem, which reads neither A nor B */
    base_calls = add_calls = 0;
    CHECK(sc_run(e, 0, 2, (sc_shape){64, 64, 64}, 0, 0, sc_cases[2], NULL) <= gc_bound(0, 64));
    CHECK_EQ_INT(base_calls * 10 + add_calls, 10);
    e->be = real;
}

/* A workspace one byte short: refused before anything runs, C as it was. */
static void test_short_workspace(sc_env *e)
{
    if (!sc_open(e, 0, 0, 0)) return;
    mmt_problem p = sc_problem(0, (sc_shape){64, 64, 64}, 0, 0);
    mmt_space_env env = {.problem = &p, .device = e->dev, .allow_levels = 1};
    mmt_config l1 = mmt_config_with_levels(e->fam->space, &e->base, 1);
    mmt_strassen_plan plan;
    int valid;
    mmt_err err;
    CHECK_OK(mmt_strassen_plan_make(e->fam->space, &l1, &env, &plan, &valid, &err), &err);
    float *a = gc_matrix(0, 0, 64, 64, 64, 0), *b = gc_matrix(0, 0, 64, 64, 64, 0), *c = gc_matrix(0, 0, 64, 64, 64, 0);
    float *c0 = malloc(sizeof(float) * 64 * 64);
    memcpy(c0, c, sizeof(float) * 64 * 64);
    char *ws = malloc((size_t)plan.workspace);
    mmt_gemm_params gp = {.m = 64, .n = 64, .k = 64, .lda = 64, .ldb = 64, .ldc = 64, .alpha = 1, .beta = 0.5,
                          .a = a, .b = b, .c = c, .workspace = ws, .workspace_size = plan.workspace - 1};
    CHECK_EQ_INT(mmt_strassen_run(e->be, e->mod[0], &e->adds[0], &plan, &gp, NULL, &err), MMT_INTERNAL);
    CHECK(memcmp(c, c0, sizeof(float) * 64 * 64) == 0);
    gp.workspace_size = plan.workspace;
    gp.m = 63; /* a plan is for its own problem */
    CHECK_EQ_INT(mmt_strassen_run(e->be, e->mod[0], &e->adds[0], &plan, &gp, NULL, &err), MMT_INTERNAL);
    CHECK_EQ_INT(mmt_strassen_run(e->be, e->mod[0], NULL, &plan, &gp, NULL, &err), MMT_INTERNAL);
    free(a), free(b), free(c), free(c0), free(ws);
}

/* The built-in CPU space: levels only where every product is at least 1024 on each side. */
static void test_builtin_space(const mmt_device_info *dev)
{
    mmt_family *fam;
    mmt_err err;
    CHECK_OK(mmt_family_find_template("cpu/gemm_avx.c", &fam, &err), &err);
    if (!fam) return;
    const mmt_space *s = fam->space;
    CHECK(s->levels_param >= 0);
    mmt_config def;
    mmt_space_default(s, &def);
    CHECK_EQ_INT(mmt_config_levels(s, &def), 0);
    const struct {
        int64_t m, n, k;
        int levels, applies;
    } cases[] = {{1024, 1024, 1024, 1, 0}, {2047, 4096, 4096, 1, 0}, {2048, 2048, 2048, 1, 1},
                 {2048, 2048, 2048, 2, 0}, {4096, 4096, 4096, 2, 1}, {4097, 4099, 4101, 2, 1},
                 {8192, 8192, 2048, 2, 0}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        mmt_problem p = sc_problem(i & 1, (sc_shape){cases[i].m, cases[i].n, cases[i].k}, 0, 1);
        mmt_space_env env = {.problem = &p, .device = dev, .allow_levels = 1};
        mmt_config c = mmt_config_with_levels(s, &def, cases[i].levels);
        CHECK_EQ_INT(mmt_strassen_applies(s, &c, &env), cases[i].applies);
    }
    mmt_family_free(fam);
}

/* The built-in SIMT space for an H100 (no GPU needed: plans are evaluated, not run): levels
 * from products of 1024 on each side; a split-K or rasterised base serves every shape a
 * level hands it (prune, not constraints); an EVEN base only where every product and strip
 * divides its tiles; the products' geometry is theirs. */
static void test_cuda_space(void)
{
    mmt_family *fam;
    mmt_err err;
    CHECK_OK(mmt_family_find_template("cuda/gemm_simt.cu", &fam, &err), &err);
    if (!fam) return;
    const mmt_space *s = fam->space;
    mmt_device_info dev;
    h100(&dev);
    mmt_config def;
    mmt_space_default(s, &def);
    int even = -1, splitk = -1, group = -1;
    for (int i = 0; i < s->n_params; i++) {
        if (!strcmp(s->params[i].name, "EVEN")) even = i;
        if (!strcmp(s->params[i].name, "SPLITK")) splitk = i;
        if (!strcmp(s->params[i].name, "GROUP_M")) group = i;
    }
    CHECK(even >= 0 && splitk >= 0 && group >= 0);
    if (even < 0 || splitk < 0 || group < 0) return;
    mmt_config ev = def, sk = def, gm = def;
    ev.v[even] = 1, sk.v[splitk] = 2, gm.v[group] = 8;
    const struct {
        const mmt_config *base;
        int64_t m, n, k;
        int levels, applies;
    } cases[] = {{&def, 2048, 2048, 2048, 1, 1}, {&def, 2047, 4096, 4096, 1, 0}, {&def, 4096, 4096, 4096, 2, 1},
                 {&def, 4096, 4095, 4096, 2, 0}, {&ev, 4096, 4096, 4096, 2, 1},  {&ev, 4160, 4160, 4160, 1, 0},
                 {&sk, 4103, 4097, 4099, 2, 1},  {&gm, 4103, 4097, 4099, 2, 1}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        mmt_problem p = sc_problem(i & 1, (sc_shape){cases[i].m, cases[i].n, cases[i].k}, 0, 0);
        mmt_space_env env = {.problem = &p, .device = &dev, .allow_levels = 1};
        mmt_config c = mmt_config_with_levels(s, cases[i].base, cases[i].levels);
        CHECK_EQ_INT(mmt_strassen_applies(s, &c, &env), cases[i].applies);
    }
    mmt_problem p = sc_problem(0, (sc_shape){4096, 4096, 4096}, 1, 1);
    mmt_space_env env = {.problem = &p, .device = &dev, .allow_levels = 1};
    mmt_config l1 = mmt_config_with_levels(s, &def, 1);
    mmt_strassen_plan plan;
    int valid = 0;
    CHECK_OK(mmt_strassen_plan_make(s, &l1, &env, &plan, &valid, &err), &err);
    CHECK_EQ_INT(valid, 1);
    CHECK_EQ_INT(plan.n_shapes, 2);
    CHECK_EQ_INT(plan.shape[0].g.grid[0], 64 * 64);
    CHECK_EQ_INT(plan.shape[1].g.grid[0], 32 * 32); /* 2048^3 products in 64 x 64 tiles */
    CHECK_EQ_INT(plan.shape[1].g.block[0], 256);
    mmt_family_free(fam);
}

int main(void)
{
    mmt_device_info dev;
    mmt_err err;
    CHECK_OK(mmt_backend_cpu.probe(0, &dev, &err), &err);
    mmt_family *fam = NULL;
    CHECK_OK(mmt_family_load_file(MMT_TEST_DATA "/space_strassen.yaml", &fam, &err), &err);
    if (!fam) return check_result();
    sc_env e = {.be = &mmt_backend_cpu, .dev = &dev, .fam = fam};
    mmt_space_default(fam->space, &e.base);
    test_plans(&e);
    test_counts(&e);
    test_short_workspace(&e);
    test_builtin_space(&dev);
    test_cuda_space();
    sc_run_all(&e, shapes, sizeof shapes / sizeof shapes[0]);
    sc_close(&e);
    mmt_family_free(fam);
    return check_result();
}
