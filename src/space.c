/* space.c - search spaces (see space.h) evaluated: a configuration checked against a
 * problem and device, the valid ones enumerated, the default chosen, the launch geometry,
 * the -D definitions and the configuration text. Loading is space_load.c's. */
#include "space_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "yaml_util.h"

#define MAX_ENUMERATE 100000000LL /* partial configurations one enumeration visits */
/* configurations one enumeration keeps (256 bytes each: 512 MiB); the CUDA-core space, the
 * largest shipped, keeps at most about 410,000 for a problem */
#define MAX_CONFIGS ((size_t)1 << 21)

/* ---- evaluation ------------------------------------------------------------------------------ */

typedef struct evaluation {
    const space_impl *im;
    const mmt_space_env *env;
    uint64_t missing; /* environment slots without a value */
    int64_t slots[N_SLOTS];
} evaluation;

static void eval_init(evaluation *ev, const mmt_space *s, const mmt_space_env *env)
{
    const space_impl *im = (const space_impl *)s;
    ev->im = im;
    ev->env = env;
    ev->missing = 0;
    const mmt_problem *p = env ? env->problem : NULL;
    if (p) {
        int64_t *e = ev->slots + SLOT_ENV;
        const int64_t es = mmt_dtype_size(p->dtype);
        e[0] = p->m, e[1] = p->n, e[2] = p->k, e[3] = p->trans_a, e[4] = p->trans_b, e[5] = es;
        e[6] = mmt_dtype_size(p->out);
        /* dense storage: A is m x k (k x m transposed), B k x n (n x k) */
        e[7] = env->align_a ? env->align_a : mmt_align_bytes(0, (p->trans_a ? p->m : p->k) * es);
        e[8] = env->align_b ? env->align_b : mmt_align_bytes(0, (p->trans_b ? p->k : p->n) * es);
        e[9] = p->mode;
        e[10] = env->reproducible != 0;
    } else {
        ev->missing |= ((uint64_t)1 << N_PROBLEM) - 1;
    }
    for (int k = N_PROBLEM; k < im->n_env; k++) {
        const char *name = im->env_names[k] + 7; /* after "device." */
        if (!env || !env->device || mmt_device_get_prop(env->device, name, strlen(name), &ev->slots[SLOT_ENV + k]) != 0)
            ev->missing |= (uint64_t)1 << k;
    }
}

static void eval_set_config(evaluation *ev, const mmt_config *c)
{
    memcpy(ev->slots, c->v, sizeof(int64_t) * (size_t)ev->im->pub.n_params);
}

/* "derived THREADS", "constraint", "launch grid[0]"... for messages. */
static void expr_what(const space_impl *im, const mmt_space_expr *x, char *buf, size_t size)
{
    const mmt_space *s = &im->pub;
    if (x >= s->derived && x < s->derived + MMT_SPACE_MAX_DERIVED) snprintf(buf, size, "derived %s", x->name);
    else if (x >= s->constraints && x < s->constraints + MMT_SPACE_MAX_CONSTRAINTS) snprintf(buf, size, "constraint");
    else if (x >= s->prune && x < s->prune + MMT_SPACE_MAX_CONSTRAINTS) snprintf(buf, size, "prune");
    else if (x >= s->grid && x < s->grid + 3) snprintf(buf, size, "launch grid[%d]", (int)(x - s->grid));
    else if (x >= s->block && x < s->block + 3) snprintf(buf, size, "launch block[%d]", (int)(x - s->block));
    else if (x == &s->smem) snprintf(buf, size, "launch smem");
    else if (x == &s->workspace) snprintf(buf, size, "launch workspace");
    else if (x == &s->tma_packed) snprintf(buf, size, "launch tma_packed");
    else if (x == &s->tma_tf32) snprintf(buf, size, "launch tma_tf32");
    else if ((const char *)x >= (const char *)s->shape_defaults &&
             (const char *)x < (const char *)(s->shape_defaults + MMT_SPACE_MAX_DEFAULTS)) {
        const int i = (int)(((const char *)x - (const char *)s->shape_defaults) / sizeof s->shape_defaults[0]);
        if (x == &s->shape_defaults[i].when) snprintf(buf, size, "defaults[%d] when", i);
        else snprintf(buf, size, "defaults[%d] config %s", i, x->name);
    }
    else {
        const int o = x >= s->tma[2] ? 2 : x >= s->tma[1];
        snprintf(buf, size, "launch tma_%c[%d]", "abc"[o], (int)(x - s->tma[o]));
    }
}

static mmt_status eval_error(const evaluation *ev, const mmt_space_expr *x, uint64_t bits, mmt_err *err)
{
    if (!err) return MMT_PARSE;
    char what[64], inner[sizeof err->msg];
    expr_what(ev->im, x, what, sizeof what);
    if (bits) {
        int k = 0;
        while (!(bits & ((uint64_t)1 << k))) k++;
        const char *name = ev->im->env_names[k];
        if (k < N_PROBLEM) snprintf(inner, sizeof inner, "'%s' needs a problem, and none was given", name);
        else if (!ev->env || !ev->env->device)
            snprintf(inner, sizeof inner, "'%s' needs a device, and none was given", name);
        else snprintf(inner, sizeof inner, "device '%s' has no property '%s'", ev->env->device->name, name);
        return mmt_err_set(err, MMT_PARSE, "%s:%d:%d: %s '%s': %s", ev->im->pub.file, x->line, x->col, what, x->text,
                           inner);
    }
    snprintf(inner, sizeof inner, "%s", err->msg);
    return mmt_err_set(err, err->status, "%s:%d:%d: %s: %s", ev->im->pub.file, x->line, x->col, what, inner);
}

static inline mmt_status eval_expr(const evaluation *ev, const mmt_space_expr *x, uint64_t mask, int64_t *out,
                                   mmt_err *err)
{
    if (mask & ev->missing) return eval_error(ev, x, mask & ev->missing, err);
    if (mmt_expr_eval_slots(x->expr, ev->slots, NULL, NULL, out, err) != MMT_OK) return eval_error(ev, x, 0, err);
    return MMT_OK;
}

static mmt_status eval_derived(evaluation *ev, mmt_err *err)
{
    const space_impl *im = ev->im;
    for (int j = 0; j < im->pub.n_derived; j++)
        FORWARD_IF_ERROR(eval_expr(ev, &im->pub.derived[j], im->derived_mask[j], &ev->slots[SLOT_DERIVED + j], err));
    return MMT_OK;
}

/* Whether every condition of a list holds. */
static mmt_status eval_all(evaluation *ev, const mmt_space_expr *list, const uint64_t *masks, int count, int *holds,
                           mmt_err *err)
{
    for (int j = 0; j < count; j++) {
        int64_t v;
        FORWARD_IF_ERROR(eval_expr(ev, &list[j], masks[j], &v, err));
        if (!v) {
            *holds = 0;
            return MMT_OK;
        }
    }
    *holds = 1;
    return MMT_OK;
}

mmt_status mmt_space_check(const mmt_space *s, const mmt_config *c, const mmt_space_env *env, int *valid,
                           int64_t *derived, mmt_err *err)
{
    evaluation ev;
    eval_init(&ev, s, env);
    eval_set_config(&ev, c);
    *valid = 0;
    const space_impl *im = ev.im;
    FORWARD_IF_ERROR(eval_derived(&ev, err));
    if (derived) memcpy(derived, ev.slots + SLOT_DERIVED, sizeof(int64_t) * (size_t)s->n_derived);
    return eval_all(&ev, s->constraints, im->constraint_mask, s->n_constraints, valid, err);
}

/* ---- enumeration ------------------------------------------------------------------------------ */

/* The walk of mmt_space_enumerate: params are fixed one at a time in file order, the first
 * outermost, and each derived value and condition (the constraints, then the prune lines) is
 * evaluated at the depth where the last param it reads is fixed. A false condition skips
 * every completion of the prefix, and the configurations come out in the odometer order of
 * a walk over every combination, which tuning's strategies and recorded landscapes rely on. */
#define MAX_CONDITIONS (2 * MMT_SPACE_MAX_CONSTRAINTS)

typedef struct walk {
    evaluation ev;
    const mmt_space_expr *cond[MAX_CONDITIONS];
    uint64_t cond_mask[MAX_CONDITIONS];
    int n_cond;
    int n_walked; /* the conditions before the first that the environment cannot evaluate */
    /* derived[derived_from[d] .. derived_from[d + 1]) are evaluated at depth d (params [0, d) fixed), in file
     * order; likewise the conditions */
    unsigned char derived[MMT_SPACE_MAX_DERIVED], conds[MAX_CONDITIONS];
    int derived_from[MMT_SPACE_MAX_PARAMS + 2], cond_from[MMT_SPACE_MAX_PARAMS + 2];
    long long visited; /* partial configurations, bounded by MAX_ENUMERATE */
    mmt_config *list;
    size_t count, cap;
} walk;

/* The depth at which an expression reading these params can be evaluated: one past the last. */
static int depth_of(uint32_t params)
{
    int d = 0;
    while (params >> d) d++;
    return d;
}

/* Sorts expressions 0..count-1 by depth, file order within a depth. */
static void by_depth(const uint32_t *params, int count, int n_params, unsigned char *order, int *from)
{
    int k = 0;
    for (int d = 0; d <= n_params; d++) {
        from[d] = k;
        for (int j = 0; j < count; j++)
            if (depth_of(params[j]) == d) order[k++] = (unsigned char)j;
    }
    from[n_params + 1] = k;
}

static void walk_init(walk *w, const mmt_space *s, const mmt_space_env *env)
{
    const space_impl *im = (const space_impl *)s;
    uint32_t params[MAX_CONDITIONS];
    eval_init(&w->ev, s, env);
    w->n_cond = s->n_constraints + s->n_prune;
    for (int j = 0; j < w->n_cond; j++) {
        const int c = j < s->n_constraints, i = c ? j : j - s->n_constraints;
        w->cond[j] = c ? &s->constraints[i] : &s->prune[i];
        w->cond_mask[j] = c ? im->constraint_mask[i] : im->prune_mask[i];
        params[j] = c ? im->constraint_params[i] : im->prune_params[i];
    }
    /* A full walk stops at the first configuration that reaches a condition the environment
     * cannot evaluate: walking the conditions before it finds the same configuration */
    w->n_walked = 0;
    while (w->n_walked < w->n_cond && !(w->cond_mask[w->n_walked] & w->ev.missing)) w->n_walked++;
    by_depth(im->derived_params, s->n_derived, s->n_params, w->derived, w->derived_from);
    by_depth(params, w->n_walked, s->n_params, w->conds, w->cond_from);
    w->visited = 0;
    w->list = NULL;
    w->count = w->cap = 0;
}

/* The derived values and conditions of a depth: *holds is 0 where a condition is false. */
static mmt_status walk_eval(walk *w, int depth, int *holds, mmt_err *err)
{
    const space_impl *im = w->ev.im;
    for (int k = w->derived_from[depth]; k < w->derived_from[depth + 1]; k++) {
        const int j = w->derived[k];
        FORWARD_IF_ERROR(
            eval_expr(&w->ev, &im->pub.derived[j], im->derived_mask[j], &w->ev.slots[SLOT_DERIVED + j], err));
    }
    *holds = 1;
    for (int k = w->cond_from[depth]; k < w->cond_from[depth + 1] && *holds; k++) {
        const int j = w->conds[k];
        int64_t v;
        FORWARD_IF_ERROR(eval_expr(&w->ev, w->cond[j], w->cond_mask[j], &v, err));
        *holds = v != 0;
    }
    return MMT_OK;
}

/* A configuration whose every walked condition holds. */
static mmt_status walk_emit(walk *w, mmt_err *err)
{
    const int np = w->ev.im->pub.n_params;
    if (w->n_walked < w->n_cond) /* the next condition needs what the environment lacks */
        return eval_error(&w->ev, w->cond[w->n_walked], w->cond_mask[w->n_walked] & w->ev.missing, err);
    RETURN_ERROR_IF(w->count == MAX_CONFIGS, err, MMT_INVALID_ARGUMENT,
                    "%s: more than %zu configurations hold for this problem (narrow the params' lists, or add "
                    "constraints or prune lines)",
                    w->ev.im->pub.file, MAX_CONFIGS);
    if (w->count == w->cap) {
        size_t nc = w->cap ? w->cap * 2 : 256;
        mmt_config *nl = realloc(w->list, nc * sizeof *nl);
        RETURN_ERROR_IF(!nl, err, MMT_OUT_OF_MEMORY, "out of memory");
        w->list = nl;
        w->cap = nc;
    }
    mmt_config *c = &w->list[w->count++];
    memcpy(c->v, w->ev.slots, sizeof(int64_t) * (size_t)np);
    memset(c->v + np, 0, sizeof(int64_t) * (size_t)(MMT_SPACE_MAX_PARAMS - np));
    return MMT_OK;
}

/* Every completion of the params [0, depth) fixed in the slots. */
static mmt_status walk_from(walk *w, int depth, mmt_err *err)
{
    const mmt_space *s = &w->ev.im->pub;
    if (depth == s->n_params) return walk_emit(w, err);
    const mmt_space_param *p = &s->params[depth];
    /* the levels are not searched: the levels round adds them to the classic winner */
    const int levels = depth == s->levels_param, n = levels ? 1 : p->n_values;
    for (int i = 0; i < n; i++) {
        RETURN_ERROR_IF(++w->visited > MAX_ENUMERATE, err, MMT_INVALID_ARGUMENT,
                        "%s: enumerating the space visits more than %lld partial configurations (conditions "
                        "that read only the first params cut the walk short)",
                        s->file, MAX_ENUMERATE);
        w->ev.slots[depth] = levels ? 0 : p->values[i];
        int holds;
        FORWARD_IF_ERROR(walk_eval(w, depth + 1, &holds, err));
        if (holds) FORWARD_IF_ERROR(walk_from(w, depth + 1, err));
    }
    return MMT_OK;
}

mmt_status mmt_space_enumerate(const mmt_space *s, const mmt_space_env *env, mmt_config **out, size_t *n,
                               mmt_err *err)
{
    *out = NULL;
    *n = 0;
    walk w;
    walk_init(&w, s, env);
    /* a full walk evaluates every derived value of the first configuration before anything
     * else, so a value the environment lacks fails here as it did there */
    for (int i = 0; i < s->n_params; i++) w.ev.slots[i] = i == s->levels_param ? 0 : s->params[i].values[0];
    int holds;
    mmt_status st = eval_derived(&w.ev, err);
    if (st == MMT_OK) st = walk_eval(&w, 0, &holds, err);
    if (st == MMT_OK && holds) st = walk_from(&w, 0, err);
    if (st == MMT_OK && w.count) {
        *out = w.list;
        *n = w.count;
    } else {
        free(w.list);
    }
    return st;
}

void mmt_space_default(const mmt_space *s, mmt_config *out)
{
    memset(out, 0, sizeof *out);
    memcpy(out->v, s->defaults, sizeof(int64_t) * (size_t)s->n_params);
}

mmt_status mmt_space_default_for(const mmt_space *s, const mmt_space_env *env, mmt_config *out, int *which,
                                 mmt_err *err)
{
    const space_impl *im = (const space_impl *)s;
    evaluation ev;
    eval_init(&ev, s, env);
    for (int i = 0; i < s->n_shape_defaults; i++) {
        const mmt_space_shape_default *d = &s->shape_defaults[i];
        int64_t holds;
        FORWARD_IF_ERROR(eval_expr(&ev, &d->when, im->when_mask[i], &holds, err));
        if (!holds) continue;
        mmt_config c;
        mmt_space_default(s, &c);
        for (int j = 0; j < d->n_set; j++) {
            const mmt_space_param *p = &s->params[d->set_param[j]];
            int64_t *v = &c.v[d->set_param[j]];
            FORWARD_IF_ERROR(eval_expr(&ev, &d->set[j], im->set_mask[i][j], v, err));
            RETURN_ERROR_IF(!among_values(p, *v), err, MMT_PARSE,
                            "%s:%d:%d: defaults[%d] config %s '%s' is %lld here, which is not among its values",
                            s->file, d->set[j].line, d->set[j].col, i, p->name, d->set[j].text, (long long)*v);
        }
        int valid;
        FORWARD_IF_ERROR(mmt_space_check(s, &c, env, &valid, NULL, err));
        if (!valid) continue;
        *out = c;
        if (which) *which = i;
        return MMT_OK;
    }
    mmt_space_default(s, out);
    if (which) *which = -1;
    return MMT_OK;
}

long mmt_config_index(const mmt_config *cands, size_t n, const mmt_config *c)
{
    for (size_t i = 0; i < n; i++)
        if (memcmp(&cands[i], c, sizeof *c) == 0) return (long)i;
    return -1;
}

mmt_status mmt_space_geometry(const mmt_space *s, const mmt_config *c, const mmt_space_env *env, mmt_geometry *g,
                              mmt_err *err)
{
    memset(g, 0, sizeof *g);
    if (!s->has_launch) return MMT_OK;
    evaluation ev;
    eval_init(&ev, s, env);
    eval_set_config(&ev, c);
    const space_impl *im = ev.im;
    FORWARD_IF_ERROR(eval_derived(&ev, err));
    for (int i = 0; i < 3; i++) {
        FORWARD_IF_ERROR(eval_expr(&ev, &s->grid[i], im->grid_mask[i], &g->grid[i], err));
        FORWARD_IF_ERROR(eval_expr(&ev, &s->block[i], im->block_mask[i], &g->block[i], err));
    }
    FORWARD_IF_ERROR(eval_expr(&ev, &s->smem, im->smem_mask, &g->smem, err));
    FORWARD_IF_ERROR(eval_expr(&ev, &s->workspace, im->workspace_mask, &g->workspace, err));
    for (int o = 0; o < 3; o++)
        for (int i = 0; i < 2; i++) FORWARD_IF_ERROR(eval_expr(&ev, &s->tma[o][i], im->tma_mask[o][i], &g->tma[o][i], err));
    FORWARD_IF_ERROR(eval_expr(&ev, &s->tma_packed, im->tma_packed_mask, &g->tma_packed, err));
    FORWARD_IF_ERROR(eval_expr(&ev, &s->tma_tf32, im->tma_tf32_mask, &g->tma_tf32, err));
    g->elem_bytes = env && env->problem ? mmt_dtype_size(env->problem->dtype) : 0;
    g->c_bytes = env && env->problem ? mmt_dtype_size(env->problem->out) : 0;
    return MMT_OK;
}

void mmt_config_format(const mmt_space *s, const mmt_config *c, char *buf, size_t size)
{
    if (!size) return;
    size_t len = 0;
    buf[0] = '\0';
    for (int i = 0; i < s->n_params && len < size; i++) {
        if ((s->added_mask >> i & 1) && c->v[i] == 0)
            continue; /* a knob added later at 0 (the classic algorithm's levels too): the text it always had */
        int w = snprintf(buf + len, size - len, "%s%s=%lld", len ? "," : "", s->params[i].name, (long long)c->v[i]);
        if (w < 0) break;
        len += (size_t)w;
    }
}

mmt_status mmt_config_parse(const mmt_space *s, const char *text, mmt_config *out, mmt_err *err)
{
    mmt_config c;
    memset(&c, 0, sizeof c);
    int seen[MMT_SPACE_MAX_PARAMS] = {0};
    RETURN_ERROR_IF(!text, err, MMT_INVALID_ARGUMENT, "no configuration text");
    const char *p = text;
    while (*p) {
        const char *end = strchr(p, ',');
        if (!end) end = p + strlen(p);
        const char *eq = memchr(p, '=', (size_t)(end - p));
        RETURN_ERROR_IF(!eq, err, MMT_PARSE, "configuration '%s': '%.*s' is not NAME=VALUE", text, (int)(end - p), p);
        const char *nb = p, *ne = eq;
        while (nb < ne && *nb == ' ') nb++;
        while (ne > nb && ne[-1] == ' ') ne--;
        int i = find_param(s, nb, (size_t)(ne - nb));
        RETURN_ERROR_IF(i < 0, err, MMT_PARSE, "configuration '%s': '%.*s' is not a param of %s", text,
                        (int)(ne - nb), nb, s->file);
        RETURN_ERROR_IF(seen[i], err, MMT_PARSE, "configuration '%s': '%s' appears twice", text, s->params[i].name);
        char num[32];
        const char *vb = eq + 1, *ve = end;
        while (vb < ve && *vb == ' ') vb++;
        while (ve > vb && ve[-1] == ' ') ve--;
        int64_t v;
        int ok = (size_t)(ve - vb) < sizeof num;
        if (ok) {
            memcpy(num, vb, (size_t)(ve - vb));
            num[ve - vb] = '\0';
            ok = mmt_yaml_parse_int(num, &v) == 0;
        }
        RETURN_ERROR_IF(!ok, err, MMT_PARSE, "configuration '%s': the value of '%s' is not an integer", text,
                        s->params[i].name);
        int found = 0;
        for (int j = 0; j < s->params[i].n_values; j++) found |= s->params[i].values[j] == v;
        RETURN_ERROR_IF(!found, err, MMT_PARSE, "configuration '%s': %s=%lld is not among the values in %s", text,
                        s->params[i].name, (long long)v, s->file);
        seen[i] = 1;
        c.v[i] = v;
        p = *end ? end + 1 : end;
    }
    for (int i = 0; i < s->n_params; i++)
        RETURN_ERROR_IF(!seen[i] && !(s->added_mask >> i & 1), err, MMT_PARSE,
                        "configuration '%s' is missing param '%s'", text, s->params[i].name);
    *out = c;
    return MMT_OK;
}

mmt_status mmt_space_defines(const mmt_space *s, const mmt_config *c, const mmt_space_env *env, char *buf,
                             size_t size, mmt_err *err)
{
    evaluation ev;
    eval_init(&ev, s, env);
    eval_set_config(&ev, c);
    FORWARD_IF_ERROR(eval_derived(&ev, err));
    size_t len = 0;
    RETURN_ERROR_IF(size == 0, err, MMT_INVALID_ARGUMENT, "no room for the defines");
    buf[0] = '\0';
    for (int i = 0; i < s->n_params + s->n_derived; i++) {
        if (i == s->levels_param) continue; /* applied by the runtime: every level runs one binary */
        const char *name = i < s->n_params ? s->params[i].name : s->derived[i - s->n_params].name;
        int64_t v = i < s->n_params ? ev.slots[i] : ev.slots[SLOT_DERIVED + i - s->n_params];
        int w = snprintf(buf + len, size - len, "%s%s=%lld", len ? " " : "", name, (long long)v);
        RETURN_ERROR_IF(w < 0 || (size_t)w >= size - len, err, MMT_INVALID_ARGUMENT,
                        "the defines of %s do not fit in %zu bytes", s->file, size);
        len += (size_t)w;
    }
    return MMT_OK;
}

int mmt_config_levels(const mmt_space *s, const mmt_config *c)
{
    return s->levels_param >= 0 ? (int)c->v[s->levels_param] : 0;
}

mmt_config mmt_config_with_levels(const mmt_space *s, const mmt_config *c, int levels)
{
    mmt_config out = *c;
    if (s->levels_param >= 0) out.v[s->levels_param] = levels;
    return out;
}
