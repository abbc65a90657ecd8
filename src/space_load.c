/* space_load.c - search spaces (see space.h) loaded from YAML and checked once at load time
 * (names, duplicates, defaults). Every name in an expression is bound at load time to a
 * slot of one flat array (params, then derived values, then what the environment
 * provides), so evaluating a configuration (space.c) does no name lookups. */
#include "space_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "yaml_util.h"

static const char *const problem_names[] = {"M",       "N",       "K",    "TRANS_A",     "TRANS_B", "elem_bytes",
                                            "c_bytes", "ALIGN_A", "ALIGN_B", "MODE", "REPRODUCIBLE"};
_Static_assert(sizeof problem_names / sizeof *problem_names == N_PROBLEM, "N_PROBLEM counts the problem's names");

static const char *const reserved_names[] = {"true", "false", "ceil_div", "min", "max", "log2", "pow2", "abs"};

enum {
    TOP_TEMPLATE, TOP_ENTRY, TOP_MODES, TOP_ARCH_SPECIFIC, TOP_PARAMS, TOP_STRASSEN, TOP_ADDED, TOP_DERIVED,
    TOP_CONSTRAINTS, TOP_PRUNE, TOP_LAUNCH, TOP_DEFAULTS, TOP_DEFAULT, N_TOP
};
static const char *const top_keys[N_TOP] = {"template", "entry",       "modes", "arch_specific", "params",
                                            "strassen", "added",       "derived", "constraints", "prune",
                                            "launch",   "defaults",    "default"};
static const int top_required[N_TOP] = {[TOP_TEMPLATE] = 1, [TOP_ENTRY] = 1, [TOP_MODES] = 1, [TOP_PARAMS] = 1,
                                        [TOP_DEFAULT] = 1};

/* A plain scalar in a [ ] or { } list ends at a comma, so "max(A, B)" arrives as "max(A". */
static const char comma_hint[] = " (in a [ ] or { } list, quote expressions that contain commas)";

typedef struct loader {
    space_impl *im;
    mmt_yaml_doc *d;
    const char *file;
    mmt_err *err;
    /* state of the name check of one expression */
    const yaml_node_t *node;
    const char *text;
    int visible_derived; /* derived values [0, visible_derived) may be used */
    int env_only;        /* a `when`: the problem and the device only (no configuration is chosen yet) */
    int in_derived;      /* a derived value: compiled in, so it must not read the levels param */
    uint64_t mask;
    uint32_t params; /* the params it reads, through derived values too */
    mmt_status st;
} loader;

static int find_derived(const mmt_space *s, const char *name, size_t len)
{
    for (int i = 0; i < s->n_derived; i++)
        if (strlen(s->derived[i].name) == len && memcmp(s->derived[i].name, name, len) == 0) return i;
    return -1;
}

static int find_env(const space_impl *im, const char *name, size_t len)
{
    for (int i = 0; i < im->n_env; i++)
        if (strlen(im->env_names[i]) == len && memcmp(im->env_names[i], name, len) == 0) return i;
    return -1;
}

/* Column of character off of a scalar's text, where that can be known. */
static int col_in(const yaml_node_t *n, const char *text, size_t off)
{
    int c = mmt_yaml_col(n);
    if (strchr(text, '\n')) return c;
    switch (n->data.scalar.style) {
    case YAML_PLAIN_SCALAR_STYLE: return c + (int)off;
    case YAML_SINGLE_QUOTED_SCALAR_STYLE:
    case YAML_DOUBLE_QUOTED_SCALAR_STYLE: return c + 1 + (int)off;
    default: return c;
    }
}

static void check_name(void *user, const char *name, size_t len)
{
    loader *L = user;
    if (L->st != MMT_OK) return;
    const mmt_space *s = &L->im->pub;
    int col = col_in(L->node, L->text, (size_t)(name - L->text));
    int line = mmt_yaml_line(L->node);
    if (len > 7 && memcmp(name, "device.", 7) == 0) {
        int k = find_env(L->im, name, len);
        if (k < 0) {
            if (len - 7 >= sizeof ((mmt_device_prop *)0)->name) {
                L->st = mmt_yaml_error_at(L->err, L->file, line, col, "device property name '%.*s' is too long",
                                          (int)len, name);
                return;
            }
            if (L->im->n_env == MAX_ENV) {
                L->st = mmt_yaml_error_at(L->err, L->file, line, col, "too many device properties");
                return;
            }
            k = L->im->n_env++;
            memcpy(L->im->env_names[k], name, len);
            L->im->env_names[k][len] = '\0';
        }
        L->mask |= (uint64_t)1 << k;
        return;
    }
    if (L->env_only && (find_param(s, name, len) >= 0 || find_derived(s, name, len) >= 0)) {
        L->st = mmt_yaml_error_at(L->err, L->file, line, col,
                                  "'%.*s': a `when` reads the problem and the device only (M N K TRANS_A TRANS_B "
                                  "elem_bytes c_bytes ALIGN_A ALIGN_B MODE REPRODUCIBLE device.NAME), not params or "
                                  "derived values",
                                  (int)len, name);
        return;
    }
    int i = find_param(s, name, len);
    if (i >= 0 && i == s->levels_param && L->in_derived) {
        L->st = mmt_yaml_error_at(L->err, L->file, line, col,
                                  "a derived value cannot read '%.*s': the runtime applies the Strassen levels, "
                                  "they are not compiled into the instance",
                                  (int)len, name);
        return;
    }
    if (i >= 0) {
        L->params |= (uint32_t)1 << i;
        return;
    }
    int j = find_derived(s, name, len);
    if (j >= 0 && j < L->visible_derived) {
        L->params |= L->im->derived_params[j];
        return;
    }
    if (j >= 0) {
        L->st = mmt_yaml_error_at(L->err, L->file, line, col,
                                  j == L->visible_derived ? "derived value '%.*s' uses itself"
                                                          : "'%.*s' is used before it is derived (derived values "
                                                            "may use only those above them)",
                                  (int)len, name);
        return;
    }
    for (int k = 0; k < N_PROBLEM; k++)
        if (strlen(problem_names[k]) == len && memcmp(problem_names[k], name, len) == 0) {
            L->mask |= (uint64_t)1 << k;
            return;
        }
    L->st = mmt_yaml_error_at(L->err, L->file, line, col,
                              "unknown name '%.*s' (not a param, an earlier derived value, M N K TRANS_A TRANS_B "
                              "elem_bytes c_bytes ALIGN_A ALIGN_B MODE REPRODUCIBLE or device.NAME)",
                              (int)len, name);
}

static int resolve_slot(void *user, const char *name, size_t len)
{
    const space_impl *im = user;
    int i = find_param(&im->pub, name, len);
    if (i >= 0) return i;
    if ((i = find_derived(&im->pub, name, len)) >= 0) return SLOT_DERIVED + i;
    if ((i = find_env(im, name, len)) >= 0) return SLOT_ENV + i;
    return -1;
}


static int unbalanced(const char *text)
{
    int open = 0;
    for (; *text; text++) open += (*text == '(') - (*text == ')');
    return open != 0;
}

/* Parses the expression at node into x (owned by the space from here on), checks its
 * names and binds them to slots. */
static mmt_status load_expr(loader *L, const yaml_node_t *node, const char *what, mmt_space_expr *x,
                            int visible_derived, uint64_t *mask)
{
    const char *text;
    if (node->type != YAML_SCALAR_NODE && (!node->tag || !strncmp((const char *)node->tag, "tag:yaml.org,2002:", 18)))
        return mmt_yaml_error(L->err, L->file, node,
                              "%s must be an expression, not %s (quote expressions that start with '!' or "
                              "contain ': ')",
                              what, mmt_yaml_kind(node));
    FORWARD_IF_ERROR(mmt_yaml_scalar(L->file, node, what, &text, L->err));
    x->line = mmt_yaml_line(node);
    x->col = mmt_yaml_col(node);
    x->text = strdup(text);
    RETURN_ERROR_IF(!x->text, L->err, MMT_OUT_OF_MEMORY, "out of memory");
    int ecol = 0;
    mmt_err tmp;
    if (mmt_expr_parse(text, &x->expr, &ecol, &tmp) != MMT_OK)
        return mmt_yaml_error_at(L->err, L->file, x->line, col_in(node, text, ecol > 0 ? (size_t)ecol - 1 : 0),
                                 "%s: %s%s", what, tmp.msg, unbalanced(text) ? comma_hint : "");
    /* names point into the expression's own copy of the text */
    L->node = node;
    L->text = mmt_expr_text(x->expr);
    L->visible_derived = visible_derived;
    L->mask = 0;
    L->params = 0;
    L->st = MMT_OK;
    mmt_expr_names(x->expr, check_name, L);
    FORWARD_IF_ERROR(L->st);
    mmt_expr_bind(x->expr, resolve_slot, L->im);
    *mask = L->mask;
    return MMT_OK;
}

/* A new param or derived name: an identifier, not taken, not reserved. */
static mmt_status check_new_name(loader *L, const yaml_node_t *key, const char *name, const char *kind)
{
    const mmt_space *s = &L->im->pub;
    int ok = name[0] && !(name[0] >= '0' && name[0] <= '9');
    for (const char *p = name; *p; p++)
        ok &= (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_';
    if (!ok)
        return mmt_yaml_error(L->err, L->file, key,
                              "%s name '%s' is not a valid name (letters, digits and _, not starting with a digit)%s",
                              kind, name, strpbrk(name, "()") ? comma_hint : "");
    if (strlen(name) >= sizeof s->params[0].name)
        return mmt_yaml_error(L->err, L->file, key, "%s name '%s' is too long (at most %d characters)", kind, name,
                              (int)sizeof s->params[0].name - 1);
    for (int k = 0; k < N_PROBLEM; k++)
        if (!strcmp(name, problem_names[k]))
            return mmt_yaml_error(L->err, L->file, key, "%s name '%s' is taken by the problem", kind, name);
    for (size_t k = 0; k < sizeof reserved_names / sizeof reserved_names[0]; k++)
        if (!strcmp(name, reserved_names[k]))
            return mmt_yaml_error(L->err, L->file, key, "%s name '%s' is reserved", kind, name);
    if (find_param(s, name, strlen(name)) >= 0)
        return mmt_yaml_error(L->err, L->file, key, "%s '%s' repeats the name of a param", kind, name);
    if (find_derived(s, name, strlen(name)) >= 0)
        return mmt_yaml_error(L->err, L->file, key, "%s '%s' repeats the name of a derived value", kind, name);
    return MMT_OK;
}

static mmt_status load_string(loader *L, const yaml_node_t *n, const char *key, char **out)
{
    const char *text;
    char what[64];
    snprintf(what, sizeof what, "'%s'", key);
    FORWARD_IF_ERROR(mmt_yaml_scalar(L->file, n, what, &text, L->err));
    if (!text[0]) return mmt_yaml_error(L->err, L->file, n, "'%s' is empty", key);
    *out = strdup(text);
    RETURN_ERROR_IF(!*out, L->err, MMT_OUT_OF_MEMORY, "out of memory");
    return MMT_OK;
}

static mmt_status load_modes(loader *L, yaml_node_t *n)
{
    mmt_space *s = &L->im->pub;
    int count = n->type == YAML_SEQUENCE_NODE ? MMT_YAML_NITEMS(n) : 1;
    if (count == 0) return mmt_yaml_error(L->err, L->file, n, "'modes' is empty");
    for (int i = 0; i < count; i++) {
        yaml_node_t *item = n->type == YAML_SEQUENCE_NODE ? MMT_YAML_ITEM(L->d, n, i) : n;
        const char *text;
        FORWARD_IF_ERROR(mmt_yaml_scalar(L->file, item, "a mode", &text, L->err));
        mmt_mode m;
        if (mmt_mode_parse(text, &m) != 0)
            return mmt_yaml_error(L->err, L->file, item, "unknown mode '%s' (f32 f64 bf16 f16 tf32 f32x3)", text);
        s->modes |= 1u << m;
    }
    return MMT_OK;
}

static mmt_status load_params(loader *L, yaml_node_t *n)
{
    mmt_space *s = &L->im->pub;
    if (n->type != YAML_MAPPING_NODE)
        return mmt_yaml_error(L->err, L->file, n, "'params' must be a mapping of NAME: [values], not %s",
                              mmt_yaml_kind(n));
    if (MMT_YAML_NPAIRS(n) == 0) return mmt_yaml_error(L->err, L->file, n, "'params' is empty");
    for (int i = 0; i < MMT_YAML_NPAIRS(n); i++) {
        yaml_node_t *key = mmt_yaml_node(L->d, MMT_YAML_PAIRS(n)[i].key);
        yaml_node_t *val = mmt_yaml_node(L->d, MMT_YAML_PAIRS(n)[i].value);
        const char *name;
        FORWARD_IF_ERROR(mmt_yaml_scalar(L->file, key, "a param name", &name, L->err));
        if (find_param(s, name, strlen(name)) >= 0)
            return mmt_yaml_error(L->err, L->file, key, "duplicate param '%s'", name);
        FORWARD_IF_ERROR(check_new_name(L, key, name, "param"));
        if (s->n_params == MMT_SPACE_MAX_PARAMS)
            return mmt_yaml_error(L->err, L->file, key, "too many params (at most %d)", MMT_SPACE_MAX_PARAMS);
        mmt_space_param *p = &s->params[s->n_params];
        int count = val->type == YAML_SEQUENCE_NODE ? MMT_YAML_NITEMS(val) : 1;
        if (val->type == YAML_MAPPING_NODE)
            return mmt_yaml_error(L->err, L->file, val, "param '%s' needs a list of integers, not a mapping", name);
        if (count == 0) return mmt_yaml_error(L->err, L->file, val, "param '%s' has no values", name);
        if (count > MMT_SPACE_MAX_VALUES)
            return mmt_yaml_error(L->err, L->file, val, "param '%s' has %d values (at most %d)", name, count,
                                  MMT_SPACE_MAX_VALUES);
        for (int j = 0; j < count; j++) {
            yaml_node_t *item = val->type == YAML_SEQUENCE_NODE ? MMT_YAML_ITEM(L->d, val, j) : val;
            const char *text;
            int64_t v;
            FORWARD_IF_ERROR(mmt_yaml_scalar(L->file, item, "a param value", &text, L->err));
            if (mmt_yaml_parse_int(text, &v) != 0)
                return mmt_yaml_error(L->err, L->file, item, "value '%s' of param '%s' is not an integer", text,
                                      name);
            for (int k = 0; k < j; k++)
                if (p->values[k] == v)
                    return mmt_yaml_error(L->err, L->file, item, "value %lld of param '%s' is repeated",
                                          (long long)v, name);
            p->values[j] = v;
        }
        snprintf(p->name, sizeof p->name, "%s", name);
        p->n_values = count;
        s->n_params++;
    }
    return MMT_OK;
}

static mmt_status load_derived(loader *L, yaml_node_t *n)
{
    mmt_space *s = &L->im->pub;
    if (n->type != YAML_MAPPING_NODE)
        return mmt_yaml_error(L->err, L->file, n, "'derived' must be a mapping of NAME: expression, not %s",
                              mmt_yaml_kind(n));
    for (int i = 0; i < MMT_YAML_NPAIRS(n); i++) {
        yaml_node_t *key = mmt_yaml_node(L->d, MMT_YAML_PAIRS(n)[i].key);
        const char *name;
        FORWARD_IF_ERROR(mmt_yaml_scalar(L->file, key, "a derived name", &name, L->err));
        if (find_derived(s, name, strlen(name)) >= 0)
            return mmt_yaml_error(L->err, L->file, key, "duplicate derived value '%s'", name);
        FORWARD_IF_ERROR(check_new_name(L, key, name, "derived value"));
        if (s->n_derived == MMT_SPACE_MAX_DERIVED)
            return mmt_yaml_error(L->err, L->file, key, "too many derived values (at most %d)",
                                  MMT_SPACE_MAX_DERIVED);
        snprintf(s->derived[s->n_derived++].name, sizeof s->derived[0].name, "%s", name);
    }
    /* every name is known before any expression, so a forward use gets a precise message */
    for (int j = 0; j < s->n_derived; j++) {
        char what[64];
        snprintf(what, sizeof what, "derived %s", s->derived[j].name);
        L->in_derived = 1;
        mmt_status st = load_expr(L, mmt_yaml_node(L->d, MMT_YAML_PAIRS(n)[j].value), what, &s->derived[j], j,
                                  &L->im->derived_mask[j]);
        L->in_derived = 0;
        FORWARD_IF_ERROR(st);
        L->im->derived_params[j] = L->params;
    }
    return MMT_OK;
}

/* `strassen: NAME`: a param whose values are Strassen-Winograd levels, 0 among them. */
static mmt_status load_strassen(loader *L, yaml_node_t *n)
{
    mmt_space *s = &L->im->pub;
    const char *name;
    FORWARD_IF_ERROR(mmt_yaml_scalar(L->file, n, "'strassen'", &name, L->err));
    int i = find_param(s, name, strlen(name));
    if (i < 0)
        return mmt_yaml_error(L->err, L->file, n, "strassen: '%s' is not a param (it names the param of the levels)",
                              name);
    int zero = 0;
    for (int j = 0; j < s->params[i].n_values; j++) {
        const int64_t v = s->params[i].values[j];
        if (v < 0 || v > MMT_STRASSEN_MAX_LEVELS)
            return mmt_yaml_error(L->err, L->file, n, "strassen: %s=%lld is not a number of levels (0 to %d)", name,
                                  (long long)v, MMT_STRASSEN_MAX_LEVELS);
        zero |= v == 0;
    }
    if (!zero)
        return mmt_yaml_error(L->err, L->file, n, "strassen: the values of %s must include 0 (the classic algorithm)",
                              name);
    s->levels_param = i;
    s->added_mask |= (uint64_t)1 << i; /* its text at 0 is the classic algorithm's, as before it existed */
    return MMT_OK;
}

/* added: [NAME, ...]: params added after configurations of the space were recorded, each
 * with 0 among its values (what the template did before the knob existed). */
static mmt_status load_added(loader *L, yaml_node_t *n)
{
    mmt_space *s = &L->im->pub;
    const int count = n->type == YAML_SEQUENCE_NODE ? MMT_YAML_NITEMS(n) : 1;
    for (int k = 0; k < count; k++) {
        yaml_node_t *item = n->type == YAML_SEQUENCE_NODE ? MMT_YAML_ITEM(L->d, n, k) : n;
        const char *name;
        FORWARD_IF_ERROR(mmt_yaml_scalar(L->file, item, "'added'", &name, L->err));
        const int i = find_param(s, name, strlen(name));
        if (i < 0) return mmt_yaml_error(L->err, L->file, item, "added: '%s' is not a param", name);
        int zero = 0;
        for (int j = 0; j < s->params[i].n_values; j++) zero |= s->params[i].values[j] == 0;
        if (!zero)
            return mmt_yaml_error(L->err, L->file, item,
                                  "added: the values of %s must include 0 (what the template did before it)", name);
        s->added_mask |= (uint64_t)1 << i;
    }
    return MMT_OK;
}

/* A list of boolean expressions: `constraints` (what a valid configuration is) or `prune`
 * (what tuning need not measure). */
static mmt_status load_conditions(loader *L, yaml_node_t *n, const char *key, mmt_space_expr *list, int *count,
                                  uint64_t *masks, uint32_t *params)
{
    const mmt_space *s = &L->im->pub;
    if (n->type != YAML_SEQUENCE_NODE)
        return mmt_yaml_error(L->err, L->file, n, "'%s' must be a list of expressions, not %s", key,
                              mmt_yaml_kind(n));
    if (MMT_YAML_NITEMS(n) > MMT_SPACE_MAX_CONSTRAINTS)
        return mmt_yaml_error(L->err, L->file, n, "too many %s (at most %d)", key, MMT_SPACE_MAX_CONSTRAINTS);
    for (int i = 0; i < MMT_YAML_NITEMS(n); i++) {
        int j = (*count)++;
        FORWARD_IF_ERROR(load_expr(L, MMT_YAML_ITEM(L->d, n, i), key, &list[j], s->n_derived, &masks[j]));
        params[j] = L->params;
    }
    return MMT_OK;
}

/* A launch value that is a list of `count` expressions (grid, block: 3; a TMA box: 2). */
static mmt_status load_list(loader *L, yaml_node_t *n, const char *key, int count, mmt_space_expr *x, uint64_t *mask)
{
    if (n->type != YAML_SEQUENCE_NODE || MMT_YAML_NITEMS(n) != count) {
        int split = 0;
        for (int i = 0; n->type == YAML_SEQUENCE_NODE && i < MMT_YAML_NITEMS(n); i++) {
            yaml_node_t *item = MMT_YAML_ITEM(L->d, n, i);
            split |= item->type == YAML_SCALAR_NODE && unbalanced((const char *)item->data.scalar.value);
        }
        return mmt_yaml_error(L->err, L->file, n, "launch '%s' must be a list of %d expressions%s", key, count,
                              split ? comma_hint : "");
    }
    char what[64];
    for (int i = 0; i < count; i++) {
        snprintf(what, sizeof what, "launch %s[%d]", key, i);
        FORWARD_IF_ERROR(load_expr(L, MMT_YAML_ITEM(L->d, n, i), what, &x[i], L->im->pub.n_derived, &mask[i]));
    }
    return MMT_OK;
}

/* An optional launch expression: its text, or "0" where the file leaves it out. */
static mmt_status load_optional(loader *L, yaml_node_t *map, yaml_node_t *n, const char *what, mmt_space_expr *x,
                                uint64_t *mask)
{
    if (n) return load_expr(L, n, what, x, L->im->pub.n_derived, mask);
    x->line = mmt_yaml_line(map);
    x->col = mmt_yaml_col(map);
    x->text = strdup("0");
    RETURN_ERROR_IF(!x->text, L->err, MMT_OUT_OF_MEMORY, "out of memory");
    mmt_err tmp;
    int col;
    return mmt_expr_parse("0", &x->expr, &col, &tmp);
}

static mmt_status load_launch(loader *L, yaml_node_t *n)
{
    space_impl *im = L->im;
    mmt_space *s = &im->pub;
    if (n->type != YAML_MAPPING_NODE)
        return mmt_yaml_error(L->err, L->file, n, "'launch' must be a mapping with grid, block and smem, not %s",
                              mmt_yaml_kind(n));
    enum { GRID, BLOCK, SMEM, WORKSPACE, TMA_A, TMA_B, TMA_C, TMA_PACKED, TMA_TF32, N_KEYS };
    yaml_node_t *vals[N_KEYS] = {NULL};
    static const char *const keys[N_KEYS] = {"grid", "block", "smem", "workspace", "tma_a", "tma_b", "tma_c",
                                                   "tma_packed", "tma_tf32"};
    for (int i = 0; i < MMT_YAML_NPAIRS(n); i++) {
        yaml_node_t *key = mmt_yaml_node(L->d, MMT_YAML_PAIRS(n)[i].key);
        const char *name;
        FORWARD_IF_ERROR(mmt_yaml_scalar(L->file, key, "a launch key", &name, L->err));
        int k = 0;
        while (k < N_KEYS && strcmp(name, keys[k]) != 0) k++;
        if (k == N_KEYS)
            return mmt_yaml_error(L->err, L->file, key,
                                  "unknown launch key '%s' (grid, block, smem, workspace, tma_a, tma_b, tma_c, "
                                  "tma_packed, tma_tf32)",
                                  name);
        if (vals[k]) return mmt_yaml_error(L->err, L->file, key, "duplicate launch key '%s'", name);
        vals[k] = mmt_yaml_node(L->d, MMT_YAML_PAIRS(n)[i].value);
    }
    for (int k = GRID; k <= BLOCK; k++)
        if (!vals[k]) return mmt_yaml_error(L->err, L->file, n, "launch is missing '%s'", keys[k]);
    s->has_launch = 1;
    FORWARD_IF_ERROR(load_list(L, vals[GRID], "grid", 3, s->grid, im->grid_mask));
    FORWARD_IF_ERROR(load_list(L, vals[BLOCK], "block", 3, s->block, im->block_mask));
    FORWARD_IF_ERROR(load_optional(L, n, vals[SMEM], "launch smem", &s->smem, &im->smem_mask));
    FORWARD_IF_ERROR(load_optional(L, n, vals[WORKSPACE], "launch workspace", &s->workspace, &im->workspace_mask));
    for (int o = 0; o < 3; o++) {
        yaml_node_t *v = vals[TMA_A + o];
        if (v) FORWARD_IF_ERROR(load_list(L, v, keys[TMA_A + o], 2, s->tma[o], im->tma_mask[o]));
        else
            for (int i = 0; i < 2; i++)
                FORWARD_IF_ERROR(load_optional(L, n, NULL, keys[TMA_A + o], &s->tma[o][i], &im->tma_mask[o][i]));
    }
    FORWARD_IF_ERROR(
        load_optional(L, n, vals[TMA_PACKED], "launch tma_packed", &s->tma_packed, &im->tma_packed_mask));
    return load_optional(L, n, vals[TMA_TF32], "launch tma_tf32", &s->tma_tf32, &im->tma_tf32_mask);
}

/* The pairs of a mapping of param: value, each checked to be a param given once; what:
 * "default", "defaults[2] config" for messages. */
typedef mmt_status (*value_fn)(loader *L, int param, yaml_node_t *key, yaml_node_t *val, void *user);
static mmt_status load_pairs(loader *L, yaml_node_t *n, const char *what, value_fn fn, void *user)
{
    mmt_space *s = &L->im->pub;
    if (n->type != YAML_MAPPING_NODE)
        return mmt_yaml_error(L->err, L->file, n, "'%s' must be a mapping of param: value, not %s", what,
                              mmt_yaml_kind(n));
    int seen[MMT_SPACE_MAX_PARAMS] = {0};
    for (int i = 0; i < MMT_YAML_NPAIRS(n); i++) {
        yaml_node_t *key = mmt_yaml_node(L->d, MMT_YAML_PAIRS(n)[i].key);
        const char *name;
        FORWARD_IF_ERROR(mmt_yaml_scalar(L->file, key, "a param name", &name, L->err));
        int p = find_param(s, name, strlen(name));
        if (p < 0) return mmt_yaml_error(L->err, L->file, key, "%s: '%s' is not a param", what, name);
        if (seen[p]) return mmt_yaml_error(L->err, L->file, key, "%s: duplicate param '%s'", what, name);
        seen[p] = 1;
        FORWARD_IF_ERROR(fn(L, p, key, mmt_yaml_node(L->d, MMT_YAML_PAIRS(n)[i].value), user));
    }
    for (int p = 0; p < s->n_params && !strcmp(what, "default"); p++)
        if (!seen[p]) return mmt_yaml_error(L->err, L->file, n, "default is missing param '%s'", s->params[p].name);
    return MMT_OK;
}

/* `default:` gives every param a number among its values. */
static mmt_status default_value(loader *L, int p, yaml_node_t *key, yaml_node_t *val, void *user)
{
    (void)key, (void)user;
    mmt_space *s = &L->im->pub;
    const char *name = s->params[p].name, *text;
    FORWARD_IF_ERROR(mmt_yaml_scalar(L->file, val, "a default value", &text, L->err));
    int64_t x;
    if (mmt_yaml_parse_int(text, &x) != 0)
        return mmt_yaml_error(L->err, L->file, val, "default value '%s' of '%s' is not an integer", text, name);
    if (!among_values(&s->params[p], x))
        return mmt_yaml_error(L->err, L->file, val, "default %s=%lld is not among the values of '%s'", name,
                              (long long)x, name);
    s->defaults[p] = x;
    return MMT_OK;
}

static mmt_status load_default(loader *L, yaml_node_t *n) { return load_pairs(L, n, "default", default_value, NULL); }

/* An entry of `defaults:` sets a param to an expression of the problem and the device; a
 * number (an expression without names) is checked against the param's values here. */
static mmt_status entry_value(loader *L, int p, yaml_node_t *key, yaml_node_t *val, void *user)
{
    (void)key;
    const int i = *(const int *)user;
    mmt_space *s = &L->im->pub;
    mmt_space_shape_default *d = &s->shape_defaults[i];
    const int j = d->n_set++;
    mmt_space_expr *x = &d->set[j];
    d->set_param[j] = p;
    memcpy(x->name, s->params[p].name, sizeof x->name); /* the same size, NUL-terminated */
    char what[80];
    snprintf(what, sizeof what, "defaults[%d] config %s", i, x->name);
    L->env_only = 1;
    mmt_status st = load_expr(L, val, what, x, 0, &L->im->set_mask[i][j]);
    L->env_only = 0;
    FORWARD_IF_ERROR(st);
    int64_t v;
    if (L->im->set_mask[i][j] == 0 && mmt_expr_eval_slots(x->expr, NULL, NULL, NULL, &v, NULL) == MMT_OK &&
        !among_values(&s->params[p], v))
        return mmt_yaml_error(L->err, L->file, val, "defaults[%d] config %s=%lld is not among the values of '%s'", i,
                              x->name, (long long)v, x->name);
    return MMT_OK;
}

/* `defaults:` (after `default:`, whose values fill what an entry leaves out): a list of
 * {when: expression, config: {param: value, ...}}. */
static mmt_status load_shape_defaults(loader *L, yaml_node_t *n)
{
    mmt_space *s = &L->im->pub;
    if (n->type != YAML_SEQUENCE_NODE)
        return mmt_yaml_error(L->err, L->file, n, "'defaults' must be a list of {when: expression, config: {...}}, not %s",
                              mmt_yaml_kind(n));
    if (MMT_YAML_NITEMS(n) > MMT_SPACE_MAX_DEFAULTS)
        return mmt_yaml_error(L->err, L->file, n, "too many defaults (at most %d)", MMT_SPACE_MAX_DEFAULTS);
    for (int i = 0; i < MMT_YAML_NITEMS(n); i++) {
        yaml_node_t *item = MMT_YAML_ITEM(L->d, n, i);
        if (item->type != YAML_MAPPING_NODE)
            return mmt_yaml_error(L->err, L->file, item, "defaults[%d] must be a mapping {when: ..., config: ...}, not %s",
                                  i, mmt_yaml_kind(item));
        yaml_node_t *when = NULL, *config = NULL;
        for (int j = 0; j < MMT_YAML_NPAIRS(item); j++) {
            yaml_node_t *key = mmt_yaml_node(L->d, MMT_YAML_PAIRS(item)[j].key);
            yaml_node_t *val = mmt_yaml_node(L->d, MMT_YAML_PAIRS(item)[j].value);
            const char *name;
            FORWARD_IF_ERROR(mmt_yaml_scalar(L->file, key, "a key", &name, L->err));
            yaml_node_t **slot = !strcmp(name, "when") ? &when : !strcmp(name, "config") ? &config : NULL;
            if (!slot) return mmt_yaml_error(L->err, L->file, key, "defaults[%d]: unknown key '%s' (when, config)", i, name);
            if (*slot) return mmt_yaml_error(L->err, L->file, key, "defaults[%d]: duplicate key '%s'", i, name);
            *slot = val;
        }
        if (!when || !config)
            return mmt_yaml_error(L->err, L->file, item, "defaults[%d] is missing '%s'", i, when ? "config" : "when");
        mmt_space_shape_default *d = &s->shape_defaults[s->n_shape_defaults++];
        char what[48];
        snprintf(what, sizeof what, "defaults[%d] when", i);
        L->env_only = 1;
        mmt_status st = load_expr(L, when, what, &d->when, 0, &L->im->when_mask[i]);
        L->env_only = 0;
        FORWARD_IF_ERROR(st);
        snprintf(what, sizeof what, "defaults[%d] config", i);
        FORWARD_IF_ERROR(load_pairs(L, config, what, entry_value, &i));
    }
    return MMT_OK;
}

static mmt_status load_doc(loader *L)
{
    space_impl *im = L->im;
    mmt_space *s = &im->pub;
    /* the problem names come first among the environment slots */
    for (int k = 0; k < N_PROBLEM; k++) snprintf(im->env_names[k], sizeof im->env_names[k], "%s", problem_names[k]);
    im->n_env = N_PROBLEM;
    yaml_node_t *root = mmt_yaml_root(L->d);
    if (root->type != YAML_MAPPING_NODE)
        return mmt_yaml_error(L->err, L->file, root, "a search space must be a mapping (template, params, ...), not %s",
                              mmt_yaml_kind(root));
    yaml_node_t *vals[N_TOP] = {NULL};
    for (int i = 0; i < MMT_YAML_NPAIRS(root); i++) {
        yaml_node_t *key = mmt_yaml_node(L->d, MMT_YAML_PAIRS(root)[i].key);
        const char *name;
        FORWARD_IF_ERROR(mmt_yaml_scalar(L->file, key, "a key", &name, L->err));
        int k = 0;
        while (k < N_TOP && strcmp(name, top_keys[k]) != 0) k++;
        if (strcmp(name, "dtypes") == 0) k = TOP_MODES; /* the older name of modes */
        if (k == N_TOP)
            return mmt_yaml_error(L->err, L->file, key,
                                  "unknown key '%s' (template entry modes arch_specific params strassen derived "
                                  "constraints prune launch defaults default)",
                                  name);
        if (vals[k]) return mmt_yaml_error(L->err, L->file, key, "duplicate key '%s'", name);
        vals[k] = mmt_yaml_node(L->d, MMT_YAML_PAIRS(root)[i].value);
    }
    for (int k = 0; k < N_TOP; k++)
        if (top_required[k] && !vals[k]) return mmt_yaml_error(L->err, L->file, root, "missing key '%s'", top_keys[k]);
    FORWARD_IF_ERROR(load_string(L, vals[TOP_TEMPLATE], "template", &s->template));
    if (s->template[0] == '/' || strstr(s->template, ".."))
        return mmt_yaml_error(L->err, L->file, vals[TOP_TEMPLATE],
                              "template '%s' must be a path inside templates/ (no leading / or ..)", s->template);
    FORWARD_IF_ERROR(load_string(L, vals[TOP_ENTRY], "entry", &s->entry));
    FORWARD_IF_ERROR(load_modes(L, vals[TOP_MODES]));
    if (vals[TOP_ARCH_SPECIFIC]) {
        const char *v;
        FORWARD_IF_ERROR(mmt_yaml_scalar(L->file, vals[TOP_ARCH_SPECIFIC], "arch_specific", &v, L->err));
        if (strcmp(v, "true") != 0 && strcmp(v, "false") != 0)
            return mmt_yaml_error(L->err, L->file, vals[TOP_ARCH_SPECIFIC], "arch_specific is true or false, not '%s'",
                                  v);
        s->arch_specific = strcmp(v, "true") == 0;
    }
    FORWARD_IF_ERROR(load_params(L, vals[TOP_PARAMS]));
    if (vals[TOP_STRASSEN]) FORWARD_IF_ERROR(load_strassen(L, vals[TOP_STRASSEN]));
    if (vals[TOP_ADDED]) FORWARD_IF_ERROR(load_added(L, vals[TOP_ADDED]));
    if (vals[TOP_DERIVED]) FORWARD_IF_ERROR(load_derived(L, vals[TOP_DERIVED]));
    if (vals[TOP_CONSTRAINTS])
        FORWARD_IF_ERROR(load_conditions(L, vals[TOP_CONSTRAINTS], "constraints", s->constraints, &s->n_constraints,
                                         im->constraint_mask, im->constraint_params));
    if (vals[TOP_PRUNE])
        FORWARD_IF_ERROR(
            load_conditions(L, vals[TOP_PRUNE], "prune", s->prune, &s->n_prune, im->prune_mask, im->prune_params));
    if (vals[TOP_LAUNCH]) FORWARD_IF_ERROR(load_launch(L, vals[TOP_LAUNCH]));
    FORWARD_IF_ERROR(load_default(L, vals[TOP_DEFAULT]));
    if (s->levels_param >= 0 && s->defaults[s->levels_param] != 0)
        return mmt_yaml_error(L->err, L->file, vals[TOP_DEFAULT],
                              "default: %s must be 0: the default serves every problem, with the classic algorithm",
                              s->params[s->levels_param].name);
    return vals[TOP_DEFAULTS] ? load_shape_defaults(L, vals[TOP_DEFAULTS]) : MMT_OK;
}

mmt_status mmt_space_load_text(const char *name, const char *text, size_t size, mmt_space **out, mmt_err *err)
{
    *out = NULL;
    if (!name) name = "<space>";
    space_impl *im = calloc(1, sizeof *im);
    RETURN_ERROR_IF(!im, err, MMT_OUT_OF_MEMORY, "out of memory");
    im->pub.levels_param = -1;
    im->pub.file = strdup(name);
    if (!im->pub.file) {
        free(im);
        return mmt_err_set(err, MMT_OUT_OF_MEMORY, "out of memory");
    }
    mmt_yaml_doc d;
    mmt_status st = mmt_yaml_load(&d, im->pub.file, text, size, err);
    if (st == MMT_OK) {
        loader L = {.im = im, .d = &d, .file = im->pub.file, .err = err};
        st = load_doc(&L);
    }
    mmt_yaml_free(&d);
    if (st != MMT_OK) {
        mmt_space_free(&im->pub);
        return st;
    }
    *out = &im->pub;
    return MMT_OK;
}

mmt_status mmt_space_load_file(const char *path, mmt_space **out, mmt_err *err)
{
    *out = NULL;
    char *text;
    size_t size;
    FORWARD_IF_ERROR(mmt_yaml_read_file(path, &text, &size, err));
    mmt_status st = mmt_space_load_text(path, text, size, out, err);
    free(text);
    return st;
}

static void free_expr(mmt_space_expr *x)
{
    free(x->text);
    mmt_expr_free(x->expr);
    x->text = NULL;
    x->expr = NULL;
}

void mmt_space_free(mmt_space *s)
{
    if (!s) return;
    for (int i = 0; i < s->n_derived; i++) free_expr(&s->derived[i]);
    for (int i = 0; i < s->n_constraints; i++) free_expr(&s->constraints[i]);
    for (int i = 0; i < s->n_prune; i++) free_expr(&s->prune[i]);
    for (int i = 0; i < 3; i++) free_expr(&s->grid[i]), free_expr(&s->block[i]);
    free_expr(&s->smem);
    free_expr(&s->workspace);
    for (int o = 0; o < 3; o++) free_expr(&s->tma[o][0]), free_expr(&s->tma[o][1]);
    free_expr(&s->tma_packed);
    free_expr(&s->tma_tf32);
    for (int i = 0; i < s->n_shape_defaults; i++) {
        free_expr(&s->shape_defaults[i].when);
        for (int j = 0; j < s->shape_defaults[i].n_set; j++) free_expr(&s->shape_defaults[i].set[j]);
    }
    free(s->file);
    free(s->template);
    free(s->entry);
    free((space_impl *)s);
}
