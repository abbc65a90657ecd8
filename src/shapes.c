/* shapes.c - shapes files (see shapes.h, DESIGN.md section 4b): a list of problems whose
 * values may be lists, expanded to every combination (the last key varies fastest, in the
 * order m n k dtype out layout trans_a trans_b host). dtype is the precision mode (f32 f64
 * bf16 f16 tf32 f32x3 e4m3 e5m2); out the type of C (default: the input type, f32 for FP8; e4m3
 * and e5m2 for FP8 inputs alone); host whether the matrices live in host memory (default
 * false: the out-of-core GEMM's knobs are tuned). */
#include "shapes.h"

#include <stdlib.h>
#include <string.h>

#include "yaml_util.h"

#define MAX_SWEEP 256          /* values of one key */
#define MAX_PROBLEMS 1000000   /* problems of one file */

enum { K_M, K_N, K_K, K_DTYPE, K_OUT, K_LAYOUT, K_TRANS_A, K_TRANS_B, K_HOST, K_SCALE, N_KEYS };
static const char *const key_names[N_KEYS] = {"m",       "n",       "k",    "dtype", "out", "layout",
                                              "trans_a", "trans_b", "host", "scale"};
#define OUT_AS_INPUT (-1) /* the default of out */

typedef struct sweep {
    int n[N_KEYS];
    int64_t v[N_KEYS][MAX_SWEEP];
} sweep;

static mmt_status read_value(mmt_yaml_doc *d, const char *file, int key, yaml_node_t *n, int64_t *v, mmt_err *err)
{
    const char *text;
    FORWARD_IF_ERROR(mmt_yaml_scalar(file, n, key_names[key], &text, err));
    switch (key) {
    case K_M: case K_N: case K_K:
        if (mmt_yaml_parse_int(text, v) != 0)
            return mmt_yaml_error(err, file, n, "%s: '%s' is not an integer", key_names[key], text);
        if (*v < 1) return mmt_yaml_error(err, file, n, "%s: %s is not a size (at least 1)", key_names[key], text);
        return MMT_OK;
    case K_DTYPE: {
        mmt_mode mode;
        if (mmt_mode_parse(text, &mode) != 0)
            return mmt_yaml_error(err, file, n,
                                  "dtype '%s' is not supported (f32 f64 bf16 f16 tf32 f32x3 e4m3 e5m2 e4m3-block "
                                  "e5m2-block e4m3xe5m2 e5m2xe4m3)",
                                  text);
        *v = mode;
        return MMT_OK;
    }
    case K_OUT: {
        mmt_dtype dt;
        if (mmt_dtype_parse(text, &dt) != 0)
            return mmt_yaml_error(err, file, n, "out '%s' is not a type of C (f32 f64 bf16 f16 e4m3 e5m2)", text);
        *v = dt;
        return MMT_OK;
    }
    case K_SCALE: /* FP8's scales: per tensor (in alpha) or per block (the -block modes) */
        if (strcmp(text, "tensor") != 0 && strcmp(text, "block") != 0)
            return mmt_yaml_error(err, file, n, "scale '%s' is neither tensor nor block", text);
        *v = strcmp(text, "block") == 0;
        return MMT_OK;
    case K_LAYOUT: {
        mmt_layout l;
        if (mmt_layout_parse(text, &l) != 0)
            return mmt_yaml_error(err, file, n, "layout '%s' is neither row nor col", text);
        *v = l;
        return MMT_OK;
    }
    default: {
        int b;
        if (mmt_yaml_parse_bool(text, &b) != 0)
            return mmt_yaml_error(err, file, n, "%s: '%s' is neither true nor false", key_names[key], text);
        *v = b;
        return MMT_OK;
    }
    }
    (void)d;
}

static mmt_status read_entry(mmt_yaml_doc *d, const char *file, yaml_node_t *e, sweep *sw, mmt_err *err)
{
    if (e->type != YAML_MAPPING_NODE)
        return mmt_yaml_error(err, file, e, "a problem must be a mapping such as {m: 64, n: 64, k: 64}, not %s",
                              mmt_yaml_kind(e));
    memset(sw->n, 0, sizeof sw->n);
    for (int i = 0; i < MMT_YAML_NPAIRS(e); i++) {
        yaml_node_t *key = mmt_yaml_node(d, MMT_YAML_PAIRS(e)[i].key);
        yaml_node_t *val = mmt_yaml_node(d, MMT_YAML_PAIRS(e)[i].value);
        const char *name;
        FORWARD_IF_ERROR(mmt_yaml_scalar(file, key, "a key", &name, err));
        int k = 0;
        while (k < N_KEYS && strcmp(name, key_names[k]) != 0) k++;
        if (k == N_KEYS)
            return mmt_yaml_error(err, file, key,
                                  "unknown key '%s' (m n k dtype out layout trans_a trans_b host scale)", name);
        if (sw->n[k]) return mmt_yaml_error(err, file, key, "duplicate key '%s'", name);
        if (val->type == YAML_SEQUENCE_NODE) {
            int count = MMT_YAML_NITEMS(val);
            if (count == 0) return mmt_yaml_error(err, file, val, "%s: the list is empty", name);
            if (count > MAX_SWEEP)
                return mmt_yaml_error(err, file, val, "%s: %d values (at most %d)", name, count, MAX_SWEEP);
            for (int j = 0; j < count; j++)
                FORWARD_IF_ERROR(read_value(d, file, k, MMT_YAML_ITEM(d, val, j), &sw->v[k][j], err));
            sw->n[k] = count;
        } else {
            FORWARD_IF_ERROR(read_value(d, file, k, val, &sw->v[k][0], err));
            sw->n[k] = 1;
        }
    }
    for (int k = K_M; k <= K_K; k++)
        if (!sw->n[k]) return mmt_yaml_error(err, file, e, "the problem has no '%s'", key_names[k]);
    static const int64_t defaults[N_KEYS] = {0, 0, 0, MMT_MODE_F32, OUT_AS_INPUT, MMT_ROW_MAJOR, 0, 0, 0, 0};
    for (int k = K_DTYPE; k < N_KEYS; k++)
        if (!sw->n[k]) {
            sw->v[k][0] = defaults[k];
            sw->n[k] = 1;
        }
    return MMT_OK;
}

/* A problem of the file with where it stands, for finding the ones written twice. */
typedef struct placed {
    const mmt_problem *p;
    unsigned char host;
    size_t at;
} placed;

static int cmp64(int64_t a, int64_t b) { return (a > b) - (a < b); }

static int same_problem_order(const placed *x, const placed *y)
{
    const mmt_problem *a = x->p, *b = y->p;
    int c = cmp64(a->m, b->m);
    if (!c) c = cmp64(a->n, b->n);
    if (!c) c = cmp64(a->k, b->k);
    if (!c) c = cmp64(a->mode, b->mode);
    if (!c) c = cmp64(a->out, b->out);
    if (!c) c = cmp64(a->layout, b->layout);
    if (!c) c = cmp64(a->trans_a, b->trans_a);
    if (!c) c = cmp64(a->trans_b, b->trans_b);
    if (!c) c = cmp64(x->host, y->host);
    return c;
}

static int by_problem(const void *x, const void *y)
{
    const int c = same_problem_order(x, y);
    return c ? c : cmp64((int64_t)((const placed *)x)->at, (int64_t)((const placed *)y)->at);
}

/* Keeps the first of problems written more than once (two sweeps that meet, a line
 * repeated): a problem is tuned once a run. In order; the count shrinks. */
static mmt_status drop_repeats(mmt_problem *probs, unsigned char *hosts, size_t *count, mmt_err *err)
{
    const size_t n = *count;
    placed *pl = malloc((n ? n : 1) * sizeof *pl);
    unsigned char *keep = calloc(n ? n : 1, 1);
    if (!pl || !keep) {
        free(pl), free(keep);
        return mmt_err_set(err, MMT_OUT_OF_MEMORY, "out of memory");
    }
    for (size_t i = 0; i < n; i++) pl[i] = (placed){&probs[i], hosts[i], i};
    qsort(pl, n, sizeof *pl, by_problem);
    for (size_t i = 0; i < n; i++) keep[pl[i].at] = i == 0 || same_problem_order(&pl[i - 1], &pl[i]) != 0;
    size_t kept = 0;
    for (size_t i = 0; i < n; i++)
        if (keep[i]) probs[kept] = probs[i], hosts[kept++] = hosts[i];
    *count = kept;
    free(pl), free(keep);
    return MMT_OK;
}

static mmt_status read_doc(mmt_yaml_doc *d, const char *file, mmt_problem **out, unsigned char **host, size_t *n,
                           mmt_err *err)
{
    yaml_node_t *root = mmt_yaml_root(d);
    if (root->type != YAML_MAPPING_NODE)
        return mmt_yaml_error(err, file, root, "a shapes file must be a mapping with 'problems', not %s",
                              mmt_yaml_kind(root));
    yaml_node_t *list = NULL;
    for (int i = 0; i < MMT_YAML_NPAIRS(root); i++) {
        yaml_node_t *key = mmt_yaml_node(d, MMT_YAML_PAIRS(root)[i].key);
        const char *name;
        FORWARD_IF_ERROR(mmt_yaml_scalar(file, key, "a key", &name, err));
        if (strcmp(name, "problems") != 0) return mmt_yaml_error(err, file, key, "unknown key '%s' (problems)", name);
        if (list) return mmt_yaml_error(err, file, key, "duplicate key 'problems'");
        list = mmt_yaml_node(d, MMT_YAML_PAIRS(root)[i].value);
    }
    if (!list) return mmt_yaml_error(err, file, root, "missing key 'problems'");
    if (list->type != YAML_SEQUENCE_NODE)
        return mmt_yaml_error(err, file, list, "'problems' must be a list, not %s", mmt_yaml_kind(list));
    if (MMT_YAML_NITEMS(list) == 0) return mmt_yaml_error(err, file, list, "'problems' is empty");
    sweep *sw = malloc(sizeof *sw);
    RETURN_ERROR_IF(!sw, err, MMT_OUT_OF_MEMORY, "out of memory");
    mmt_problem *probs = NULL;
    unsigned char *hosts = NULL;
    size_t count = 0, cap = 0;
    mmt_status st = MMT_OK;
    for (int i = 0; i < MMT_YAML_NITEMS(list) && st == MMT_OK; i++) {
        yaml_node_t *e = MMT_YAML_ITEM(d, list, i);
        st = read_entry(d, file, e, sw, err);
        if (st != MMT_OK) break;
        size_t combos = 1;
        for (int k = 0; k < N_KEYS && combos <= MAX_PROBLEMS; k++) combos *= (size_t)sw->n[k]; /* no wrap-around */
        if (combos > MAX_PROBLEMS || count + combos > MAX_PROBLEMS) {
            st = mmt_yaml_error(err, file, e, "too many problems (at most %d in a file)", MAX_PROBLEMS);
            break;
        }
        if (count + combos > cap) {
            size_t nc = cap ? cap : 16;
            while (nc < count + combos) nc *= 2;
            mmt_problem *np = realloc(probs, nc * sizeof *np);
            if (np) probs = np;
            unsigned char *nh = np ? realloc(hosts, nc) : NULL;
            if (nh) hosts = nh;
            if (!np || !nh) {
                st = mmt_err_set(err, MMT_OUT_OF_MEMORY, "out of memory");
                break;
            }
            cap = nc;
        }
        int idx[N_KEYS] = {0};
        for (size_t c = 0; c < combos; c++) {
            hosts[count] = (unsigned char)sw->v[K_HOST][idx[K_HOST]];
            mmt_problem *p = &probs[count++];
            p->m = sw->v[K_M][idx[K_M]];
            p->n = sw->v[K_N][idx[K_N]];
            p->k = sw->v[K_K][idx[K_K]];
            p->mode = (mmt_mode)sw->v[K_DTYPE][idx[K_DTYPE]];
            const int block = (int)sw->v[K_SCALE][idx[K_SCALE]];
            if (block && !mmt_mode_block_scaled(p->mode) && mmt_mode_with_block_scales(p->mode, &p->mode) != 0) {
                st = mmt_yaml_error(err, file, e, "scale: block takes an FP8 dtype (e4m3, e5m2), not %s",
                                    mmt_mode_name(p->mode));
                break;
            }
            p->dtype = mmt_mode_dtype(p->mode);
            p->out = sw->v[K_OUT][idx[K_OUT]] == OUT_AS_INPUT ? mmt_mode_default_out(p->mode)
                                                                : (mmt_dtype)sw->v[K_OUT][idx[K_OUT]];
            p->layout = (mmt_layout)sw->v[K_LAYOUT][idx[K_LAYOUT]];
            p->trans_a = (int)sw->v[K_TRANS_A][idx[K_TRANS_A]];
            p->trans_b = (int)sw->v[K_TRANS_B][idx[K_TRANS_B]];
            for (int k = N_KEYS - 1; k >= 0 && ++idx[k] == sw->n[k]; k--) idx[k] = 0;
            const char *why = mmt_problem_check(p);
            if (!why && hosts[count - 1] && mmt_mode_block_scaled(p->mode))
                why = "block scales take device memory (mmt_gemm_scaled): not host: true";
            if (why) {
                char name[128];
                mmt_problem_format(p, name, sizeof name);
                st = mmt_yaml_error(err, file, e, "%s: %s", name, why);
                break;
            }
        }
    }
    free(sw);
    if (st == MMT_OK) st = drop_repeats(probs, hosts, &count, err);
    if (st != MMT_OK) {
        free(probs);
        free(hosts);
        return st;
    }
    *out = probs;
    if (host) *host = hosts;
    else free(hosts);
    *n = count;
    return MMT_OK;
}

mmt_status mmt_shapes_load_text(const char *name, const char *text, size_t size, mmt_problem **out,
                                unsigned char **host, size_t *n, mmt_err *err)
{
    *out = NULL;
    if (host) *host = NULL;
    *n = 0;
    if (!name) name = "<shapes>";
    mmt_yaml_doc d;
    mmt_status st = mmt_yaml_load(&d, name, text, size, err);
    if (st == MMT_OK) st = read_doc(&d, name, out, host, n, err);
    mmt_yaml_free(&d);
    return st;
}

mmt_status mmt_shapes_load_file(const char *path, mmt_problem **out, unsigned char **host, size_t *n, mmt_err *err)
{
    *out = NULL;
    if (host) *host = NULL;
    *n = 0;
    char *text;
    size_t size;
    FORWARD_IF_ERROR(mmt_yaml_read_file(path, &text, &size, err));
    mmt_status st = mmt_shapes_load_text(path, text, size, out, host, n, err);
    free(text);
    return st;
}
