/* gpu_check.h - what the GPU tests of template families share (after gemm_check.h): the
 * backend and device, problems of a kind (mode and output type) and shape, the test data's
 * leading dimensions (16-byte aligned, or odd), configurations spread over a space (or those
 * whose param is or is not its first value), their parallel build, and the run of every
 * instance valid for a shape on one set of inputs per alpha/beta case: the BLAS rules
 * (NaN-poisoned C with beta = 0, NaN A and B with alpha = 0), the padding of C untouched,
 * against a long double host reference with the tuner's per-mode bound; and split-K in the
 * order of K (or stream-K), the same bits twice. */
#ifndef MMT_GPU_CHECK_H
#define MMT_GPU_CHECK_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "check.h"
#include "family.h"
#include "gemm_check.h"
#include "kernel.h"

static const mmt_backend *be;
static mmt_device_info dev;

/* MMTUNE_TEST_TIER=quick: the sampled tier that runs on every change to a template or the
 * launch path (scripts/test-gpu.sh quick): each template, mode, orientation and alignment
 * class with few configurations; unset or `full`: everything the test has. */
static inline int gc_quick(void)
{
    const char *tier = getenv("MMTUNE_TEST_TIER");
    return tier && strcmp(tier, "quick") == 0;
}

static inline int64_t device_cc(void)
{
    int64_t cc = 0;
    mmt_device_get_prop(&dev, "cc_major", 8, &cc);
    return cc;
}

typedef struct shape {
    int64_t m, n, k;
} shape;

typedef struct ab {
    double alpha, beta;
    int nan_c, nan_ab; /* poison C (beta = 0) or A and B (alpha = 0) */
} ab;

static const ab cases[] = {{1.0, 0.0, 1, 0}, {0.75, -1.25, 0, 0}, {0.0, 2.0, 0, 1}, {-1.5, 1.0, 0, 0}};

typedef struct kind {
    mmt_mode mode;
    mmt_dtype out;
} kind;

/* One compiled configuration of the space for one kind and pair of transposes. */
typedef struct instance {
    mmt_config cfg;
    char text[512];
    mmt_module *mod;
    int runs, bad;
} instance;

static inline mmt_problem problem_of(kind kd, int ta, int tb, shape s)
{
    mmt_problem p = {.dtype = mmt_mode_dtype(kd.mode), .out = kd.out, .mode = kd.mode, .layout = MMT_ROW_MAJOR,
                     .trans_a = ta, .trans_b = tb, .m = s.m, .n = s.n, .k = s.k};
    return p;
}

/* Leading dimensions of the test data: aligned (pitches a multiple of 16 bytes, and a
 * little more than dense) or odd (rows 1-, 2- or 4-byte aligned). */
static inline void lds_of(shape s, int ta, int tb, int odd_ld, int64_t *lda, int64_t *ldb)
{
    const int64_t ac = ta ? s.m : s.k, bc = tb ? s.k : s.n;
    *lda = odd_ld ? ac + 3 : (ac + 15) / 16 * 16 + 16;
    *ldb = odd_ld ? bc + 1 : (bc + 15) / 16 * 16 + 16;
}

static inline mmt_space_env env_of(const mmt_problem *p, int odd_ld)
{
    const shape s = {p->m, p->n, p->k};
    const int64_t es = mmt_dtype_size(p->dtype);
    int64_t lda, ldb;
    lds_of(s, p->trans_a, p->trans_b, odd_ld, &lda, &ldb);
    mmt_space_env env = {.problem = p, .device = &dev, .align_a = mmt_align_bytes(0, lda * es),
                         .align_b = mmt_align_bytes(0, ldb * es)};
    return env;
}

/* The most instances one list holds (build() and run_shape() size their arrays by it). */
#define GC_MAX_INSTANCES 20

/* Up to `want` configs searched for problem p on the test data (odd_ld), spread over the
 * space, appended to list (of GC_MAX_INSTANCES); with a param `name`, only those whose
 * value of it is `value` (exactly: 1) or other than `value` (0). */
static inline void pick_where(const mmt_family *fam, const mmt_problem *p, int odd_ld, const char *name,
                              int64_t value, int exactly, int want, instance *list, int *n)
{
    mmt_space_env env = env_of(p, odd_ld);
    mmt_config *all = NULL;
    size_t count = 0, picked = 0;
    mmt_err err;
    CHECK_OK(mmt_space_enumerate(fam->space, &env, &all, &count, &err), &err);
    int idx = -1;
    for (int i = 0; name && i < fam->space->n_params; i++)
        if (strcmp(fam->space->params[i].name, name) == 0) idx = i;
    CHECK(!name || idx >= 0); /* a param the space lacks is the test's bug */
    if (name && idx < 0) {
        free(all);
        return;
    }
    mmt_config *match = malloc(sizeof *match * (count + 1));
    for (size_t i = 0; i < count; i++)
        if (!name || (all[i].v[idx] == value) == exactly) match[picked++] = all[i];
    CHECK(picked > 0);
    for (int i = 0; picked && i < want; i++) {
        CHECK(*n < GC_MAX_INSTANCES); /* a list too short for its picks is the test's bug */
        if (*n >= GC_MAX_INSTANCES) break;
        list[(*n)++].cfg = match[((size_t)i * 2 + 1) * picked / (2 * (size_t)want)];
    }
    free(match);
    free(all);
}

/* pick_where with the first value the space lists for `name`: configs whose value of it is
 * another (other: 1) or that one (0). */
static inline void pick(const mmt_family *fam, const mmt_problem *p, int odd_ld, const char *name, int other, int want,
                        instance *list, int *n)
{
    int64_t first = 0;
    for (int i = 0; name && i < fam->space->n_params; i++)
        if (strcmp(fam->space->params[i].name, name) == 0) first = fam->space->params[i].values[0];
    pick_where(fam, p, odd_ld, name, first, !other, want, list, n);
}

/* Compiles and loads every instance (the compiles in parallel: NVRTC is CPU work). */
static inline void build(const mmt_family *fam, const mmt_problem *p, instance *list, int n)
{
    void *bins[GC_MAX_INSTANCES] = {0};
    size_t sizes[GC_MAX_INSTANCES] = {0};
    mmt_status st[GC_MAX_INSTANCES];
    mmt_err errs[GC_MAX_INSTANCES];
#pragma omp parallel for schedule(dynamic)
    for (int i = 0; i < n; i++) {
        char defines[4096];
        char *log = NULL;
        mmt_space_env env = {.problem = p, .device = &dev};
        st[i] = mmt_kernel_defines(fam->space, &list[i].cfg, &env, defines, sizeof defines, &errs[i]);
        if (st[i] == MMT_OK) st[i] = be->compile(&dev, fam->source, defines, &bins[i], &sizes[i], &log, &errs[i]);
        free(log);
    }
    for (int i = 0; i < n; i++) {
        mmt_config_format(fam->space, &list[i].cfg, list[i].text, sizeof list[i].text);
        if (st[i] == MMT_OK) st[i] = be->load(&dev, bins[i], sizes[i], fam->space->entry, &list[i].mod, &errs[i]);
        if (st[i] != MMT_OK) fprintf(stderr, "build of %s failed: %s\n", list[i].text, errs[i].msg);
        CHECK_EQ_INT(st[i], MMT_OK);
        free(bins[i]);
    }
}

/* Where a result failed: its first element far from the reference (or NaN) and its first
 * changed padding element, with the count of each, so a failure says what went wrong. */
static inline void gc_first_wrong(mmt_dtype ct, int64_t m, int64_t n, const void *got, const void *before,
                                  int64_t ldc, const double *ref)
{
    const size_t cs = (size_t)mmt_dtype_size(ct);
    int64_t bad = 0, pad = 0;
    for (int64_t r = 0; r < m; r++) {
        for (int64_t j = 0; j < n; j++) {
            const double v = gc_get_t(got, ct, 0, ldc, r, j), want = ref[r * n + j];
            if (!(fabs(v - want) <= 1e-2 * (1 + fabs(want))) && bad++ == 0)
                fprintf(stderr, "  first wrong element (%lld, %lld): %g, want %g\n", (long long)r, (long long)j, v, want);
        }
        for (int64_t j = n; j < n + 2; j++)
            if (memcmp((const char *)got + cs * (r * ldc + j), (const char *)before + cs * (r * ldc + j), cs) &&
                pad++ == 0)
                fprintf(stderr, "  first padding written (%lld, %lld): %g\n", (long long)r, (long long)j,
                        gc_get_t(got, ct, 0, ldc, r, j));
    }
    fprintf(stderr, "  %lld of %lld elements wrong, %lld padding elements written\n", (long long)bad,
            (long long)(m * n), (long long)pad);
}

/* Every instance valid for (s, ld padding) on one set of inputs per alpha/beta case. */
static inline void run_shape(const mmt_family *fam, kind kd, int ta, int tb, shape s, int odd_ld, instance *list, int n)
{
    const mmt_dtype abt = mmt_mode_dtype(kd.mode), bt = mmt_mode_b_dtype(kd.mode), ct = kd.out;
    const int64_t ar = ta ? s.k : s.m, ac = ta ? s.m : s.k, br = tb ? s.n : s.k, bc = tb ? s.k : s.n;
    int64_t lda, ldb;
    lds_of(s, ta, tb, odd_ld, &lda, &ldb);
    /* padded rows of C (the padding is checked untouched): 8-element multiples where the
     * operands are aligned (FP8's: 16), so C meets the TMA's 16-byte row pitch too (EPI 2) */
    const int64_t cal = mmt_dtype_size(kd.out) == 1 ? 16 : 8;
    const int64_t ldc = odd_ld ? s.n + 2 : (s.n + 2 + cal - 1) / cal * cal;
    const size_t es = (size_t)mmt_dtype_size(abt), cs = (size_t)mmt_dtype_size(ct);
    const size_t asz = es * ar * lda, bsz = es * br * ldb, csz = cs * s.m * ldc;
    mmt_problem p = problem_of(kd, ta, tb, s);
    mmt_space_env env = env_of(&p, odd_ld);
    int valid[GC_MAX_INSTANCES], any = 0;
    for (int i = 0; i < n; i++) {
        valid[i] = 0;
        if (list[i].mod) mmt_space_check(fam->space, &list[i].cfg, &env, &valid[i], NULL, NULL);
        any |= valid[i];
    }
    if (!any) return;
    mmt_err err;
    void *da = NULL, *db = NULL, *dc = NULL;
    int ok = be->alloc(&dev, asz ? asz : 1, &da, &err) == MMT_OK && be->alloc(&dev, bsz ? bsz : 1, &db, &err) == MMT_OK &&
             be->alloc(&dev, csz, &dc, &err) == MMT_OK;
    CHECK(ok);
    for (size_t ci = 0; ok && ci < sizeof cases / sizeof cases[0]; ci++) {
        const ab c = cases[ci];
        void *a = gc_matrix_t(abt, 0, ar, ac, lda, c.nan_ab), *b = gc_matrix_t(bt, 0, br, bc, ldb, c.nan_ab);
        void *c0 = gc_matrix_t(ct, 0, s.m, s.n, ldc, c.nan_c), *cm = malloc(csz);
        double *ref = gc_ref_alloc(s.m, s.n);
        gc_reference_ab(abt, bt, ct, 0, ta, tb, s.m, s.n, s.k, c.alpha, a, lda, b, ldb, c.beta, c0, ldc, ref);
        const double bound = gc_bound_mode(kd.mode, ct, s.k);
        ok = be->copy(da, a, asz, MMT_H2D, &err) == MMT_OK && be->copy(db, b, bsz, MMT_H2D, &err) == MMT_OK;
        for (int i = 0; ok && i < n; i++) {
            if (!valid[i]) continue;
            mmt_geometry g = {0};
            mmt_gemm_params gp = {.m = s.m, .n = s.n, .k = s.k, .lda = lda, .ldb = ldb, .ldc = ldc, .trans_a = ta,
                                  .trans_b = tb, .alpha = c.alpha, .beta = c.beta, .a = da, .b = db, .c = dc};
            double e = INFINITY;
            void *ws = NULL;
            if (be->copy(dc, c0, csz, MMT_H2D, &err) == MMT_OK &&
                mmt_space_geometry(fam->space, &list[i].cfg, &env, &g, &err) == MMT_OK &&
                (g.workspace == 0 || be->alloc(&dev, (size_t)g.workspace, &ws, &err) == MMT_OK) &&
                (gp.workspace = ws, gp.workspace_size = g.workspace,
                 be->launch(list[i].mod, &gp, &g, NULL, &err) == MMT_OK) &&
                be->sync(NULL, &err) == MMT_OK && be->copy(cm, dc, csz, MMT_D2H, &err) == MMT_OK) {
                e = gc_rel_error_t(ct, 0, s.m, s.n, cm, ldc, ref);
                for (int64_t r = 0; r < s.m; r++) /* the padding past each row of C is untouched */
                        if (memcmp((char *)cm + cs * (r * ldc + s.n), (char *)c0 + cs * (r * ldc + s.n), cs * 2))
                            e = INFINITY;
            } else {
                fprintf(stderr, "launch failed: %s\n", err.msg);
                ok = 0; /* a fault poisons the context: stop here */
            }
            be->free(ws);
            list[i].runs++;
            if (!(e <= bound)) {
                char name[128];
                mmt_problem_format(&p, name, sizeof name);
                fprintf(stderr, "%s lda=%lld ldb=%lld alpha=%g beta=%g %s: rel error %g (bound %g)\n", name,
                        (long long)lda, (long long)ldb, c.alpha, c.beta, list[i].text, e, bound);
                gc_first_wrong(ct, s.m, s.n, cm, c0, ldc, ref);
                list[i].bad++;
            }
        }
        free(a), free(b), free(c0), free(cm), free(ref);
    }
    be->free(da), be->free(db), be->free(dc);
}

/* Up to two configurations of a family for a kind and a shape (few blocks, a long K) whose
 * param `knob` is other than its first value (SERIAL = 1: split-K in the order of K; STREAMK),
 * each launched twice on the same inputs (C restored in between, beta != 0 so the beta of
 * split-K is in play): both results within the bound, and equal bit for bit. Where the family
 * serves nothing of the kind here, nothing runs. */
static inline void check_same_bits(const mmt_family *fam, kind kd, shape s, const char *knob)
{
    mmt_problem p = problem_of(kd, 0, 0, s);
    mmt_space_env env = env_of(&p, 0);
    mmt_config *all = NULL;
    size_t count = 0;
    const int served = (fam->space->modes & (1u << kd.mode)) &&
                       mmt_space_enumerate(fam->space, &env, &all, &count, NULL) == MMT_OK && count > 0;
    free(all);
    if (!served) return; /* not on this device, or not this kind */
    instance list[GC_MAX_INSTANCES];
    memset(list, 0, sizeof list);
    int n = 0;
    pick(fam, &p, 0, knob, 1, 2, list, &n);
    build(fam, &p, list, n);
    const mmt_dtype abt = mmt_mode_dtype(kd.mode), ct = kd.out;
    int64_t lda, ldb;
    lds_of(s, 0, 0, 0, &lda, &ldb);
    const int64_t ldc = s.n + 2;
    const size_t es = (size_t)mmt_dtype_size(abt), asz = es * s.m * lda, bsz = es * s.k * ldb,
                 csz = (size_t)mmt_dtype_size(ct) * s.m * ldc;
    void *a = gc_matrix_t(abt, 0, s.m, s.k, lda, 0), *b = gc_matrix_t(mmt_mode_b_dtype(kd.mode), 0, s.k, s.n, ldb, 0),
         *c0 = gc_matrix_t(ct, 0, s.m, s.n, ldc, 0), *out[2] = {malloc(csz), malloc(csz)};
    const double alpha = 0.75, beta = -1.25;
    double *ref = gc_ref_alloc(s.m, s.n);
    gc_reference_ab(abt, mmt_mode_b_dtype(kd.mode), ct, 0, 0, 0, s.m, s.n, s.k, alpha, a, lda, b, ldb, beta, c0, ldc,
                    ref);
    mmt_err err;
    void *da = NULL, *db = NULL, *dc = NULL;
    int ok = be->alloc(&dev, asz, &da, &err) == MMT_OK && be->alloc(&dev, bsz, &db, &err) == MMT_OK &&
             be->alloc(&dev, csz, &dc, &err) == MMT_OK && be->copy(da, a, asz, MMT_H2D, &err) == MMT_OK &&
             be->copy(db, b, bsz, MMT_H2D, &err) == MMT_OK;
    CHECK(ok);
    char name[64];
    mmt_problem_format(&p, name, sizeof name);
    for (int i = 0; ok && i < n; i++) {
        mmt_geometry g;
        void *ws = NULL;
        ok = mmt_space_geometry(fam->space, &list[i].cfg, &env, &g, &err) == MMT_OK &&
             (g.workspace == 0 || be->alloc(&dev, (size_t)g.workspace, &ws, &err) == MMT_OK);
        double e[2] = {INFINITY, INFINITY};
        for (int run = 0; ok && run < 2; run++) {
            mmt_gemm_params gp = {.m = s.m, .n = s.n, .k = s.k, .lda = lda, .ldb = ldb, .ldc = ldc, .alpha = alpha,
                                  .beta = beta, .a = da, .b = db, .c = dc, .workspace = ws,
                                  .workspace_size = g.workspace};
            ok = be->copy(dc, c0, csz, MMT_H2D, &err) == MMT_OK && be->launch(list[i].mod, &gp, &g, NULL, &err) == MMT_OK &&
                 be->sync(NULL, &err) == MMT_OK && be->copy(out[run], dc, csz, MMT_D2H, &err) == MMT_OK;
            if (ok) e[run] = gc_rel_error_t(ct, 0, s.m, s.n, out[run], ldc, ref);
        }
        if (!ok) fprintf(stderr, "%s %s: %s\n", name, list[i].text, err.msg);
        be->free(ws);
        const int same = ok && memcmp(out[0], out[1], csz) == 0;
        printf("%-22s %-150s %s: rel error %.3g, twice the same bits: %s\n", name, list[i].text, knob, e[0],
               same ? "yes" : "no");
        CHECK(e[0] <= gc_bound_mode(kd.mode, ct, s.k) && e[1] == e[0]);
        CHECK(same);
        be->unload(list[i].mod);
    }
    be->free(da), be->free(db), be->free(dc);
    free(a), free(b), free(c0), free(out[0]), free(out[1]), free(ref);
}

/* Each instance ran somewhere and never failed; one line each; the modules unloaded. */
static inline void report(const char *name, instance *list, int n)
{
    for (int i = 0; i < n; i++) {
        CHECK(list[i].runs > 0);
        CHECK_EQ_INT(list[i].bad, 0);
        printf("%-24s %-150s %3d runs ok\n", name, list[i].text, list[i].runs - list[i].bad);
        be->unload(list[i].mod);
    }
}

/* The CUDA backend and GPU 0, or the reason to skip (CTest's 77). */
static inline int gpu_open(void)
{
    mmt_err err;
    be = mmt_backend_cuda(&err);
    if (!be) {
        printf("skipped: %s\n", err.msg);
        return 77;
    }
    if (be->device_count() == 0) {
        printf("skipped: no GPU\n");
        return 77;
    }
    CHECK_OK(be->probe(0, &dev, &err), &err);
    printf("%s %s | %s\n", dev.name, dev.arch, dev.fingerprint);
    return 0;
}

#endif
