/* test_gpu_gemm.c - the CUDA templates through the real backend on GPU 0: the SIMT
 * space's default and a sample of its configs (split-K atomic and in the order of K, EVEN
 * ones, stream-K's persistent grid among them), f32 and f64, odd shapes, every transpose,
 * padded leading dimensions and
 * (an instance built for each: the space fixes the orientation per instance), KC, the BLAS
 * alpha/beta rules (NaN-poisoned C with beta = 0, NaN A and B with alpha = 0), against a long double
 * host reference; the reference kernel gemm_ref.cu for every input type (f32, f64, bf16,
 * f16) and the cuBLAS wrapper for every mode (bf16 and f16 with f32 and 16-bit C, tf32,
 * f32x3's SGEMM baseline) likewise. MMTUNE_TEST_KNOB=NAME runs the samples of that knob
 * alone (STREAMK, say: the whole run takes over 500 s on an H100); MMTUNE_TEST_SHARD=I/N
 * a share of the configurations; MMTUNE_TEST_TIER=quick the default and one fp32 sample of
 * a few knobs. Exits 77 (skipped) without a GPU. */
#include <pthread.h>
#include <time.h>

#include "gpu_check.h"
#include "resource.h"

#include "cublas.h" /* libmmtuned's wrapper (the vendor family) */

static const shape shapes[] = {{1, 1, 1},    {7, 5, 3},       {63, 65, 17},  {65, 63, 129}, {1, 300, 7},
                               {300, 1, 70}, {129, 257, 300}, {17, 33, 0},   {64, 48, 2100}};
static const shape even_shape = {256, 256, 512};

/* Runs one GEMM: fn launches it on device copies; returns the relative error (INFINITY if
 * the padding of C changed or a call failed). A and B are of type abt, C of type ct. */
typedef mmt_status (*gemm_fn)(void *user, const mmt_gemm_params *p, mmt_err *err);

static double run_case_t(gemm_fn fn, void *user, mmt_dtype abt, mmt_dtype ct, shape s, int ta, int tb, ab c)
{
    int64_t ar = ta ? s.k : s.m, ac = ta ? s.m : s.k, br = tb ? s.n : s.k, bc = tb ? s.k : s.n;
    int64_t lda = ac + 3, ldb = bc + 1, ldc = s.n + 2; /* padded: leading dims are honoured */
    size_t es = (size_t)mmt_dtype_size(abt), esc = (size_t)mmt_dtype_size(ct);
    size_t asz = es * ar * lda, bsz = es * br * ldb, csz = esc * s.m * ldc;
    void *a = gc_matrix_t(abt, 0, ar, ac, lda, c.nan_ab), *b = gc_matrix_t(abt, 0, br, bc, ldb, c.nan_ab);
    void *cm = gc_matrix_t(ct, 0, s.m, s.n, ldc, c.nan_c);
    void *c0 = malloc(csz ? csz : 1);
    memcpy(c0, cm, csz);
    double *ref = gc_ref_alloc(s.m, s.n);
    gc_reference_t(abt, ct, 0, ta, tb, s.m, s.n, s.k, c.alpha, a, lda, b, ldb, c.beta, c0, ldc, ref);

    double e = INFINITY;
    mmt_err err;
    void *da = NULL, *db = NULL, *dc = NULL;
    if (be->alloc(&dev, asz, &da, &err) == MMT_OK && be->alloc(&dev, bsz, &db, &err) == MMT_OK &&
        be->alloc(&dev, csz, &dc, &err) == MMT_OK && be->copy(da, a, asz, MMT_H2D, &err) == MMT_OK &&
        be->copy(db, b, bsz, MMT_H2D, &err) == MMT_OK && be->copy(dc, cm, csz, MMT_H2D, &err) == MMT_OK) {
        mmt_gemm_params p = {.m = s.m, .n = s.n, .k = s.k, .lda = lda, .ldb = ldb, .ldc = ldc, .trans_a = ta,
                             .trans_b = tb, .alpha = c.alpha, .beta = c.beta, .a = da, .b = db, .c = dc};
        if (fn(user, &p, &err) == MMT_OK && be->sync(NULL, &err) == MMT_OK &&
            be->copy(cm, dc, csz, MMT_D2H, &err) == MMT_OK) {
            e = gc_rel_error_t(ct, 0, s.m, s.n, cm, ldc, ref);
            for (int64_t i = 0; i < s.m; i++) /* the padding past each row of C is untouched */
                for (int64_t j = s.n; j < ldc; j++) {
                    double x = gc_get_t(cm, ct, 0, ldc, i, j), y = gc_get_t(c0, ct, 0, ldc, i, j);
                    if (x != y && !(isnan(x) && isnan(y))) e = INFINITY;
                }
        } else {
            fprintf(stderr, "launch failed: %s\n", err.msg);
        }
    } else {
        fprintf(stderr, "device memory: %s\n", err.msg);
    }
    be->free(da), be->free(db), be->free(dc);
    free(a), free(b), free(cm), free(c0), free(ref);
    return e;
}

static double run_case(gemm_fn fn, void *user, int f64, shape s, int ta, int tb, ab c)
{
    return run_case_t(fn, user, gc_type(f64), gc_type(f64), s, ta, tb, c);
}

/* ---- template instances ------------------------------------------------------------------ */

/* mod[1] is built for 16-byte aligned operands (VEC's copies compiled in where the config
 * has them), mod[0] for operands aligned only to their element: each call runs the one its
 * operands' alignment asks for, as the library does (the padded leading dimensions below
 * are mostly unaligned). */
typedef struct simt_instance {
    const mmt_family *fam;
    const mmt_config *cfg;
    mmt_module *mod[2];
    int f64;
} simt_instance;

static mmt_status launch_instance(void *user, const mmt_gemm_params *p, mmt_err *err)
{
    simt_instance *in = user;
    mmt_problem prob = {.dtype = in->f64 ? MMT_F64 : MMT_F32, .layout = MMT_ROW_MAJOR, .trans_a = p->trans_a,
                        .trans_b = p->trans_b, .m = p->m, .n = p->n, .k = p->k};
    mmt_space_env env = {.problem = &prob, .device = &dev};
    mmt_geometry g;
    FORWARD_IF_ERROR(mmt_space_geometry(in->fam->space, in->cfg, &env, &g, err));
    /* the workspace the space asks for (split-K in K order keeps its flags and sums there) */
    void *ws = NULL;
    if (g.workspace > 0) FORWARD_IF_ERROR(be->alloc(&dev, (size_t)g.workspace, &ws, err));
    mmt_gemm_params q = *p;
    q.workspace = ws, q.workspace_size = ws ? g.workspace : 0;
    const int64_t es = in->f64 ? 8 : 4;
    const int aligned = mmt_align_bytes((uintptr_t)p->a, p->lda * es) >= 16 && mmt_align_bytes((uintptr_t)p->b, p->ldb * es) >= 16;
    mmt_status st = be->launch(in->mod[aligned], &q, &g, NULL, err);
    if (st == MMT_OK && ws) st = be->sync(NULL, err); /* the kernel is done with it before it goes */
    be->free(ws);
    return st;
}

static int param_index(const mmt_space *s, const char *name)
{
    for (int i = 0; i < s->n_params; i++)
        if (strcmp(s->params[i].name, name) == 0) return i;
    return -1;
}

/* One build of a config for one orientation and alignment: the space fixes both per instance
 * (OP_A, OP_B, VEC_A, VEC_B), so each of the eight is its own kernel; they compile on threads
 * of their own. */
typedef struct build_job {
    const mmt_family *fam;
    const mmt_config *cfg;
    int f64, ta, tb, aligned;
    void *bin;
    size_t size;
    mmt_status st;
    mmt_err err;
} build_job;

static void *build_one(void *arg)
{
    build_job *j = arg;
    char defines[4096];
    char *log = NULL;
    mmt_problem p0 = {.dtype = j->f64 ? MMT_F64 : MMT_F32, .layout = MMT_ROW_MAJOR, .trans_a = j->ta,
                      .trans_b = j->tb, .m = 64, .n = 64, .k = 64};
    const int es = j->f64 ? 8 : 4;
    mmt_space_env env0 = {.problem = &p0, .device = &dev, .align_a = j->aligned ? 16 : es, .align_b = j->aligned ? 16 : es};
    j->st = mmt_space_defines(j->fam->space, j->cfg, &env0, defines, sizeof defines, &j->err);
    if (j->st == MMT_OK) {
        size_t n = strlen(defines);
        snprintf(defines + n, sizeof defines - n, " MMT_DTYPE_F64=%d", j->f64);
        j->st = be->compile(&dev, j->fam->source, defines, &j->bin, &j->size, &log, &j->err);
    }
    free(log);
    return NULL;
}

static double seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* MMTUNE_TEST_SHARD=I/N: this process tests the I-th of every N configurations (and the
 * reference kernel and cuBLAS only where I is 0), so N processes share the full tier. */
static int in_shard(void)
{
    static long seen = 0;
    const char *shard = getenv("MMTUNE_TEST_SHARD");
    int i = 0, n = 1;
    if (shard && (sscanf(shard, "%d/%d", &i, &n) != 2 || n < 1 || i < 0 || i >= n)) i = 0, n = 1;
    return seen++ % n == i;
}

static void test_config(const mmt_family *fam, const mmt_config *cfg, int f64, shape extra)
{
    if (!in_shard()) return;
    char text[512];
    mmt_config_format(fam->space, cfg, text, sizeof text);
    const double t0 = seconds();
    build_job jobs[8]; /* jobs[t + 4 * aligned] */
    pthread_t th[8];
    int started[8];
    for (int t = 0; t < 8; t++) {
        jobs[t] = (build_job){.fam = fam, .cfg = cfg, .f64 = f64, .ta = t & 1, .tb = (t >> 1) & 1, .aligned = t >> 2};
        started[t] = pthread_create(&th[t], NULL, build_one, &jobs[t]) == 0;
        if (!started[t]) build_one(&jobs[t]);
    }
    for (int t = 0; t < 8; t++)
        if (started[t]) pthread_join(th[t], NULL);
    const double t1 = seconds();
    int even_i = param_index(fam->space, "EVEN");
    int even = even_i >= 0 && cfg->v[even_i];
    int bad = 0, runs = 0;
    size_t nshapes = sizeof shapes / sizeof shapes[0];
    for (int t = 0; t < 4; t++) {
        build_job *j = &jobs[t];
        simt_instance in = {.fam = fam, .cfg = cfg, .f64 = f64};
        int loaded = 1;
        for (int al = 0; al < 2; al++) {
            build_job *b = &jobs[t + 4 * al];
            if (b->st == MMT_OK) b->st = be->load(&dev, b->bin, b->size, fam->space->entry, &in.mod[al], &b->err);
            free(b->bin);
            if (b->st != MMT_OK) {
                fprintf(stderr, "build of %s (ta=%d tb=%d aligned=%d) failed: %s\n", text, b->ta, b->tb, al,
                        b->err.msg);
                CHECK_EQ_INT(b->st, MMT_OK);
                loaded = 0;
            }
        }
        if (!loaded) {
            for (int al = 0; al < 2; al++)
                if (in.mod[al]) be->unload(in.mod[al]);
            continue;
        }
        for (size_t si = 0; si <= nshapes; si++) {
            shape s = si < nshapes ? shapes[si] : even_shape;
            if (even) { /* the EVEN path only where the space allows it */
                mmt_problem p = {.dtype = f64 ? MMT_F64 : MMT_F32, .layout = MMT_ROW_MAJOR, .m = s.m, .n = s.n, .k = s.k};
                mmt_space_env env = {.problem = &p, .device = &dev};
                int valid = 0;
                mmt_err err;
                if (mmt_space_check(fam->space, cfg, &env, &valid, NULL, &err) != MMT_OK || !valid) continue;
            }
            for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
                double e = run_case(launch_instance, &in, f64, s, j->ta, j->tb, cases[ci]);
                runs++;
                if (!(e <= gc_bound(f64, s.k))) {
                    fprintf(stderr, "%s %s: %lldx%lldx%lld ta=%d tb=%d alpha=%g beta=%g: rel error %g\n",
                            f64 ? "f64" : "f32", text, (long long)s.m, (long long)s.n, (long long)s.k, j->ta, j->tb,
                            cases[ci].alpha, cases[ci].beta, e);
                    bad++;
                }
            }
        }
        if (extra.m && t == 0) /* the problem the config was sampled for (valid there even if EVEN) */
            for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
                double e = run_case(launch_instance, &in, f64, extra, 0, 0, cases[ci]);
                runs++;
                if (!(e <= gc_bound(f64, extra.k))) {
                    fprintf(stderr, "%s %s: %lldx%lldx%lld: rel error %g\n", f64 ? "f64" : "f32", text,
                            (long long)extra.m, (long long)extra.n, (long long)extra.k, e);
                    bad++;
                }
            }
        be->unload(in.mod[0]);
        be->unload(in.mod[1]);
    }
    CHECK(runs > 0);
    CHECK_EQ_INT(bad, 0);
    /* where the test's time goes: the eight builds, then the cases (their host references) */
    printf("%s %-100s %d cases ok (build %.1f s, run %.1f s)\n", f64 ? "f64" : "f32", text, runs - bad, t1 - t0,
           seconds() - t1);
}

/* Up to `want` valid configs for problem m x n x k whose param `name` is != 0 (name NULL:
 * any) and whose param `also` (unless NULL) is also_value, spread over the space. */
static void sample_and(const mmt_family *fam, int f64, int64_t m, int64_t n, int64_t k, const char *name,
                       const char *also, int64_t also_value, int want)
{
    const char *only = getenv("MMTUNE_TEST_KNOB");
    if (only && (!name || strcmp(name, only) != 0)) return;
    if (gc_quick()) { /* one fp32 configuration of each of these knobs */
        static const char quick_knobs[] = " SPLITK SERIAL EVEN KC PIPE STREAMK ";
        static char done[128] = " ";
        char word[40];
        snprintf(word, sizeof word, " %s ", name ? name : "");
        if (f64 || !name || !strstr(quick_knobs, word) || strstr(done, word)) return;
        snprintf(done + strlen(done), sizeof done - strlen(done), "%s ", name);
        want = 1;
    }
    mmt_problem p = {.dtype = f64 ? MMT_F64 : MMT_F32, .layout = MMT_ROW_MAJOR, .m = m, .n = n, .k = k};
    mmt_space_env env = {.problem = &p, .device = &dev};
    mmt_config *all = NULL;
    size_t count = 0, picked = 0;
    mmt_err err;
    CHECK_OK(mmt_space_enumerate(fam->space, &env, &all, &count, &err), &err);
    int idx = name ? param_index(fam->space, name) : -1, also_idx = also ? param_index(fam->space, also) : -1;
    CHECK(!also || also_idx >= 0);
    mmt_config *match = malloc(sizeof *match * (count + 1));
    for (size_t i = 0; i < count; i++)
        if ((idx < 0 || all[i].v[idx] > (strcmp(name, "SPLITK") == 0 ? 1 : 0)) &&
            (also_idx < 0 || all[i].v[also_idx] == also_value))
            match[picked++] = all[i];
    CHECK(picked > 0);
    for (int i = 0; picked && i < want; i++)
        test_config(fam, &match[((size_t)i * 2 + 1) * picked / (2 * (size_t)want)], f64, (shape){m, n, k});
    free(match);
    free(all);
}

static void sample(const mmt_family *fam, int f64, int64_t m, int64_t n, int64_t k, const char *name, int want)
{
    sample_and(fam, f64, m, n, k, name, NULL, 0, want);
}

/* ---- the reference kernel ----------------------------------------------------------------- */

static mmt_status launch_ref(void *user, const mmt_gemm_params *p, mmt_err *err)
{
    mmt_module *mod = user;
    mmt_geometry g = {.grid = {(p->n + 15) / 16, (p->m + 15) / 16, 1}, .block = {16, 16, 1}, .smem = 0};
    return be->launch(mod, p, &g, NULL, err);
}

/* One build of the reference: its definitions and the input type they select. */
typedef struct ref_variant {
    const char *defines;
    mmt_dtype ab;
} ref_variant;

static const ref_variant ref_variants[] = {
    {"MMT_AB=0", MMT_F32},         {"MMT_AB=1", MMT_F64}, {"MMT_AB=2", MMT_BF16}, {"MMT_AB=3", MMT_F16},
    {"MMT_DTYPE_F64=0", MMT_F32}, {"MMT_DTYPE_F64=1", MMT_F64}, /* the older spelling */
};

static void test_ref(const ref_variant *v)
{
    char *src = NULL;
    size_t srcsize;
    void *bin = NULL;
    size_t size = 0;
    char *log = NULL;
    mmt_module *mod = NULL;
    mmt_err err;
    const char *name = mmt_dtype_name(v->ab);
    CHECK_OK(mmt_resource_read("templates/cuda/gemm_ref.cu", &src, &srcsize, &err), &err);
    if (!src) return;
    CHECK_OK(be->compile(&dev, src, v->defines, &bin, &size, &log, &err), &err);
    free(src);
    free(log);
    if (!bin) return;
    CHECK_OK(be->load(&dev, bin, size, "mmt_gemm_ref64", &mod, &err), &err);
    free(bin);
    if (!mod) return;
    int bad = 0;
    for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++)
        for (int t = 0; t < 4; t++) {
            shape s = shapes[si];
            if (s.m * s.n == 0) continue;
            int64_t ar = t & 1 ? s.k : s.m, ac = t & 1 ? s.m : s.k, br = t >> 1 ? s.n : s.k,
                    bc = t >> 1 ? s.k : s.n;
            int64_t lda = ac + 1, ldb = bc + 2;
            size_t es = (size_t)mmt_dtype_size(v->ab), asz = es * ar * lda, bsz = es * br * ldb,
                   wsz = 8 * s.m * s.n;
            void *a = gc_matrix_t(v->ab, 0, ar, ac, lda, 0), *b = gc_matrix_t(v->ab, 0, br, bc, ldb, 0);
            double *ref = gc_ref_alloc(s.m, s.n), *out = malloc(wsz);
            gc_reference_t(v->ab, MMT_F64, 0, t & 1, t >> 1, s.m, s.n, s.k, 1.0, a, lda, b, ldb, 0.0, NULL, 1, ref);
            void *da = NULL, *db = NULL, *dw = NULL;
            double e = INFINITY;
            if (be->alloc(&dev, asz, &da, &err) == MMT_OK && be->alloc(&dev, bsz, &db, &err) == MMT_OK &&
                be->alloc(&dev, wsz, &dw, &err) == MMT_OK && be->copy(da, a, asz, MMT_H2D, &err) == MMT_OK &&
                be->copy(db, b, bsz, MMT_H2D, &err) == MMT_OK) {
                mmt_gemm_params p = {.m = s.m, .n = s.n, .k = s.k, .lda = lda, .ldb = ldb, .ldc = s.n,
                                     .trans_a = t & 1, .trans_b = t >> 1, .alpha = 1, .beta = 0, .a = da, .b = db,
                                     .workspace = dw, .workspace_size = (int64_t)wsz};
                if (launch_ref(mod, &p, &err) == MMT_OK && be->sync(NULL, &err) == MMT_OK &&
                    be->copy(out, dw, wsz, MMT_D2H, &err) == MMT_OK)
                    e = gc_rel_error_t(MMT_F64, 0, s.m, s.n, out, s.n, ref);
            }
            if (!(e <= 1e-15)) {
                fprintf(stderr, "ref %s (%s) %lldx%lldx%lld t=%d: rel error %g (%s)\n", name, v->defines,
                        (long long)s.m, (long long)s.n, (long long)s.k, t, e, err.msg);
                bad++;
            }
            be->free(da), be->free(db), be->free(dw);
            free(a), free(b), free(ref), free(out);
        }
    CHECK_EQ_INT(bad, 0);
    printf("ref %s (%s) ok\n", name, v->defines);
    be->unload(mod);
}

/* ---- cuBLAS --------------------------------------------------------------------------------- */

typedef struct cublas_call {
    mmt_cublas *cb;
    mmt_mode mode;
    mmt_dtype out;
} cublas_call;

static mmt_status launch_cublas(void *user, const mmt_gemm_params *p, mmt_err *err)
{
    cublas_call *c = user;
    return mmt_cublas_gemm(c->cb, c->mode, c->out, p, NULL, err);
}

/* A mode cuBLAS is checked in: its input and output types. */
typedef struct cublas_mode {
    mmt_mode mode;
    mmt_dtype out;
} cublas_mode;

static const cublas_mode cublas_modes[] = {
    {MMT_MODE_F32, MMT_F32},   {MMT_MODE_F64, MMT_F64},   {MMT_MODE_BF16, MMT_F32}, {MMT_MODE_BF16, MMT_BF16},
    {MMT_MODE_F16, MMT_F32},   {MMT_MODE_F16, MMT_F16},   {MMT_MODE_TF32, MMT_F32}, {MMT_MODE_F32X3, MMT_F32},
};

/* cublasGemmEx (bf16, f16, tf32) is held to the documented beta == 0 rule (C is not read)
 * but not to BLAS's alpha == 0 one: A and B stay finite there. */
static const ab gemm_ex_cases[] = {{1.0, 0.0, 1, 0}, {0.75, -1.25, 0, 0}, {0.0, 2.0, 0, 0}, {-1.5, 1.0, 0, 0}};

static void test_cublas(void)
{
    mmt_err err;
    mmt_cublas *cb = NULL;
    mmt_status st = mmt_cublas_open(0, &cb, &err);
    if (st == MMT_NOT_FOUND) {
        printf("cuBLAS not installed: %s\n", err.msg);
        return;
    }
    CHECK_OK(st, &err);
    if (!cb) return;
    printf("%s\n", mmt_cublas_name(cb));
    CHECK(strncmp(mmt_cublas_name(cb), "cuBLAS ", 7) == 0);
    for (size_t mi = 0; mi < sizeof cublas_modes / sizeof cublas_modes[0]; mi++) {
        const cublas_mode *cm = &cublas_modes[mi];
        cublas_call call = {cb, cm->mode, cm->out};
        mmt_dtype in = mmt_mode_dtype(cm->mode);
        int ex = cm->mode == MMT_MODE_BF16 || cm->mode == MMT_MODE_F16 || cm->mode == MMT_MODE_TF32;
        const ab *cs = ex ? gemm_ex_cases : cases;
        size_t n_cs = ex ? sizeof gemm_ex_cases / sizeof gemm_ex_cases[0] : sizeof cases / sizeof cases[0];
        int bad = 0;
        char name[32];
        snprintf(name, sizeof name, "%s->%s", mmt_mode_name(cm->mode), mmt_dtype_name(cm->out));
        for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++)
            for (int t = 0; t < 4; t++)
                for (size_t ci = 0; ci < n_cs; ci++) {
                    double e = run_case_t(launch_cublas, &call, in, cm->out, shapes[si], t & 1, t >> 1, cs[ci]);
                    if (!(e <= gc_bound_mode(cm->mode, cm->out, shapes[si].k))) {
                        fprintf(stderr, "cuBLAS %s %lldx%lldx%lld t=%d case %zu: rel error %g (bound %g)\n", name,
                                (long long)shapes[si].m, (long long)shapes[si].n, (long long)shapes[si].k, t, ci, e,
                                gc_bound_mode(cm->mode, cm->out, shapes[si].k));
                        bad++;
                    }
                }
        CHECK_EQ_INT(bad, 0);
        printf("cuBLAS %s ok\n", name);
    }
    /* a combination no GEMM has is refused before anything runs */
    mmt_gemm_params p = {.m = 1, .n = 1, .k = 1, .lda = 1, .ldb = 1, .ldc = 1};
    CHECK_EQ_INT(mmt_cublas_gemm(cb, MMT_MODE_BF16, MMT_F16, &p, NULL, &err), MMT_INVALID_ARGUMENT);
    mmt_cublas_close(cb);
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0); /* whole lines as they come: a timeout keeps what ran */
    if (gpu_open()) return 77;
    mmt_err err;

    const char *shard = getenv("MMTUNE_TEST_SHARD");
    const int all = !getenv("MMTUNE_TEST_KNOB") && (!shard || strncmp(shard, "0/", 2) == 0);
    for (size_t i = 0; all && i < sizeof ref_variants / sizeof ref_variants[0]; i++) test_ref(&ref_variants[i]);
    if (all) test_cublas();

    mmt_family *fam = NULL;
    CHECK_OK(mmt_family_load_file(MMT_SOURCE_DIR "/search_spaces/cuda_gemm_simt.yaml", &fam, &err), &err);
    if (!fam) return check_result();
    for (int f64 = 0; f64 < 2; f64++) {
        mmt_config def;
        mmt_space_default(fam->space, &def);
        if (all) test_config(fam, &def, f64, (shape){1000, 1001, 999});
        sample(fam, f64, 512, 512, 512, NULL, f64 ? 2 : 4);
        sample(fam, f64, 128, 128, 8192, "SPLITK", 2);
        sample(fam, f64, 128, 128, 8192, "SERIAL", 1); /* split-K in the order of K */
        sample(fam, f64, even_shape.m, even_shape.n, even_shape.k, "EVEN", 2);
        sample(fam, f64, 1000, 1001, 999, "ASYNC", f64 ? 2 : 4); /* cp.async ring: odd shapes, edges */
        sample(fam, f64, 512, 512, 512, "REGCAP", f64 ? 1 : 2);
        sample(fam, f64, 1000, 1001, 999, "KC", f64 ? 2 : 4); /* k-contiguous operands kept so */
        /* fragments double-buffered across K tiles: register-staged and cp.async, edges */
        sample_and(fam, f64, 1000, 1001, 999, "PIPE", "ASYNC", 0, 1);
        sample_and(fam, f64, 1000, 1001, 999, "PIPE", "ASYNC", 1, f64 ? 1 : 2);
        sample_and(fam, f64, even_shape.m, even_shape.n, even_shape.k, "PIPE", "EVEN", 1, !f64);
        /* stream-K: whole tiles in waves and the rest shared out, a tile in two or three
         * pieces (a short K); few tiles, each in dozens of pieces (a long K); and on every
         * small shape of the list, where some blocks have no work */
        sample(fam, f64, 3000, 2900, 40, "STREAMK", f64 ? 1 : 2);
        sample(fam, f64, 300, 260, 4100, "STREAMK", 1);
        if (!f64) { /* 16 rows or columns a thread: 128 accumulators */
            sample_and(fam, f64, 1000, 1001, 999, "ASYNC", "TM", 16, 1);
            sample_and(fam, f64, 1000, 1001, 999, "ASYNC", "TN", 16, 1);
        }
    }
    mmt_family_free(fam);
    return check_result();
}
