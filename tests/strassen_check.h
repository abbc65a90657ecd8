/* strassen_check.h - what the Strassen tests share (test_strassen.c on the CPU,
 * test_gpu_strassen.c on a GPU): a family's configuration with 0, 1 or 2 levels run through
 * mmt_strassen_run on a backend's memory, over even and odd shapes, every transpose, padded
 * leading dimensions and the BLAS alpha/beta rules (NaN in C with beta = 0, NaN in A and B
 * with alpha = 0), f32 and f64, against gemm_check.h's long double reference within the
 * tuner's bound for the levels (mmt_bench_error_bound). The workspace lies between guard
 * bytes that must come back as they were, and the padding past C's rows must too. */
#ifndef MMT_STRASSEN_CHECK_H
#define MMT_STRASSEN_CHECK_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "check.h"
#include "family.h"
#include "gemm_check.h"
#include "kernel.h"
#include "strassen.h"

#define SC_GUARD 4096 /* bytes of guard before and after the workspace */

typedef struct sc_shape {
    int64_t m, n, k;
} sc_shape;

typedef struct sc_case {
    double alpha, beta;
    int nan_c, nan_ab; /* poison C (beta = 0) or A and B (alpha = 0) */
} sc_case;

static const sc_case sc_cases[] = {{1.0, 0.0, 1, 0}, {0.75, -1.25, 0, 0}, {0.0, 2.0, 0, 1}, {-1.5, 1.0, 0, 0}};

/* A backend, a family and what runs on it: the base instance and the additions per element
 * type (0 f32, 1 f64). An instance is built for its operands' alignment (the SIMT space's
 * 16-byte copies): mod for operands aligned to their element, mod16 for 16-byte aligned
 * ones; a run takes the one its operands allow, as the library does. */
typedef struct sc_env {
    const mmt_backend *be;
    const mmt_device_info *dev;
    const mmt_family *fam;
    mmt_config base; /* levels 0 */
    mmt_module *mod[2], *mod16[2];
    mmt_strassen_adds adds[2];
} sc_env;

static mmt_problem sc_problem(int f64, sc_shape s, int ta, int tb)
{
    mmt_problem p = {.dtype = f64 ? MMT_F64 : MMT_F32, .out = f64 ? MMT_F64 : MMT_F32,
                     .mode = f64 ? MMT_MODE_F64 : MMT_MODE_F32, .layout = MMT_ROW_MAJOR, .trans_a = ta,
                     .trans_b = tb, .m = s.m, .n = s.n, .k = s.k};
    return p;
}

/* One base instance for the transposes and the operands' alignment (bytes). */
static mmt_status sc_build(sc_env *e, int f64, int ta, int tb, int align, mmt_module **mod, mmt_err *err)
{
    mmt_problem p = sc_problem(f64, (sc_shape){64, 64, 64}, ta, tb);
    mmt_space_env env = {.problem = &p, .device = e->dev, .align_a = align, .align_b = align};
    char defines[4096], *log = NULL;
    void *bin = NULL;
    size_t size = 0;
    if (*mod) e->be->unload(*mod);
    *mod = NULL;
    mmt_status st = mmt_kernel_defines(e->fam->space, &e->base, &env, defines, sizeof defines, err);
    if (st == MMT_OK)
        st = mmt_kernel_binary(e->be, e->dev, e->fam->name, e->fam->source, defines, &bin, &size, &log, NULL,
                               err);
    if (st == MMT_OK) st = e->be->load(e->dev, bin, size, e->fam->space->entry, mod, err);
    free(bin);
    free(log);
    return st;
}

/* Builds the base instances for a pair of transposes (every shape of it runs them) and the
 * additions. */
static int sc_open(sc_env *e, int f64, int ta, int tb)
{
    mmt_err err;
    mmt_status st = sc_build(e, f64, ta, tb, f64 ? 8 : 4, &e->mod[f64], &err);
    if (st == MMT_OK) st = sc_build(e, f64, ta, tb, 16, &e->mod16[f64], &err);
    if (st == MMT_OK && !e->adds[f64].be)
        st = mmt_strassen_adds_load(e->be, e->dev, f64 ? MMT_F64 : MMT_F32, &e->adds[f64], &err);
    if (st != MMT_OK) fprintf(stderr, "building the base kernel or the additions failed: %s\n", err.msg);
    CHECK_OK(st, &err);
    return st == MMT_OK;
}

static void sc_close(sc_env *e)
{
    for (int i = 0; i < 2; i++) {
        if (e->mod[i]) e->be->unload(e->mod[i]);
        if (e->mod16[i]) e->be->unload(e->mod16[i]);
        mmt_strassen_adds_unload(&e->adds[i]);
    }
}

/* One run of `levels` levels; returns the relative error (INFINITY where the run failed, a
 * guard byte or the padding of C changed, or the plan was not valid). *plan_out (may be
 * NULL) receives the plan. */
static double sc_run(sc_env *e, int f64, int levels, sc_shape s, int ta, int tb, sc_case c,
                     mmt_strassen_plan *plan_out)
{
    const mmt_backend *be = e->be;
    int64_t ar = ta ? s.k : s.m, ac = ta ? s.m : s.k, br = tb ? s.n : s.k, bc = tb ? s.k : s.n;
    int64_t lda = ac + 3, ldb = bc + 1, ldc = s.n + 2; /* padded: leading dimensions are honoured */
    const size_t es = f64 ? 8 : 4, asz = es * ar * lda, bsz = es * br * ldb, csz = es * s.m * ldc;
    /* device memory starts 256-byte aligned: the pitches decide */
    const int align_a = mmt_align_bytes(0, lda * (int64_t)es), align_b = mmt_align_bytes(0, ldb * (int64_t)es);
    mmt_module *base = align_a >= 16 && align_b >= 16 ? e->mod16[f64] : e->mod[f64];
    mmt_problem p = sc_problem(f64, s, ta, tb);
    mmt_space_env env = {.problem = &p, .device = e->dev, .align_a = align_a, .align_b = align_b, .allow_levels = 1};
    mmt_config cfg = mmt_config_with_levels(e->fam->space, &e->base, levels);
    mmt_strassen_plan plan;
    int valid = 0;
    mmt_err err;
    if (levels) {
        CHECK_OK(mmt_strassen_plan_make(e->fam->space, &cfg, &env, &plan, &valid, &err), &err);
        if (!valid) {
            fprintf(stderr, "no valid plan of %d levels for %lldx%lldx%lld\n", levels, (long long)s.m,
                    (long long)s.n, (long long)s.k);
            return INFINITY;
        }
        if (plan_out) *plan_out = plan;
    }
    const size_t wsz = levels ? (size_t)plan.workspace : 0, gsz = 2 * SC_GUARD + wsz;
    void *a = gc_matrix(f64, 0, ar, ac, lda, c.nan_ab), *b = gc_matrix(f64, 0, br, bc, ldb, c.nan_ab);
    void *cm = gc_matrix(f64, 0, s.m, s.n, ldc, c.nan_c), *c0 = malloc(csz ? csz : 1);
    unsigned char *guard = malloc(gsz), *back = malloc(gsz);
    memcpy(c0, cm, csz);
    memset(guard, 0xA5, gsz);
    double *ref = gc_ref_alloc(s.m, s.n);
    gc_reference(f64, 0, ta, tb, s.m, s.n, s.k, c.alpha, a, lda, b, ldb, c.beta, c0, ldc, ref);

    double rel = INFINITY;
    void *da = NULL, *db = NULL, *dc = NULL, *dw = NULL;
    mmt_status st = be->alloc(e->dev, asz, &da, &err);
    if (st == MMT_OK) st = be->alloc(e->dev, bsz, &db, &err);
    if (st == MMT_OK) st = be->alloc(e->dev, csz, &dc, &err);
    if (st == MMT_OK) st = be->alloc(e->dev, gsz, &dw, &err);
    if (st == MMT_OK) st = be->copy(da, a, asz, MMT_H2D, &err);
    if (st == MMT_OK) st = be->copy(db, b, bsz, MMT_H2D, &err);
    if (st == MMT_OK) st = be->copy(dc, cm, csz, MMT_H2D, &err);
    if (st == MMT_OK) st = be->copy(dw, guard, gsz, MMT_H2D, &err);
    mmt_gemm_params gp = {.m = s.m, .n = s.n, .k = s.k, .lda = lda, .ldb = ldb, .ldc = ldc, .trans_a = ta,
                          .trans_b = tb, .alpha = c.alpha, .beta = c.beta, .a = da, .b = db, .c = dc,
                          .workspace = (char *)dw + SC_GUARD, .workspace_size = (int64_t)wsz};
    if (st == MMT_OK && levels) {
        st = mmt_strassen_run(be, base, &e->adds[f64], &plan, &gp, NULL, &err);
    } else if (st == MMT_OK) {
        mmt_geometry g;
        st = mmt_space_geometry(e->fam->space, &e->base, &env, &g, &err);
        if (st == MMT_OK) st = be->launch(base, &gp, &g, NULL, &err);
    }
    if (st == MMT_OK) st = be->sync(NULL, &err);
    if (st == MMT_OK) st = be->copy(cm, dc, csz, MMT_D2H, &err);
    if (st == MMT_OK) st = be->copy(back, dw, gsz, MMT_D2H, &err);
    if (st == MMT_OK) {
        rel = gc_rel_error(f64, 0, s.m, s.n, cm, ldc, ref);
        for (int64_t i = 0; i < s.m; i++) /* the padding past each row of C is untouched */
            for (int64_t j = s.n; j < ldc; j++) {
                double x = gc_get(cm, f64, 0, ldc, i, j), y = gc_get(c0, f64, 0, ldc, i, j);
                if (x != y && !(isnan(x) && isnan(y))) rel = INFINITY;
            }
        for (size_t i = 0; i < SC_GUARD; i++) /* the workspace was never exceeded */
            if (back[i] != 0xA5 || back[SC_GUARD + wsz + i] != 0xA5) rel = INFINITY;
    } else {
        fprintf(stderr, "run failed: %s\n", err.msg);
    }
    be->free(da), be->free(db), be->free(dc), be->free(dw);
    free(a), free(b), free(cm), free(c0), free(ref), free(guard), free(back);
    return rel;
}

/* Every case of shapes x transposes x alpha/beta for levels 0 to 2 in f32 and f64: counts
 * the runs outside the bound (printing them); prints the largest error per level. */
static void sc_run_all(sc_env *e, const sc_shape *shapes, size_t n_shapes)
{
    for (int f64 = 0; f64 < 2; f64++) {
        double worst[MMT_STRASSEN_MAX_LEVELS + 1] = {0}, worst_ratio[MMT_STRASSEN_MAX_LEVELS + 1] = {0};
        int bad = 0, runs = 0;
        for (int t = 0; t < 4; t++) {
            if (!sc_open(e, f64, t & 1, t >> 1)) return;
            for (size_t si = 0; si < n_shapes; si++)
                for (size_t ci = 0; ci < sizeof sc_cases / sizeof sc_cases[0]; ci++)
                    for (int levels = 0; levels <= MMT_STRASSEN_MAX_LEVELS; levels++) {
                        const sc_shape s = shapes[si];
                        mmt_problem p = sc_problem(f64, s, t & 1, t >> 1);
                        const double bound = mmt_bench_error_bound(&p, levels);
                        double rel = sc_run(e, f64, levels, s, t & 1, t >> 1, sc_cases[ci], NULL);
                        runs++;
                        if (!(rel <= bound)) {
                            fprintf(stderr, "%s %d levels %lldx%lldx%lld ta=%d tb=%d alpha=%g beta=%g: error %g, "
                                            "bound %g\n",
                                    f64 ? "f64" : "f32", levels, (long long)s.m, (long long)s.n, (long long)s.k,
                                    t & 1, t >> 1, sc_cases[ci].alpha, sc_cases[ci].beta, rel, bound);
                            bad++;
                        } else if (rel > worst[levels]) {
                            worst[levels] = rel;
                        }
                        if (rel / bound > worst_ratio[levels]) worst_ratio[levels] = rel / bound;
                    }
        }
        CHECK_EQ_INT(bad, 0);
        printf("%s: %d runs, %d outside the bound; largest error (of the bound) per level:", f64 ? "f64" : "f32",
               runs, bad);
        for (int l = 0; l <= MMT_STRASSEN_MAX_LEVELS; l++) printf("  %d: %.3g (%.0f%%)", l, worst[l], 100 * worst_ratio[l]);
        printf("\n");
    }
}

#endif
