/* strassen.c - Strassen-Winograd levels around a base kernel (see strassen.h). One walk of
 * the schedule serves both jobs: making a plan (it records the base calls' shapes and the
 * temporaries' high-water mark, running nothing) and running it (it launches, and finds
 * each base call's geometry in the plan). Addresses are integers in the walk, so making a
 * plan computes offsets from 0 without pointer arithmetic on nothing. */
#include "strassen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel.h"
#include "resource.h"

#define TEMP_ALIGN 256 /* every temporary starts on its own 256-byte boundary */
#define ADD_BLOCK 256  /* additions on GPUs: a block covers 256 elements of a row */
#define ADD_ROWS 65535 /* ... and the grid's rows stride over the matrix's */

typedef uintptr_t addr;

typedef struct walk {
    int making;                 /* 1: record into `making_plan`; 0: run `plan` */
    mmt_strassen_plan *making_plan;
    const mmt_strassen_plan *plan;
    const mmt_backend *be;      /* running: */
    mmt_module *base;
    const mmt_strassen_adds *adds;
    void *stream;
    addr ws;                    /* the workspace */
    int ta, tb;
    int64_t es, unit;
    int64_t high;               /* making: the temporaries' high-water mark in bytes */
    mmt_err *err;
} walk;

static int64_t align_up(int64_t bytes) { return (bytes + TEMP_ALIGN - 1) / TEMP_ALIGN * TEMP_ALIGN; }

/* Element (r, c) of op(X) for X stored row-major with leading dimension ld. */
static addr at(const walk *w, addr x, int trans, int64_t ld, int64_t r, int64_t c)
{
    return x + (addr)(w->es * (trans ? c * ld + r : r * ld + c));
}

static mmt_status base_call(walk *w, int64_t m, int64_t n, int64_t k, double alpha, addr a, int64_t lda, addr b,
                            int64_t ldb, double beta, addr c, int64_t ldc)
{
    const mmt_strassen_plan *pl = w->making ? w->making_plan : w->plan;
    int i = 0;
    while (i < pl->n_shapes && !(pl->shape[i].m == m && pl->shape[i].n == n && pl->shape[i].k == k)) i++;
    if (w->making) {
        if (i < pl->n_shapes) return MMT_OK;
        RETURN_ERROR_IF(i == MMT_STRASSEN_MAX_SHAPES, w->err, MMT_INTERNAL,
                        "strassen: more than %d shapes of base calls", MMT_STRASSEN_MAX_SHAPES);
        w->making_plan->shape[w->making_plan->n_shapes++] = (mmt_strassen_shape){.m = m, .n = n, .k = k};
        return MMT_OK;
    }
    RETURN_ERROR_IF(i == pl->n_shapes, w->err, MMT_INTERNAL, "strassen: the plan has no base call of %lldx%lldx%lld",
                    (long long)m, (long long)n, (long long)k);
    const int64_t base_ws = align_up(pl->temp_bytes);
    mmt_gemm_params p = {.m = m, .n = n, .k = k, .lda = lda, .ldb = ldb, .ldc = ldc, .trans_a = w->ta,
                         .trans_b = w->tb, .alpha = alpha, .beta = beta, .a = (const void *)a, .b = (const void *)b,
                         .c = (void *)c, .workspace = (void *)(w->ws + (addr)base_ws),
                         .workspace_size = pl->workspace - base_ws};
    return w->be->launch(w->base, &p, &pl->shape[i].g, w->stream, w->err);
}

/* One pass of additions over a rows x cols region (the kernels' geometry on GPUs). */
static mmt_status add_pass(walk *w, mmt_module *mod, int64_t rows, int64_t cols, const mmt_gemm_params *p)
{
    if (w->making) return MMT_OK;
    mmt_geometry g = {.grid = {(cols + ADD_BLOCK - 1) / ADD_BLOCK, rows < ADD_ROWS ? rows : ADD_ROWS, 1},
                      .block = {ADD_BLOCK, 1, 1}};
    return w->be->launch(mod, p, &g, w->stream, w->err);
}

static mmt_status gemm_at(walk *w, int level, int64_t m, int64_t n, int64_t k, double alpha, addr a, int64_t lda,
                          addr b, int64_t ldb, double beta, addr c, int64_t ldc, int64_t off);

/* One level on an evenly split problem (m, n, k multiples of 2 units); its temporaries
 * start at byte `off` of the workspace, the levels below take theirs after them. */
static mmt_status winograd(walk *w, int level, int64_t m, int64_t n, int64_t k, double alpha, addr a, int64_t lda,
                           addr b, int64_t ldb, double beta, addr c, int64_t ldc, int64_t off)
{
    const int64_t hm = m / 2, hn = n / 2, hk = k / 2, es = w->es;
    const int64_t s_size = align_up(hm * hk * es), t_size = align_up(hk * hn * es), q_size = align_up(hm * hn * es);
    const int64_t at_s = off, at_t = at_s + 4 * s_size, at_p = at_t + 4 * t_size, at_q = at_p + q_size,
                  next = at_q + q_size;
    if (w->making) {
        if (next > w->high) w->high = next;
    } else {
        /* the plan's walk went here first, so this cannot happen; checked all the same */
        RETURN_ERROR_IF(next > w->plan->temp_bytes, w->err, MMT_INTERNAL,
                        "strassen: temporaries up to byte %lld, but the plan has %lld", (long long)next,
                        (long long)w->plan->temp_bytes);
    }
    addr S[4], T[4], P = w->ws + (addr)at_p, Q = w->ws + (addr)at_q;
    for (int i = 0; i < 4; i++) {
        S[i] = w->ws + (addr)(at_s + i * s_size);
        T[i] = w->ws + (addr)(at_t + i * t_size);
    }
    /* temporaries are stored in their operand's orientation: every product has the
     * problem's transposes */
    const int64_t lds = w->ta ? hm : hk, ldt = w->tb ? hk : hn;
    const int ta = w->ta, tb = w->tb;
    const addr A11 = a, A12 = at(w, a, ta, lda, 0, hk), A22 = at(w, a, ta, lda, hm, hk);
    const addr B11 = b, B21 = at(w, b, tb, ldb, hk, 0), B22 = at(w, b, tb, ldb, hk, hn);
    const addr C11 = c, C12 = c + (addr)(hn * es), C21 = c + (addr)(hm * ldc * es), C22 = C21 + (addr)(hn * es);
    const int lv = level - 1;
    mmt_module *split_a = w->adds ? w->adds->split_a : NULL, *split_b = w->adds ? w->adds->split_b : NULL,
               *acc = w->adds ? w->adds->acc : NULL, *u3 = w->adds ? w->adds->u3 : NULL;

    mmt_gemm_params sa = {.m = hm, .n = hk, .k = s_size / es, .a = (const void *)a, .lda = lda, .trans_a = ta,
                          .c = (void *)S[0]};
    mmt_gemm_params sb = {.m = hk, .n = hn, .k = t_size / es, .a = (const void *)b, .lda = ldb, .trans_a = tb,
                          .c = (void *)T[0]};
    FORWARD_IF_ERROR(add_pass(w, split_a, ta ? hk : hm, ta ? hm : hk, &sa));
    FORWARD_IF_ERROR(add_pass(w, split_b, tb ? hn : hk, tb ? hk : hn, &sb));
    /* C11 = alpha (P1 + P2) + beta C11, with P = P1 */
    FORWARD_IF_ERROR(gemm_at(w, lv, hm, hn, hk, 1, A11, lda, B11, ldb, 0, P, hn, next));
    FORWARD_IF_ERROR(gemm_at(w, lv, hm, hn, hk, alpha, A12, lda, B21, ldb, beta, C11, ldc, next));
    mmt_gemm_params acc1 = {.m = hm, .n = hn, .alpha = alpha, .a = (const void *)P, .lda = hn, .c = (void *)C11,
                            .ldc = ldc};
    FORWARD_IF_ERROR(add_pass(w, acc, hm, hn, &acc1));
    /* P = U2 = P1 + P6, Q = P7; C12 = alpha U2 + beta C12, C21 and C22 = alpha U3 + beta C */
    FORWARD_IF_ERROR(gemm_at(w, lv, hm, hn, hk, 1, S[1], lds, T[1], ldt, 1, P, hn, next));
    FORWARD_IF_ERROR(gemm_at(w, lv, hm, hn, hk, 1, S[2], lds, T[2], ldt, 0, Q, hn, next));
    mmt_gemm_params u = {.m = hm, .n = hn, .alpha = alpha, .beta = beta, .a = (const void *)P, .lda = hn,
                         .b = (const void *)Q, .ldb = hn, .c = (void *)C11, .ldc = ldc};
    FORWARD_IF_ERROR(add_pass(w, u3, hm, hn, &u));
    /* Q = P5 into C12 (U4) and C22 (U7) */
    FORWARD_IF_ERROR(gemm_at(w, lv, hm, hn, hk, 1, S[0], lds, T[0], ldt, 0, Q, hn, next));
    mmt_gemm_params acc2 = {.m = hm, .n = hn, .alpha = alpha, .a = (const void *)Q, .lda = hn, .c = (void *)C12,
                            .b = (const void *)C22, .ldc = ldc};
    FORWARD_IF_ERROR(add_pass(w, acc, hm, hn, &acc2));
    /* C12 += alpha P3 (U5), C21 -= alpha P4 (U6): the base kernel's beta = 1 adds them */
    FORWARD_IF_ERROR(gemm_at(w, lv, hm, hn, hk, alpha, S[3], lds, B22, ldb, 1, C12, ldc, next));
    return gemm_at(w, lv, hm, hn, hk, -alpha, A22, lda, T[3], ldt, 1, C21, ldc, next);
}

/* C = alpha op(A) op(B) + beta C with `level` levels: the even part by Winograd, the
 * peeled strips by the base kernel (strassen.h). */
static mmt_status gemm_at(walk *w, int level, int64_t m, int64_t n, int64_t k, double alpha, addr a, int64_t lda,
                          addr b, int64_t ldb, double beta, addr c, int64_t ldc, int64_t off)
{
    const int64_t step = 2 * w->unit, m0 = m / step * step, n0 = n / step * step, k0 = k / step * step;
    if (level == 0 || m0 == 0 || n0 == 0 || k0 == 0) return base_call(w, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    FORWARD_IF_ERROR(winograd(w, level, m0, n0, k0, alpha, a, lda, b, ldb, beta, c, ldc, off));
    const int64_t es = w->es;
    if (k0 < k)
        FORWARD_IF_ERROR(base_call(w, m0, n0, k - k0, alpha, at(w, a, w->ta, lda, 0, k0), lda,
                                   at(w, b, w->tb, ldb, k0, 0), ldb, 1, c, ldc));
    if (n0 < n)
        FORWARD_IF_ERROR(base_call(w, m0, n - n0, k, alpha, a, lda, at(w, b, w->tb, ldb, 0, n0), ldb, beta,
                                   c + (addr)(n0 * es), ldc));
    if (m0 < m)
        FORWARD_IF_ERROR(base_call(w, m - m0, n, k, alpha, at(w, a, w->ta, lda, m0, 0), lda, b, ldb, beta,
                                   c + (addr)(m0 * ldc * es), ldc));
    return MMT_OK;
}

mmt_status mmt_strassen_plan_make(const mmt_space *s, const mmt_config *c, const mmt_space_env *env,
                                  mmt_strassen_plan *plan, int *valid, mmt_err *err)
{
    memset(plan, 0, sizeof *plan);
    *valid = 0;
    const mmt_problem *p = env->problem;
    const int levels = mmt_config_levels(s, c);
    if (levels <= 0 || (p->mode != MMT_MODE_F32 && p->mode != MMT_MODE_F64)) return MMT_OK;
    int ok;
    FORWARD_IF_ERROR(mmt_space_check(s, c, env, &ok, NULL, err)); /* a space bounds levels to large problems */
    if (!ok) return MMT_OK;
    const int64_t es = mmt_dtype_size(p->dtype);
    *plan = (mmt_strassen_plan){.levels = levels, .m = p->m, .n = p->n, .k = p->k, .elem_bytes = es, .unit = 16 / es,
                                .n_shapes = 1, .shape[0] = {.m = p->m, .n = p->n, .k = p->k}};
    walk w = {.making = 1, .making_plan = plan, .ta = p->trans_a, .tb = p->trans_b, .es = es, .unit = plan->unit,
              .err = err};
    mmt_status st = gemm_at(&w, levels, p->m, p->n, p->k, 1, 0, p->trans_a ? p->m : p->k, 0,
                            p->trans_b ? p->k : p->n, 0, 0, p->n, 0);
    if (st != MMT_OK) {
        plan->levels = 0;
        return st;
    }
    plan->temp_bytes = w.high;
    /* every base call runs the base configuration; the views keep the operands' alignment */
    const mmt_config base = mmt_config_with_levels(s, c, 0);
    mmt_space_env sub_env = *env;
    if (!sub_env.align_a) sub_env.align_a = mmt_align_bytes(0, (p->trans_a ? p->m : p->k) * es);
    if (!sub_env.align_b) sub_env.align_b = mmt_align_bytes(0, (p->trans_b ? p->k : p->n) * es);
    int64_t base_ws = 0;
    for (int i = 0; i < plan->n_shapes && st == MMT_OK; i++) {
        mmt_strassen_shape *sh = &plan->shape[i];
        mmt_problem sub = *p;
        sub.m = sh->m, sub.n = sh->n, sub.k = sh->k;
        sub_env.problem = &sub;
        st = mmt_space_check(s, &base, &sub_env, &ok, NULL, err);
        if (st == MMT_OK && !ok) break;
        if (st == MMT_OK) st = mmt_space_geometry(s, &base, &sub_env, &sh->g, err);
        if (st == MMT_OK && sh->g.workspace > base_ws) base_ws = sh->g.workspace;
    }
    if (st != MMT_OK || !ok) {
        plan->levels = 0;
        return st;
    }
    plan->workspace = align_up(plan->temp_bytes) + base_ws;
    *valid = 1;
    return MMT_OK;
}

int mmt_strassen_applies(const mmt_space *s, const mmt_config *c, const mmt_space_env *env)
{
    if (mmt_config_levels(s, c) == 0) return 1;
    mmt_strassen_plan plan;
    int valid = 0;
    return env->allow_levels && mmt_strassen_plan_make(s, c, env, &plan, &valid, NULL) == MMT_OK && valid;
}

mmt_status mmt_strassen_run(const mmt_backend *be, mmt_module *base, const mmt_strassen_adds *adds,
                            const mmt_strassen_plan *plan, const mmt_gemm_params *p, void *stream, mmt_err *err)
{
    RETURN_ERROR_IF(plan->levels < 1 || p->m != plan->m || p->n != plan->n || p->k != plan->k, err, MMT_INTERNAL,
                    "strassen: a plan for %lldx%lldx%lld run on %lldx%lldx%lld", (long long)plan->m,
                    (long long)plan->n, (long long)plan->k, (long long)p->m, (long long)p->n, (long long)p->k);
    RETURN_ERROR_IF(!adds || !adds->split_a || !adds->split_b || !adds->acc || !adds->u3, err, MMT_INTERNAL,
                    "strassen: a run without the additions' kernels");
    RETURN_ERROR_IF(!p->workspace || p->workspace_size < plan->workspace, err, MMT_INTERNAL,
                    "strassen: the run needs %lld bytes of workspace, it has %lld", (long long)plan->workspace,
                    (long long)(p->workspace ? p->workspace_size : 0));
    walk w = {.plan = plan, .be = be, .base = base, .adds = adds, .stream = stream, .ws = (addr)p->workspace,
              .ta = p->trans_a != 0, .tb = p->trans_b != 0, .es = plan->elem_bytes, .unit = plan->unit, .err = err};
    const addr a = (addr)p->a, b = (addr)p->b, c = (addr)p->c;
    if (p->alpha == 0 || p->k == 0) /* the base kernel's BLAS rules: A and B are not read */
        return base_call(&w, p->m, p->n, p->k, p->alpha, a, p->lda, b, p->ldb, p->beta, c, p->ldc);
    return gemm_at(&w, plan->levels, p->m, p->n, p->k, p->alpha, a, p->lda, b, p->ldb, p->beta, c, p->ldc, 0);
}

/* ---- the additions' kernels ----------------------------------------------------------- */

static const char *const add_entries[4] = {"mmt_strassen_split_a", "mmt_strassen_split_b", "mmt_strassen_acc",
                                           "mmt_strassen_u3"};

mmt_status mmt_strassen_adds_binary(const mmt_backend *be, const mmt_device_info *dev, mmt_dtype dtype, void **bin,
                                    size_t *size, mmt_err *err)
{
    char prefix[64], defines[32];
    const char *path = NULL;
    snprintf(prefix, sizeof prefix, "templates/%s/strassen_add.", be->name);
    for (const mmt_resource *r = mmt_resources; r->path && !path; r++)
        if (strncmp(r->path, prefix, strlen(prefix)) == 0) path = r->path;
    RETURN_ERROR_IF(!path, err, MMT_UNSUPPORTED, "the %s backend has no Strassen additions (%s*)", be->name, prefix);
    RETURN_ERROR_IF(dtype != MMT_F32 && dtype != MMT_F64, err, MMT_UNSUPPORTED,
                    "Strassen levels run on f32 and f64, not %s", mmt_dtype_name(dtype));
    snprintf(defines, sizeof defines, "MMT_DTYPE_F64=%d", dtype == MMT_F64);
    char *source = NULL, *log = NULL;
    size_t n;
    FORWARD_IF_ERROR(mmt_resource_read(path, &source, &n, err));
    mmt_status s = mmt_kernel_binary(be, dev, path + strlen("templates/"), source, defines, bin, size, &log, NULL,
                                     err);
    free(source);
    free(log);
    return s;
}

mmt_status mmt_strassen_adds_load(const mmt_backend *be, const mmt_device_info *dev, mmt_dtype dtype,
                                  mmt_strassen_adds *out, mmt_err *err)
{
    memset(out, 0, sizeof *out);
    out->be = be;
    void *bin;
    size_t size;
    FORWARD_IF_ERROR(mmt_strassen_adds_binary(be, dev, dtype, &bin, &size, err));
    mmt_module **mods[4] = {&out->split_a, &out->split_b, &out->acc, &out->u3};
    mmt_status s = MMT_OK;
    for (int i = 0; i < 4 && s == MMT_OK; i++) s = be->load(dev, bin, size, add_entries[i], mods[i], err);
    free(bin);
    if (s != MMT_OK) mmt_strassen_adds_unload(out);
    return s;
}

void mmt_strassen_adds_unload(mmt_strassen_adds *a)
{
    if (!a || !a->be) return;
    mmt_module *mods[4] = {a->split_a, a->split_b, a->acc, a->u3};
    for (int i = 0; i < 4; i++)
        if (mods[i]) a->be->unload(mods[i]);
    memset(a, 0, sizeof *a);
}
