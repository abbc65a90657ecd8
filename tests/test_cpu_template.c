/* test_cpu_template.c - the CPU template through the real backend (cc subprocess, dlopen):
 * the default and a sample of the search space, f32 and f64, over odd shapes, every
 * transpose, padded leading dimensions and the BLAS alpha/beta rules, against a long
 * double reference. A sample may miss a path (every one it drew was single-thread split M
 * once): test_cpu_paths.c is the test that pins each ISA, parallel loop and thread count. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cpu_template_check.h"

static const ct_shape shapes[] = {{1, 1, 1},   {7, 5, 3},    {63, 65, 17}, {65, 63, 129},
                                  {1, 300, 7}, {300, 1, 70}, {129, 257, 300}, {17, 33, 0}};

/* One call of an instance on one shape and case; returns the relative error. */
static double run_case(mmt_module *mod, int f64, ct_shape s, int ta, int tb, ct_ab c)
{
    ct_case t;
    ct_case_make(&t, f64, s, ta, tb, c);
    double e = ct_case_run(mod, &t);
    ct_case_free(&t);
    return e;
}

static void test_config(const mmt_device_info *dev, const mmt_family *fam, const mmt_config *cfg, int f64,
                        int big)
{
    char text[512];
    mmt_config_format(fam->space, cfg, text, sizeof text);
    mmt_problem p = {.dtype = f64 ? MMT_F64 : MMT_F32, .layout = MMT_ROW_MAJOR, .m = 64, .n = 64, .k = 64};
    mmt_err err;
    mmt_module *mod = ct_build(dev, fam, cfg, &p, &err);
    if (!mod) {
        fprintf(stderr, "build of %s failed: %s\n", text, err.msg);
        CHECK(mod != NULL);
        return;
    }
    int bad = 0, runs = 0;
    for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++)
        for (int t = 0; t < 4; t++)
            for (size_t ci = 0; ci < sizeof ct_cases / sizeof ct_cases[0]; ci++) {
                double e = run_case(mod, f64, shapes[si], t & 1, t >> 1, ct_cases[ci]);
                runs++;
                if (!(e <= gc_bound(f64, shapes[si].k))) {
                    fprintf(stderr, "%s %s: %lldx%lldx%lld ta=%d tb=%d alpha=%g beta=%g: rel error %g\n",
                            f64 ? "f64" : "f32", text, (long long)shapes[si].m, (long long)shapes[si].n,
                            (long long)shapes[si].k, t & 1, t >> 1, ct_cases[ci].alpha, ct_cases[ci].beta, e);
                    bad++;
                }
            }
    if (big) { /* a large odd shape once: every edge path at full blocking */
        ct_shape s = {1000, 1001, 999};
        double e = run_case(mod, f64, s, 0, 0, ct_cases[0]);
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
