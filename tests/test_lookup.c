/* test_lookup.c - the choice of a configuration: exact, nearest, default; only tuned
 * problems of the same kind (input type, output type, mode, transposes) are borrowed; the
 * recorded GFLOP/s comes back with the choice (0 for the default); a tuned configuration
 * that the operands' alignment rules out is passed over, and a default it rules out is
 * MMT_UNSUPPORTED naming the alignment. Among families: exact before nearest, then the
 * faster; a family whose configuration the operands rule out is never chosen, and the
 * default is the first family's that is valid. An untuned problem runs the first of the
 * space's `defaults:` that holds and is valid for it. A caller that asks for reproducible
 * results never gets an atomic split-K configuration from the real CUDA spaces, tuned,
 * borrowed or default. A tuned configuration keeps its Strassen levels only where the caller
 * allows them and they apply to the problem; elsewhere it serves at 0 levels (its classic
 * winner). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "h100.h"
#include "family.h"
#include "lookup.h"

/* A tiny space whose VEC path needs 16-byte rows and pointers, like a template with
 * 128-bit loads; the default keeps it off unless DEFAULT_VEC says otherwise. */
static mmt_space *load(int default_vec)
{
    char text[1024];
    snprintf(text, sizeof text,
             "template: cpu/none.c\n"
             "entry: mmt_gemm\n"
             "modes: [f32, f64, bf16, f16, tf32, f32x3]\n"
             "params:\n"
             "  B: [1, 2, 3]\n"
             "  VEC: [0, 1]\n"
             "constraints:\n"
             "  - \"!VEC || (ALIGN_A >= 16 && ALIGN_B >= 16)\"\n"
             "default: {B: 1, VEC: %d}\n",
             default_vec);
    mmt_space *s = NULL;
    mmt_err err;
    CHECK_OK(mmt_space_load_text("lookup.yaml", text, strlen(text), &s, &err), &err);
    return s;
}

static mmt_best_rec best(mmt_mode mode, mmt_dtype out, int ta, int64_t m, int64_t n, int64_t k, const char *params,
                         double gflops)
{
    mmt_best_rec r;
    memset(&r, 0, sizeof r);
    r.problem = (mmt_problem){.dtype = mmt_mode_dtype(mode), .out = out, .mode = mode, .layout = MMT_ROW_MAJOR,
                              .trans_a = ta, .m = m, .n = n, .k = k};
    snprintf(r.params, sizeof r.params, "%s", params);
    r.gflops = gflops;
    return r;
}

static void choose(const mmt_space *s, const mmt_best_rec *b, size_t n, mmt_problem p, int align, const char *want,
                   mmt_choice want_how, double want_gflops)
{
    mmt_space_env env = {.problem = &p, .align_a = align, .align_b = align};
    mmt_config c;
    mmt_choice how = MMT_CHOICE_NONE;
    double gflops = -1;
    mmt_err err;
    CHECK_OK(mmt_lookup_choose(s, b, n, &env, &c, &how, &gflops, &err), &err);
    char text[128];
    mmt_config_format(s, &c, text, sizeof text);
    CHECK_EQ_STR(text, want);
    CHECK_EQ_INT(how, want_how);
    CHECK(gflops == want_gflops);
}

static void test_kinds(void)
{
    mmt_space *s = load(0);
    if (!s) return;
    const mmt_best_rec b[] = {
        best(MMT_MODE_F32, MMT_F32, 0, 256, 256, 256, "B=2,VEC=0", 100),
        best(MMT_MODE_TF32, MMT_F32, 0, 256, 256, 256, "B=3,VEC=0", 300),
        best(MMT_MODE_BF16, MMT_F32, 0, 512, 512, 512, "B=2,VEC=0", 500),
        best(MMT_MODE_BF16, MMT_BF16, 0, 64, 64, 64, "B=3,VEC=0", 50),
        best(MMT_MODE_F32, MMT_F32, 1, 300, 300, 300, "B=3,VEC=0", 90),
    };
    size_t n = sizeof b / sizeof b[0];
    mmt_problem f32 = b[0].problem, tf32 = b[1].problem, f32x3 = b[0].problem;
    f32x3.mode = MMT_MODE_F32X3;
    choose(s, b, n, f32, 0, "B=2,VEC=0", MMT_CHOICE_EXACT, 100);
    choose(s, b, n, tf32, 0, "B=3,VEC=0", MMT_CHOICE_EXACT, 300);      /* same shape, another mode */
    choose(s, b, n, f32x3, 0, "B=1,VEC=0", MMT_CHOICE_DEFAULT, 0);     /* f32 and tf32 are not f32x3 */
    mmt_problem bf = b[2].problem;
    bf.m = 400;
    choose(s, b, n, bf, 0, "B=2,VEC=0", MMT_CHOICE_NEAREST, 500);      /* bf16->f32 only: 64^3 is ->bf16 */
    bf.out = MMT_BF16;
    choose(s, b, n, bf, 0, "B=3,VEC=0", MMT_CHOICE_NEAREST, 50);
    mmt_problem t = f32;
    t.trans_a = 1;
    choose(s, b, n, t, 0, "B=3,VEC=0", MMT_CHOICE_NEAREST, 90);        /* transposes keep apart */
    mmt_problem f64 = f32;
    f64.dtype = f64.out = MMT_F64;
    f64.mode = MMT_MODE_F64;
    choose(s, b, n, f64, 0, "B=1,VEC=0", MMT_CHOICE_DEFAULT, 0);
    /* the tuned-only query says when there is nothing tuned */
    mmt_space_env env = {.problem = &f32x3};
    mmt_config c;
    mmt_choice how;
    double g;
    CHECK_EQ_INT(mmt_lookup_tuned(s, b, n, &env, &c, &how, &g), 0);
    env.problem = &tf32;
    CHECK_EQ_INT(mmt_lookup_tuned(s, b, n, &env, &c, &how, &g), 1);
    CHECK(g == 300);
    mmt_space_free(s);
}

static void test_alignment(void)
{
    mmt_space *s = load(0);
    if (!s) return;
    const mmt_best_rec b[] = {
        best(MMT_MODE_BF16, MMT_F32, 0, 256, 256, 256, "B=2,VEC=1", 700), /* fast, needs 16-byte rows */
        best(MMT_MODE_BF16, MMT_F32, 0, 300, 256, 256, "B=3,VEC=0", 400),
    };
    mmt_problem p = b[0].problem;
    choose(s, b, 2, p, 0, "B=2,VEC=1", MMT_CHOICE_EXACT, 700);  /* dense 256 x 2 bytes: aligned */
    choose(s, b, 2, p, 16, "B=2,VEC=1", MMT_CHOICE_EXACT, 700);
    choose(s, b, 2, p, 2, "B=3,VEC=0", MMT_CHOICE_NEAREST, 400); /* 2-byte rows: the exact entry is out */
    choose(s, b, 1, p, 2, "B=1,VEC=0", MMT_CHOICE_DEFAULT, 0);
    mmt_space_free(s);

    /* a default that needs 16-byte rows: fine for dense storage, unsupported for 2-byte rows */
    s = load(1);
    if (!s) return;
    choose(s, NULL, 0, p, 0, "B=1,VEC=1", MMT_CHOICE_DEFAULT, 0);
    mmt_space_env env = {.problem = &p, .align_a = 2, .align_b = 16};
    mmt_config c;
    mmt_choice how;
    mmt_err err;
    CHECK_EQ_INT(mmt_lookup_choose(s, NULL, 0, &env, &c, &how, NULL, &err), MMT_UNSUPPORTED);
    CHECK(strstr(err.msg, "aligned to 2 bytes") != NULL);
    mmt_space_free(s);

    /* a space none of whose configurations this device admits (wgmma's compute capability,
     * FP8 before Hopper): not served here, said so; one that serves the problem but not by
     * its default: the space's fault */
    const char *text = "template: cpu/none.c\nentry: mmt_gemm\nmodes: [bf16]\nparams:\n  B: [1, 2]\n"
                       "constraints:\n  - device.cc_major == 9\n  - B == 2 || M > 1000\ndefault: {B: 1}\n";
    CHECK_OK(mmt_space_load_text("device.yaml", text, strlen(text), &s, &err), &err);
    if (!s) return;
    mmt_device_info dev;
    memset(&dev, 0, sizeof dev);
    mmt_device_set_prop(&dev, "cc_major", 8);
    env = (mmt_space_env){.problem = &p, .device = &dev};
    CHECK_EQ_INT(mmt_lookup_choose(s, NULL, 0, &env, &c, &how, NULL, &err), MMT_UNSUPPORTED);
    CHECK(strstr(err.msg, "no configuration serves this problem on this device") != NULL);
    mmt_device_set_prop(&dev, "cc_major", 9);
    CHECK_EQ_INT(mmt_lookup_choose(s, NULL, 0, &env, &c, &how, NULL, &err), MMT_INTERNAL);
    mmt_space_free(s);
}

/* Two families of one mode: A (whose VEC path and, with load(1), default need 16-byte rows,
 * like the TMA family) before B. */
static void among(const mmt_lookup_family *f, mmt_problem p, int align, int want_family, const char *want,
                  mmt_choice want_how)
{
    mmt_space_env env = {.problem = &p, .align_a = align, .align_b = align};
    mmt_config c;
    mmt_choice how = MMT_CHOICE_NONE;
    int which = -1;
    mmt_err err;
    CHECK_OK(mmt_lookup_choose_among(f, 2, &env, &c, &how, NULL, &which, &err), &err);
    CHECK_EQ_INT(which, want_family);
    char text[128] = "";
    if (which >= 0) mmt_config_format(f[which].space, &c, text, sizeof text);
    CHECK_EQ_STR(text, want);
    CHECK_EQ_INT(how, want_how);
}

static void test_families(void)
{
    mmt_space *a = load(1), *b = load(0);
    if (!a || !b) return;
    const mmt_best_rec ba[] = {
        best(MMT_MODE_BF16, MMT_F32, 0, 256, 256, 256, "B=2,VEC=1", 700), /* fast, needs 16-byte rows */
        best(MMT_MODE_BF16, MMT_F32, 0, 512, 512, 512, "B=3,VEC=1", 900),
    };
    const mmt_best_rec bb[] = {
        best(MMT_MODE_BF16, MMT_F32, 0, 256, 256, 256, "B=3,VEC=0", 400),
        best(MMT_MODE_BF16, MMT_F32, 0, 1024, 1024, 1024, "B=1,VEC=0", 800),
    };
    mmt_lookup_family f[2] = {{a, ba, 2}, {b, bb, 2}};
    mmt_problem p = ba[0].problem, q = bb[1].problem, r = p;
    r.m = 300;
    among(f, p, 16, 0, "B=2,VEC=1", MMT_CHOICE_EXACT); /* both exact: the faster */
    among(f, p, 2, 1, "B=3,VEC=0", MMT_CHOICE_EXACT);  /* A's needs aligned rows: B serves */
    among(f, q, 16, 1, "B=1,VEC=0", MMT_CHOICE_EXACT); /* B exact (800) before A's faster neighbour */
    among(f, r, 16, 0, "B=2,VEC=1", MMT_CHOICE_NEAREST); /* each family's nearest: the faster figure */
    mmt_lookup_family untuned[2] = {{a, NULL, 0}, {b, NULL, 0}};
    among(untuned, p, 16, 0, "B=1,VEC=1", MMT_CHOICE_DEFAULT); /* the first family's default */
    among(untuned, p, 2, 1, "B=1,VEC=0", MMT_CHOICE_DEFAULT);  /* ... unless the operands rule it out */
    /* where no family's default fits: the first family's reason */
    mmt_lookup_family alone[1] = {{a, NULL, 0}};
    mmt_space_env env = {.problem = &p, .align_a = 2, .align_b = 2};
    mmt_config c;
    mmt_choice how;
    int which;
    mmt_err err;
    CHECK_EQ_INT(mmt_lookup_choose_among(alone, 1, &env, &c, &how, NULL, &which, &err), MMT_UNSUPPORTED);
    CHECK(strstr(err.msg, "aligned to 2 bytes") != NULL);
    mmt_space_free(a);
    mmt_space_free(b);
}

/* `defaults:` serve untuned problems only, the first that holds and is valid for them. */
static void test_shape_defaults(void)
{
    static const char text[] = "template: cpu/none.c\nentry: mmt_gemm\nmodes: [f32]\n"
                               "params:\n  B: [1, 2, 3]\n  VEC: [0, 1]\n"
                               "constraints:\n  - \"!VEC || (ALIGN_A >= 16 && ALIGN_B >= 16)\"\n"
                               "defaults:\n"
                               "  - {when: M <= 16, config: {B: 3, VEC: 1}}\n"
                               "  - {when: M <= 16 || N <= 16, config: {B: 2}}\n"
                               "default: {B: 1, VEC: 0}\n";
    mmt_space *s = NULL;
    mmt_err err;
    CHECK_OK(mmt_space_load_text("defaults.yaml", text, sizeof text - 1, &s, &err), &err);
    if (!s) return;
    const mmt_best_rec b[] = {best(MMT_MODE_F32, MMT_F32, 0, 8, 4096, 4096, "B=1,VEC=1", 100)};
    mmt_problem skinny = {.dtype = MMT_F32, .out = MMT_F32, .mode = MMT_MODE_F32, .m = 4, .n = 300, .k = 300};
    mmt_problem tall = skinny, square = skinny;
    tall.m = 300, tall.n = 1;
    square.m = 300;
    choose(s, NULL, 0, skinny, 16, "B=3,VEC=1", MMT_CHOICE_DEFAULT, 0);
    choose(s, NULL, 0, skinny, 4, "B=2,VEC=0", MMT_CHOICE_DEFAULT, 0); /* the first needs 16-byte rows */
    choose(s, NULL, 0, tall, 16, "B=2,VEC=0", MMT_CHOICE_DEFAULT, 0);
    choose(s, NULL, 0, square, 16, "B=1,VEC=0", MMT_CHOICE_DEFAULT, 0);
    choose(s, b, 1, skinny, 16, "B=1,VEC=1", MMT_CHOICE_NEAREST, 100); /* a tuned neighbour first */
    /* among families: a family whose defaults name the problem before the first's default */
    mmt_space *plain = load(0);
    if (plain) {
        mmt_lookup_family f[2] = {{plain, NULL, 0}, {s, NULL, 0}};
        among(f, skinny, 16, 1, "B=3,VEC=1", MMT_CHOICE_DEFAULT);
        among(f, square, 16, 0, "B=1,VEC=0", MMT_CHOICE_DEFAULT);
        mmt_lookup_family g[2] = {{plain, b, 1}, {s, NULL, 0}};
        among(g, skinny, 16, 0, "B=1,VEC=1", MMT_CHOICE_NEAREST); /* tuned before any default */
        mmt_space_free(plain);
    }
    mmt_space_free(s);
}

/* Levels: a space that allows them from M >= 256 (per level) and never with VEC. */
static void test_levels(void)
{
    static const char text[] = "template: cpu/none.c\nentry: mmt_gemm\nmodes: [f32, f64]\n"
                               "params: {B: [1, 2, 3], VEC: [0, 1], L: [0, 1, 2]}\nstrassen: L\n"
                               "constraints:\n  - L == 0 || (M >= 256 * pow2(L - 1) && VEC == 0)\n"
                               "default: {B: 1, VEC: 0, L: 0}\n";
    mmt_space *s = NULL;
    mmt_err err;
    CHECK_OK(mmt_space_load_text("levels.yaml", text, strlen(text), &s, &err), &err);
    if (!s) return;
    mmt_best_rec b[2] = {best(MMT_MODE_F32, MMT_F32, 0, 1024, 1024, 1024, "B=2,VEC=0,L=2", 100),
                         best(MMT_MODE_F32, MMT_F32, 0, 64, 64, 64, "B=3,VEC=1", 50)};
    const struct {
        int64_t m;
        int allow;
        const char *want;
        mmt_choice how;
    } cases[] = {
        {1024, 1, "B=2,VEC=0,L=2", MMT_CHOICE_EXACT},  {1024, 0, "B=2,VEC=0", MMT_CHOICE_EXACT},
        {600, 1, "B=2,VEC=0,L=2", MMT_CHOICE_NEAREST}, {400, 1, "B=2,VEC=0", MMT_CHOICE_NEAREST}, /* L=2: 512 */
        {900, 0, "B=2,VEC=0", MMT_CHOICE_NEAREST},     {64, 1, "B=3,VEC=1", MMT_CHOICE_EXACT},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        mmt_problem p = {.dtype = MMT_F32, .out = MMT_F32, .mode = MMT_MODE_F32, .layout = MMT_ROW_MAJOR,
                         .m = cases[i].m, .n = cases[i].m == 64 ? 64 : 1024, .k = cases[i].m == 64 ? 64 : 1024};
        mmt_space_env env = {.problem = &p, .allow_levels = cases[i].allow};
        mmt_config c;
        mmt_choice how = MMT_CHOICE_NONE;
        CHECK_EQ_INT(mmt_lookup_tuned(s, b, 2, &env, &c, &how, NULL), 1);
        char got[128];
        mmt_config_format(s, &c, got, sizeof got);
        CHECK_EQ_STR(got, cases[i].want);
        CHECK_EQ_INT(how, cases[i].how);
    }
    mmt_space_free(s);
}

static int64_t param_of(const mmt_space *s, const mmt_config *c, const char *name)
{
    for (int i = 0; i < s->n_params; i++)
        if (strcmp(s->params[i].name, name) == 0) return c->v[i];
    return -1;
}

/* Every embedded CUDA family of a mode: tuned entries that split K atomically (the exact
 * problem's and its neighbours'), and a neighbour that splits it in the order of K. A
 * reproducible call gets that one; any other call its own exact entry. */
static void test_reproducible(mmt_mode mode)
{
    mmt_family_list fams;
    mmt_err err;
    CHECK_OK(mmt_family_find_all("cuda", mode, &fams, &err), &err);
    mmt_device_info dev;
    h100(&dev);
    for (int f = 0; f < fams.n; f++) {
        const mmt_space *s = fams.f[f]->space;
        if (param_of(s, &(mmt_config){{0}}, "SERIAL") < 0) continue; /* no atomic split-K (wgmma) */
        /* few tiles and a long K; thin for the thin family */
        const int64_t n = strstr(fams.f[f]->name, "gemv") ? 4 : 64;
        mmt_problem p = {.dtype = mmt_mode_dtype(mode), .out = MMT_F32, .mode = mode, .m = 96, .n = n, .k = 8192};
        if (mode == MMT_MODE_F64) p.out = MMT_F64;
        mmt_space_env env = {.problem = &p, .device = &dev};
        mmt_config *all = NULL;
        size_t count = 0;
        CHECK_OK(mmt_space_enumerate(s, &env, &all, &count, &err), &err);
        mmt_best_rec b[4]; /* three atomic (the first the exact problem's), then one serial */
        size_t atomic = 0, serial = 0;
        for (size_t i = 0; i < count; i++) {
            const int split = param_of(s, &all[i], "SPLITK") > 1, ser = param_of(s, &all[i], "SERIAL") == 1;
            if (!split || (ser ? serial >= 1 : atomic >= 3)) continue;
            char text[512];
            mmt_config_format(s, &all[i], text, sizeof text);
            const size_t at = ser ? 3 : atomic;
            b[at] = best(mode, p.out, 0, ser ? 128 : at == 0 ? p.m : 90 + 4 * (int64_t)at, p.n, p.k, text, 1000.0 - (double)at);
            *(ser ? &serial : &atomic) += 1;
        }
        const size_t nb = 4;
        free(all);
        CHECK(atomic == 3 && serial == 1);
        if (atomic != 3 || serial != 1) continue;
        mmt_config c;
        mmt_choice how;
        CHECK_OK(mmt_lookup_choose(s, b, nb, &env, &c, &how, NULL, &err), &err);
        CHECK_EQ_INT(how, MMT_CHOICE_EXACT);
        CHECK_EQ_INT(param_of(s, &c, "SERIAL"), 0);
        env.reproducible = 1;
        CHECK_OK(mmt_lookup_choose(s, b, nb, &env, &c, &how, NULL, &err), &err);
        CHECK_EQ_INT(how, MMT_CHOICE_NEAREST);
        CHECK(param_of(s, &c, "SPLITK") > 1 && param_of(s, &c, "SERIAL") == 1);
        /* and with nothing reproducible tuned: a default that does not split atomically */
        CHECK_OK(mmt_lookup_choose(s, b, nb - 1, &env, &c, &how, NULL, &err), &err);
        CHECK_EQ_INT(how, MMT_CHOICE_DEFAULT);
        CHECK(param_of(s, &c, "SPLITK") == 1 || param_of(s, &c, "SERIAL") == 1);
        printf("%s %s: reproducible calls pass over atomic split-K\n", mmt_mode_name(mode), fams.f[f]->name);
    }
    mmt_family_list_free(&fams);
}

int main(void)
{
    test_kinds();
    test_alignment();
    test_families();
    test_shape_defaults();
    for (int mode = 0; mode < MMT_N_MODES; mode++) test_reproducible((mmt_mode)mode);
    test_levels();
    return check_result();
}
