/* cpu_template_check.h - what the tests of the CPU template (templates/cpu/gemm_avx.c)
 * share: an instance built through the real backend (cc subprocess, dlopen), and a case
 * (one shape, transposes and alpha/beta rule, f32 or f64) made once, with its inputs, C
 * before the call and a long double reference (gemm_check.h), then run on as many
 * instances as a test likes. Leading dimensions are padded, and the padding past each row
 * of C must come back untouched. */
#ifndef MMT_CPU_TEMPLATE_CHECK_H
#define MMT_CPU_TEMPLATE_CHECK_H

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "family.h"
#include "gemm_check.h"
#include "kernel.h"

typedef struct ct_shape {
    int64_t m, n, k;
} ct_shape;

/* An alpha/beta rule; nan_c poisons C (with beta = 0 it must not be read), nan_ab A and B
 * (with alpha = 0 they must not be read). */
typedef struct ct_ab {
    double alpha, beta;
    int nan_c, nan_ab;
} ct_ab;

/* The BLAS rules: beta 0 (C poisoned), both scalars general, alpha 0 (A and B poisoned),
 * beta 1 (accumulate). */
static const ct_ab ct_cases[] = {{1.0, 0.0, 1, 0}, {0.75, -1.25, 0, 0}, {0.0, 2.0, 0, 1}, {-1.5, 1.0, 0, 0}};

/* The instance of cfg for problem p; NULL on failure (err says why). */
static mmt_module *ct_build(const mmt_device_info *dev, const mmt_family *fam, const mmt_config *cfg,
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
        mmt_kernel_binary(&mmt_backend_cpu, dev, fam->name, fam->source, defines, &bin, &size, &log, NULL, err);
    free(log);
    if (st != MMT_OK) return NULL;
    st = mmt_backend_cpu.load(dev, bin, size, fam->space->entry, &mod, err);
    free(bin);
    return st == MMT_OK ? mod : NULL;
}

/* One case: its inputs, C as it was before any call (c0) and the reference. */
typedef struct ct_case {
    int f64, ta, tb;
    ct_shape s;
    ct_ab ab;
    int64_t lda, ldb, ldc;
    void *a, *b, *c0, *c; /* c: the buffer a run writes, refilled from c0 first */
    double *ref;
} ct_case;

static void ct_case_make(ct_case *t, int f64, ct_shape s, int ta, int tb, ct_ab ab)
{
    int64_t ar = ta ? s.k : s.m, ac = ta ? s.m : s.k, br = tb ? s.n : s.k, bc = tb ? s.k : s.n;
    *t = (ct_case){.f64 = f64, .ta = ta, .tb = tb, .s = s, .ab = ab};
    t->lda = ac + 3, t->ldb = bc + 1, t->ldc = s.n + 2; /* padded: leading dims are honoured */
    t->a = gc_matrix(f64, 0, ar, ac, t->lda, ab.nan_ab);
    t->b = gc_matrix(f64, 0, br, bc, t->ldb, ab.nan_ab);
    t->c0 = gc_matrix(f64, 0, s.m, s.n, t->ldc, ab.nan_c);
    t->c = gc_matrix(f64, 0, s.m, s.n, t->ldc, 0);
    t->ref = gc_ref_alloc(s.m, s.n);
    gc_reference(f64, 0, ta, tb, s.m, s.n, s.k, ab.alpha, t->a, t->lda, t->b, t->ldb, ab.beta, t->c0, t->ldc, t->ref);
}

static void ct_case_free(ct_case *t) { free(t->a), free(t->b), free(t->c0), free(t->c), free(t->ref); }

/* Runs mod on the case (C from c0 again first); the relative error against the reference,
 * INFINITY where the call failed or the padding of C changed. */
static double ct_case_run(mmt_module *mod, ct_case *t)
{
    const ct_shape s = t->s;
    memcpy(t->c, t->c0, (size_t)(t->f64 ? 8 : 4) * s.m * t->ldc);
    mmt_gemm_params p = {.m = s.m, .n = s.n, .k = s.k, .lda = t->lda, .ldb = t->ldb, .ldc = t->ldc,
                         .trans_a = t->ta, .trans_b = t->tb, .alpha = t->ab.alpha, .beta = t->ab.beta,
                         .a = t->a, .b = t->b, .c = t->c};
    mmt_err err;
    if (mmt_backend_cpu.launch(mod, &p, NULL, NULL, &err) != MMT_OK) return INFINITY;
    double e = gc_rel_error(t->f64, 0, s.m, s.n, t->c, t->ldc, t->ref);
    for (int64_t i = 0; i < s.m; i++)
        for (int64_t j = s.n; j < t->ldc; j++) {
            double now = gc_get(t->c, t->f64, 0, t->ldc, i, j), was = gc_get(t->c0, t->f64, 0, t->ldc, i, j);
            if (now != was && !(isnan(now) && isnan(was))) e = INFINITY;
        }
    return e;
}

#endif
