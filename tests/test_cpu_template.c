/* test_cpu_template.c - the CPU template through the real backend (cc subprocess, dlopen):
 * the default and a sample of the search space, f32 and f64, over odd shapes, every
 * transpose, padded leading dimensions and the BLAS alpha/beta rules, against a long
 * double reference. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "check.h"
#include "family.h"
#include "gemm_check.h"
#include "kernel.h"

typedef struct shape {
    int64_t m, n, k;
} shape;

static const shape shapes[] = {{1, 1, 1},   {7, 5, 3},    {63, 65, 17}, {65, 63, 129},
                               {1, 300, 7}, {300, 1, 70}, {129, 257, 300}, {17, 33, 0}};

typedef struct ab {
    double alpha, beta;
    int nan_c, nan_ab; /* poison C (beta = 0) or A and B (alpha = 0) */
} ab;

static const ab cases[] = {{1.0, 0.0, 1, 0}, {0.75, -1.25, 0, 0}, {0.0, 2.0, 0, 1}, {-1.5, 1.0, 0, 0}};

static mmt_module *build(const mmt_device_info *dev, const mmt_family *fam, const mmt_config *cfg,
                         const mmt_problem *p, mmt_err *err)
{
    mmt_space_env env = {.problem = p, .device = dev};
    char defines[4096];
    void *bin;
    size_t size;
    char *log = NULL;
    mmt_module *mod = NULL;
    if (mmt_kernel_defines(fam->space, cfg, &env, defines, sizeof defines, err) != MMT_OK) return NULL;
    mmt_status st =
        mmt_kernel_binary(&mmt_backend_cpu, dev, NULL, fam->name, fam->source, defines, &bin, &size, &log, NULL, err);
    free(log);
    if (st != MMT_OK) return NULL;
    st = mmt_backend_cpu.load(dev, bin, size, fam->space->entry, &mod, err);
    free(bin);
    return st == MMT_OK ? mod : NULL;
}

/* One call of an instance on one shape and case; returns the relative error. */
static double run_case(mmt_module *mod, int f64, shape s, int ta, int tb, ab c)
{
    int64_t ar = ta ? s.k : s.m, ac = ta ? s.m : s.k, br = tb ? s.n : s.k, bc = tb ? s.k : s.n;
    int64_t lda = ac + 3, ldb = bc + 1, ldc = s.n + 2; /* padded: leading dims are honoured */
    void *a = gc_matrix(f64, 0, ar, ac, lda, c.nan_ab), *b = gc_matrix(f64, 0, br, bc, ldb, c.nan_ab);
    void *cm = gc_matrix(f64, 0, s.m, s.n, ldc, c.nan_c);
    void *c0 = gc_matrix(f64, 0, s.m, s.n, ldc, 0);
    memcpy(c0, cm, (size_t)(f64 ? 8 : 4) * s.m * ldc);
    double *ref = gc_ref_alloc(s.m, s.n);
    gc_reference(f64, 0, ta, tb, s.m, s.n, s.k, c.alpha, a, lda, b, ldb, c.beta, c0, ldc, ref);
    mmt_gemm_params p = {.m = s.m, .n = s.n, .k = s.k, .lda = lda, .ldb = ldb, .ldc = ldc, .trans_a = ta,
                         .trans_b = tb, .alpha = c.alpha, .beta = c.beta, .a = a, .b = b, .c = cm};
    mmt_err err;
    mmt_backend_cpu.launch(mod, &p, NULL, NULL, &err);
    double e = gc_rel_error(f64, 0, s.m, s.n, cm, ldc, ref);
    /* the padding past each row of C must be untouched */
    for (int64_t i = 0; i < s.m; i++)
        for (int64_t j = s.n; j < ldc; j++)
            if (gc_get(cm, f64, 0, ldc, i, j) != gc_get(c0, f64, 0, ldc, i, j) &&
                !(isnan(gc_get(cm, f64, 0, ldc, i, j)) && isnan(gc_get(c0, f64, 0, ldc, i, j))))
                e = INFINITY;
    free(a), free(b), free(cm), free(c0), free(ref);
    return e;
}

static void test_config(const mmt_device_info *dev, const mmt_family *fam, const mmt_config *cfg, int f64,
                        int big)
{
    char text[512];
    mmt_config_format(fam->space, cfg, text, sizeof text);
    mmt_problem p = {.dtype = f64 ? MMT_F64 : MMT_F32, .layout = MMT_ROW_MAJOR, .m = 64, .n = 64, .k = 64};
    mmt_err err;
    mmt_module *mod = build(dev, fam, cfg, &p, &err);
    if (!mod) {
        fprintf(stderr, "build of %s failed: %s\n", text, err.msg);
        CHECK(mod != NULL);
        return;
    }
    int bad = 0, runs = 0;
    for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++)
        for (int t = 0; t < 4; t++)
            for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
                double e = run_case(mod, f64, shapes[si], t & 1, t >> 1, cases[ci]);
                runs++;
                if (!(e <= gc_bound(f64, shapes[si].k))) {
                    fprintf(stderr, "%s %s: %lldx%lldx%lld ta=%d tb=%d alpha=%g beta=%g: rel error %g\n",
                            f64 ? "f64" : "f32", text, (long long)shapes[si].m, (long long)shapes[si].n,
                            (long long)shapes[si].k, t & 1, t >> 1, cases[ci].alpha, cases[ci].beta, e);
                    bad++;
                }
            }
    if (big) { /* a large odd shape once: every edge path at full blocking */
        shape s = {1000, 1001, 999};
        double e = run_case(mod, f64, s, 0, 0, cases[0]);
        if (!(e <= gc_bound(f64, s.k))) {
            fprintf(stderr, "%s %s: 1000x1001x999: rel error %g\n", f64 ? "f64" : "f32", text, e);
            bad++;
        }
    }
    CHECK_EQ_INT(bad, 0);
    printf("%s %-60s %d cases ok\n", f64 ? "f64" : "f32", text, runs - bad);
    mmt_backend_cpu.unload(mod);
}

int main(void)
{
    mmt_device_info dev;
    mmt_err err;
    CHECK_OK(mmt_backend_cpu.probe(0, &dev, &err), &err);
    for (int f64 = 0; f64 < 2; f64++) {
        mmt_family *fam;
        CHECK_OK(mmt_family_find_template("cpu/gemm_avx.c", &fam, &err), &err);
        if (!fam) continue;
        mmt_config def;
        mmt_space_default(fam->space, &def);
        test_config(&dev, fam, &def, f64, 1);
        /* a spread sample of the valid space for a mid-size problem */
        mmt_problem p = {.dtype = f64 ? MMT_F64 : MMT_F32, .layout = MMT_ROW_MAJOR, .m = 512, .n = 512, .k = 512};
        mmt_space_env env = {.problem = &p, .device = &dev};
        mmt_config *all = NULL;
        size_t n = 0;
        CHECK_OK(mmt_space_enumerate(fam->space, &env, &all, &n, &err), &err);
        CHECK(n > 0);
        for (size_t i = 0; n && i < 4; i++) test_config(&dev, fam, &all[(i * 2 + 1) * n / 8], f64, 0);
        free(all);
        mmt_family_free(fam);
    }
    return check_result();
}
