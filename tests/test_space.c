/* test_space.c - search spaces evaluated (src/space.c), on small spaces given as text and
 * on the real ones: a levels param in the configuration, its text and the defines; errors
 * in derived values; the per-shape defaults; enumeration (speed, the real spaces against a
 * brute force, conditions the environment cannot evaluate, its bound). Loading, the full
 * space of tests/data and bad files: test_space_load.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "device.h"
#include "h100.h"
#include "problem.h"
#include "space.h"
#include "space_check.h"

static void test_eval_errors(void)
{
    static const char text[] = "template: t\nentry: e\ndtypes: [f32]\n"
                               "params:\n  A: [0, 1, 2]\n"
                               "derived:\n  Q: 12 / A\n"
                               "default: {A: 1}\n";
    mmt_space *s;
    mmt_err err = {0};
    CHECK_OK(mmt_space_load_text("div.yaml", text, sizeof text - 1, &s, &err), &err);
    if (!s) return;
    mmt_problem p = problem(MMT_F32, 1, 1, 1);
    mmt_space_env env = {.problem = &p};
    mmt_config *all = NULL;
    size_t n = 0;
    CHECK_EQ_INT(mmt_space_enumerate(s, &env, &all, &n, &err), MMT_PARSE);
    CHECK(strstr(err.msg, "div.yaml:7:6: derived Q:") && strstr(err.msg, "division by zero in '12 / A'"));
    mmt_config c;
    mmt_space_default(s, &c);
    int valid;
    int64_t d[1];
    CHECK_OK(mmt_space_check(s, &c, &env, &valid, d, &err), &err);
    CHECK_EQ_INT(d[0], 12);
    mmt_space_free(s);
}

/* `defaults:`: the first entry whose condition holds and whose configuration is valid for the
 * problem, else `default:`; entries give only the params they change; conditions and
 * constraints read REPRODUCIBLE. */
static void test_shape_defaults(void)
{
    static const char text[] = "template: t\nentry: e\nmodes: [f32]\n"
                               "params:\n  A: [1, 2, 4]\n  B: [0, 1]\n  S: [1, 4]\n"
                               "constraints:\n  - A <= N\n  - S == 1 || B || !REPRODUCIBLE\n"
                               "defaults:\n"
                               "  - {when: M <= 16 && REPRODUCIBLE, config: {A: 2}}\n"
                               "  - {when: M <= 16, config: {A: 4, S: 4}}\n"
                               "  - {when: device.wide > 0, config: {A: 2, B: 1}}\n"
                               "  - {when: 12 / (M - 100) > 0, config: {A: 2}}\n"
                               "  - {when: M > 1000, config: {A: \"min(4, pow2(log2(M / 1000)))\", S: \"M > 2000 ? 4 : 1\"}}\n"
                               "  - {when: M > 500, config: {A: M / 100}}\n"
                               "default: {A: 1, B: 0, S: 1}\n";
    mmt_space *s;
    mmt_err err = {0};
    CHECK_OK(mmt_space_load_text("defaults.yaml", text, sizeof text - 1, &s, &err), &err);
    if (!s) return;
    CHECK_EQ_INT(s->n_shape_defaults, 6);
    CHECK_EQ_INT(s->shape_defaults[1].n_set, 2); /* A and S; B from default: */
    mmt_device_info dev = {0};
    mmt_device_set_prop(&dev, "wide", 0);
    mmt_problem p = problem(MMT_F32, 8, 64, 64);
    mmt_space_env env = {.problem = &p, .device = &dev};
    mmt_config c;
    int which = -2;
    /* M <= 16: the second entry (the first needs REPRODUCIBLE) */
    CHECK_OK(mmt_space_default_for(s, &env, &c, &which, &err), &err);
    CHECK_EQ_INT(which, 1);
    CHECK_EQ_INT(c.v[0], 4);
    CHECK_EQ_INT(c.v[2], 4);
    /* reproducible: the first holds; without it, the second's S = 4 without B would be invalid */
    env.reproducible = 1;
    CHECK_OK(mmt_space_default_for(s, &env, &c, &which, &err), &err);
    CHECK_EQ_INT(which, 0);
    CHECK_EQ_INT(c.v[0], 2);
    int valid = -1;
    mmt_config atomic = {{4, 0, 4}};
    CHECK_OK(mmt_space_check(s, &atomic, &env, &valid, NULL, &err), &err);
    CHECK_EQ_INT(valid, 0);
    env.reproducible = 0;
    /* an entry whose configuration is invalid here is passed over: A = 4 > N */
    p.n = 3;
    CHECK_OK(mmt_space_default_for(s, &env, &c, &which, &err), &err);
    CHECK_EQ_INT(which, -1);
    CHECK_EQ_INT(c.v[0], 1);
    /* a device property */
    p = problem(MMT_F32, 200, 64, 64);
    mmt_device_set_prop(&dev, "wide", 1);
    CHECK_OK(mmt_space_default_for(s, &env, &c, &which, &err), &err);
    CHECK_EQ_INT(which, 2);
    CHECK_EQ_INT(c.v[1], 1);
    /* an error in a condition names it */
    mmt_device_set_prop(&dev, "wide", 0);
    p.m = 100;
    CHECK_EQ_INT(mmt_space_default_for(s, &env, &c, &which, &err), MMT_PARSE);
    CHECK(strstr(err.msg, "defaults.yaml:15:12: defaults[3] when") && strstr(err.msg, "division by zero"));
    /* values that are expressions of the problem, and one that is not among its param's */
    p.m = 3000;
    CHECK_OK(mmt_space_default_for(s, &env, &c, &which, &err), &err);
    CHECK_EQ_INT(which, 4);
    CHECK_EQ_INT(c.v[0], 2);
    CHECK_EQ_INT(c.v[2], 4);
    p.m = 800;
    CHECK_EQ_INT(mmt_space_default_for(s, &env, &c, &which, &err), MMT_PARSE);
    CHECK(strstr(err.msg, "defaults.yaml:17:33: defaults[5] config A 'M / 100' is 8 here") != NULL);
    /* and a condition needs what it reads */
    mmt_space_env no_dev = {.problem = &p};
    p.m = 200;
    CHECK_EQ_INT(mmt_space_default_for(s, &no_dev, &c, &which, &err), MMT_PARSE);
    CHECK(strstr(err.msg, "defaults.yaml:14:12:") && strstr(err.msg, "device.wide"));
    mmt_space_free(s);
}

/* ~118k configurations with derived values and constraints: well under a second. */
static void test_speed(void)
{
    static const char text[] =
        "template: t\nentry: e\ndtypes: [f32]\n"
        "params:\n"
        "  A: [1, 2, 4, 8, 16, 32, 64]\n  B: [1, 2, 4, 8, 16, 32, 64]\n  C: [1, 2, 3, 4, 5, 6, 7]\n"
        "  D: [0, 1, 2, 3, 4, 5, 6]\n  E: [1, 2, 4, 8, 16, 32, 64]\n  F: [0, 1, 2, 3, 4, 5, 6]\n"
        "derived:\n  T: A * B\n  S: (A + B) * C * elem_bytes\n  U: \"T % 3 == 0 ? T / 3 : ceil_div(T, E)\"\n"
        "constraints:\n  - T >= 2 && T <= device.max_threads\n  - S <= 4096\n  - \"!D || E % 2 == 0\"\n"
        "  - F <= 5 || max(U, 1) > 0\n"
        "default: {A: 1, B: 1, C: 1, D: 0, E: 1, F: 0}\n";
    mmt_space *s;
    mmt_err err = {0};
    CHECK_OK(mmt_space_load_text("speed.yaml", text, sizeof text - 1, &s, &err), &err);
    if (!s) return;
    mmt_problem p = problem(MMT_F32, 64, 64, 64);
    mmt_device_info dev = {0};
    mmt_device_set_prop(&dev, "max_threads", 1024);
    mmt_space_env env = {.problem = &p, .device = &dev};
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    mmt_config *all = NULL;
    size_t n = 0;
    CHECK_OK(mmt_space_enumerate(s, &env, &all, &n, &err), &err);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double sec = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    /* count by hand */
    size_t want = 0;
    static const int pw[] = {1, 2, 4, 8, 16, 32, 64};
    for (int a = 0; a < 7; a++)
        for (int b = 0; b < 7; b++)
            for (int c = 1; c <= 7; c++)
                for (int d = 0; d < 7; d++)
                    for (int e = 0; e < 7; e++)
                        for (int f = 0; f < 7; f++) {
                            int t = pw[a] * pw[b], sm = (pw[a] + pw[b]) * c * 4;
                            want += t >= 2 && t <= 1024 && sm <= 4096 && (!d || pw[e] % 2 == 0);
                        }
    CHECK_EQ_INT(n, want);
    /* the time is reported, not asserted: machines are noisy */
    printf("enumerated 117649 configurations (%zu valid) in %.3f s\n", n, sec);
    free(all);
    mmt_space_free(s);
}

/* ---- enumeration against a brute force ---------------------------------------------------- */

/* What a prune line reads, looked up by name: the brute force evaluates them without the
 * space's slots. */
typedef struct named_values {
    const mmt_space *s;
    const mmt_space_env *env;
    const mmt_config *c;
    const int64_t *derived;
} named_values;

static int name_is(const char *name, size_t len, const char *want)
{
    return strlen(want) == len && memcmp(name, want, len) == 0;
}

static int lookup_value(void *user, const char *name, size_t len, int64_t *value)
{
    const named_values *x = user;
    const mmt_problem *p = x->env->problem;
    const int64_t es = mmt_dtype_size(p->dtype);
    const struct {
        const char *name;
        int64_t value;
    } problem_values[] = {
        {"M", p->m},
        {"N", p->n},
        {"K", p->k},
        {"TRANS_A", p->trans_a},
        {"TRANS_B", p->trans_b},
        {"elem_bytes", es},
        {"c_bytes", mmt_dtype_size(p->out)},
        {"ALIGN_A", mmt_align_bytes(0, (p->trans_a ? p->m : p->k) * es)},
        {"ALIGN_B", mmt_align_bytes(0, (p->trans_b ? p->k : p->n) * es)},
        {"MODE", p->mode},
        {"REPRODUCIBLE", x->env->reproducible},
    };
    for (size_t i = 0; i < sizeof problem_values / sizeof problem_values[0]; i++)
        if (name_is(name, len, problem_values[i].name)) return *value = problem_values[i].value, 0;
    for (int i = 0; i < x->s->n_params; i++)
        if (name_is(name, len, x->s->params[i].name)) return *value = x->c->v[i], 0;
    for (int i = 0; i < x->s->n_derived; i++)
        if (name_is(name, len, x->s->derived[i].name)) return *value = x->derived[i], 0;
    if (len > 7 && memcmp(name, "device.", 7) == 0)
        return mmt_device_get_prop(x->env->device, name + 7, len - 7, value);
    return -1;
}

/* A space is walked whole up to this many combinations, a bigger one (the CUDA-core space)
 * on a slice of about this size: its first params fixed at those of one configuration. */
#define BRUTE_FORCE_MAX 2000000

static int same_prefix(const mmt_config *a, const mmt_config *b, int params)
{
    return memcmp(a->v, b->v, sizeof(int64_t) * (size_t)params) == 0;
}

/* Every combination of the slice in odometer order (the levels param at 0) that
 * mmt_space_check finds valid and no prune line excludes must be the next configuration of
 * the slice in list[0..n). */
static void compare_brute_force(const mmt_space *s, const mmt_space_env *env, const mmt_config *list, size_t n,
                                const char *what)
{
    mmt_config c;
    if (n) c = list[n / 2];
    else mmt_space_default(s, &c);
    int fixed = 0;
    long long rest = 1;
    for (int i = 0; i < s->n_params; i++) rest *= i == s->levels_param ? 1 : s->params[i].n_values;
    for (; rest > BRUTE_FORCE_MAX; fixed++) rest /= fixed == s->levels_param ? 1 : s->params[fixed].n_values;
    int idx[MMT_SPACE_MAX_PARAMS] = {0};
    for (int i = fixed; i < s->n_params; i++) c.v[i] = i == s->levels_param ? 0 : s->params[i].values[0];
    size_t k = 0, end = n; /* the slice's part of the list: list[k..end) */
    while (k < n && !same_prefix(&list[k], &c, fixed)) k++;
    while (end > k && !same_prefix(&list[end - 1], &c, fixed)) end--;
    const size_t first = k;
    for (;;) {
        int keep;
        int64_t derived[MMT_SPACE_MAX_DERIVED];
        mmt_err err = {0};
        mmt_status st = mmt_space_check(s, &c, env, &keep, derived, &err);
        named_values x = {s, env, &c, derived};
        for (int j = 0; j < s->n_prune && keep && st == MMT_OK; j++) {
            int64_t v = 0;
            st = mmt_expr_eval(s->prune[j].expr, lookup_value, &x, &v, &err);
            keep = v != 0;
        }
        CHECK_OK(st, &err);
        if (st != MMT_OK) return;
        if (keep) {
            if (k == end || memcmp(&list[k], &c, sizeof c) != 0) {
                char buf[512];
                mmt_config_format(s, &c, buf, sizeof buf);
                fprintf(stderr, "%s: configuration %zu of the brute force, %s, is not the enumeration's\n", what,
                        k - first, buf);
                check_failures_++;
                return;
            }
            k++;
        }
        int i = s->n_params - 1;
        while (i >= fixed && (i == s->levels_param || ++idx[i] == s->params[i].n_values)) {
            if (i != s->levels_param) idx[i] = 0, c.v[i] = s->params[i].values[0];
            i--;
        }
        if (i < fixed) break;
        c.v[i] = s->params[i].values[idx[i]];
    }
    if (k != end) fprintf(stderr, "%s: the enumeration has %zu more configurations\n", what, end - k);
    CHECK_EQ_INT(k, end);
    printf("%s: %zu configurations, %zu of them in a brute force over %lld combinations\n", what, n, end - first,
           rest);
}

/* A CPU with AVX-512, 48 KiB of L1d, 2 MiB of L2 and 32 MiB of L3. */
static void avx512_cpu(mmt_device_info *d)
{
    memset(d, 0, sizeof *d);
    snprintf(d->backend, sizeof d->backend, "cpu");
    snprintf(d->name, sizeof d->name, "x86-64 with AVX-512 (test)");
    mmt_device_set_prop(d, "isa", 2);
    mmt_device_set_prop(d, "l1d_bytes", 49152);
    mmt_device_set_prop(d, "l2_bytes", 2097152);
    mmt_device_set_prop(d, "l3_bytes", 33554432);
    mmt_device_set_prop(d, "cores", 16);
}

/* The real spaces, for problems whose shape, transposes, precision and reproducibility
 * their constraints and prune lines read: the enumeration skips what a false condition on
 * the first params rules out, and must still give the brute force's list in its order. */
static void test_enumerate_real(void)
{
    static const char *const problems[] = {
        "f32 row NN 4096x4096x4096", "f32 row TN 2500x300x7000", "f32 row NT 1x4096x4096",
        "f64 col NT 1000x999x77",    "f64 row TT 33x4096x1024",  "f64 row TN 2048x8x2048",
        "bf16 row NT 512x512x8192",  "bf16 row NN 4096x1x4096",  "tf32 row NN 4096x1024x256",
        "f16 col TN 3000x2000x1000",  "f32x3 row NN 8192x8192x64"};
    static const char *const spaces[] = {"cpu_gemm_avx",   "cuda_gemm_dmma",  "cuda_gemm_dmma_tma", "cuda_gemm_mma",
                                         "cuda_gemm_simt", "cuda_gemm_wgmma", "cuda_gemv"};
    mmt_device_info gpu, cpu;
    h100(&gpu);
    avx512_cpu(&cpu);
    for (size_t i = 0; i < sizeof spaces / sizeof spaces[0]; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/search_spaces/%s.yaml", MMT_SOURCE_DIR, spaces[i]);
        mmt_space *s;
        mmt_err err = {0};
        CHECK_OK(mmt_space_load_file(path, &s, &err), &err);
        if (!s) continue;
        for (size_t j = 0; j < sizeof problems / sizeof problems[0]; j++) {
            mmt_problem given, p;
            CHECK(mmt_problem_parse(problems[j], &given) == NULL);
            if (!(s->modes & (1u << given.mode))) continue;
            p = mmt_problem_normalise(&given);
            mmt_space_env env = {.problem = &p, .device = strncmp(s->template, "cpu/", 4) ? &gpu : &cpu,
                                 .reproducible = (int)(j % 2)};
            mmt_config *all = NULL;
            size_t n = 0;
            char what[256];
            snprintf(what, sizeof what, "%s, %s%s", spaces[i], problems[j],
                     env.reproducible ? ", reproducible" : "");
            CHECK_OK(mmt_space_enumerate(s, &env, &all, &n, &err), &err);
            compare_brute_force(s, &env, all, n, what);
            free(all);
        }
        mmt_space_free(s);
    }
}

/* The enumeration evaluates a condition as soon as its params are fixed, but fails where a
 * full walk fails: at the first configuration that reaches a condition the environment
 * cannot evaluate (here one on A after one on B), which conditions before it may keep
 * every configuration from reaching. */
static void test_enumerate_missing(void)
{
    static const char text[] = "template: t\nentry: e\nmodes: [f32]\n"
                               "params:\n  A: [1, 2]\n  B: [1, 2, 3]\n"
                               "constraints:\n  - B > M\n  - A <= device.b\n"
                               "prune:\n  - A < device.a\n"
                               "default: {A: 1, B: 1}\n";
    mmt_space *s;
    mmt_err err = {0};
    CHECK_OK(mmt_space_load_text("missing.yaml", text, sizeof text - 1, &s, &err), &err);
    if (!s) return;
    mmt_problem p = problem(MMT_F32, 3, 8, 8);
    mmt_device_info dev = {0};
    snprintf(dev.name, sizeof dev.name, "test");
    mmt_space_env env = {.problem = &p, .device = &dev};
    mmt_config *all = NULL;
    size_t n = 7;
    /* B > 3 holds nowhere: device.b is never needed */
    CHECK_OK(mmt_space_enumerate(s, &env, &all, &n, &err), &err);
    CHECK_EQ_INT(n, 0);
    /* B = 3 reaches it */
    p.m = 2;
    CHECK_EQ_INT(mmt_space_enumerate(s, &env, &all, &n, &err), MMT_PARSE);
    CHECK(strstr(err.msg, "missing.yaml:9:5: constraint 'A <= device.b': device 'test' has no property "
                          "'device.b'"));
    CHECK(all == NULL);
    /* the prune line is reached only by a valid configuration: A <= 0 leaves none */
    mmt_device_set_prop(&dev, "b", 0);
    CHECK_OK(mmt_space_enumerate(s, &env, &all, &n, &err), &err);
    CHECK_EQ_INT(n, 0);
    mmt_device_set_prop(&dev, "b", 2);
    CHECK_EQ_INT(mmt_space_enumerate(s, &env, &all, &n, &err), MMT_PARSE);
    CHECK(strstr(err.msg, "missing.yaml:11:5: prune 'A < device.a'") != NULL);
    mmt_device_set_prop(&dev, "a", 9);
    CHECK_OK(mmt_space_enumerate(s, &env, &all, &n, &err), &err);
    CHECK_EQ_INT(n, 2); /* B = 3, A = 1 and 2 */
    if (n == 2) CHECK(all[0].v[0] == 1 && all[1].v[0] == 2 && all[1].v[1] == 3);
    free(all);
    mmt_space_free(s);
}

/* Enumerates the space in text (loaded as `name`) for an 8^3 f32 problem; its status. */
static mmt_status enumerate_text(const char *name, const char *text, mmt_config **all, size_t *n, mmt_err *err)
{
    mmt_space *s;
    CHECK_OK(mmt_space_load_text(name, text, strlen(text), &s, err), err);
    if (!s) return err->status;
    mmt_problem p = problem(MMT_F32, 8, 8, 8);
    mmt_space_env env = {.problem = &p};
    const mmt_status st = mmt_space_enumerate(s, &env, all, n, err);
    mmt_space_free(s);
    return st;
}

/* The bound on an enumeration is the partial configurations it visits, not the product:
 * 32^6 combinations whose constraints cut the walk early enumerate, the same without
 * them do not; nor does a space where more configurations hold than one enumeration keeps
 * (32^5 with every condition true: 33 million visits, 2^21 configurations kept, then an
 * error, not gigabytes). */
static void test_enumerate_bound(void)
{
    char text[2048], values[256];
    int len = 0;
    for (int v = 0; v < 32; v++)
        len += snprintf(values + len, sizeof values - (size_t)len, "%s%d", v ? ", " : "", v);
    for (int cut = 1; cut >= 0; cut--) {
        snprintf(text, sizeof text,
                 "template: t\nentry: e\nmodes: [f32]\n"
                 "params:\n  A: [%s]\n  B: [%s]\n  C: [%s]\n  D: [%s]\n  E: [%s]\n  F: [%s]\n"
                 "constraints:\n  - %s\n  - %s\n  - %s\n  - A + C + F < 3\n"
                 "default: {A: 0, B: 0, C: 0, D: 0, E: 0, F: 0}\n",
                 values, values, values, values, values, values, cut ? "A == B" : "true", cut ? "C == D" : "true",
                 cut ? "E == F" : "true");
        mmt_err err = {0};
        mmt_config *all = NULL;
        size_t n = 0;
        const mmt_status st = enumerate_text("big.yaml", text, &all, &n, &err);
        if (cut) {
            CHECK_OK(st, &err);
            CHECK_EQ_INT(n, 10); /* A + C + F < 3 */
            if (n == 10) CHECK(all[9].v[0] == 2 && all[9].v[1] == 2 && all[9].v[4] == 0 && all[9].v[5] == 0);
        } else {
            CHECK_EQ_INT(st, MMT_INVALID_ARGUMENT);
            CHECK(strstr(err.msg, "big.yaml: enumerating the space visits more than") != NULL);
            CHECK(all == NULL && n == 0);
        }
        free(all);
    }
    snprintf(text, sizeof text,
             "template: t\nentry: e\nmodes: [f32]\n"
             "params:\n  A: [%s]\n  B: [%s]\n  C: [%s]\n  D: [%s]\n  E: [%s]\n"
             "default: {A: 0, B: 0, C: 0, D: 0, E: 0}\n",
             values, values, values, values, values);
    mmt_err err = {0};
    mmt_config *all = NULL;
    size_t n = 0;
    CHECK_EQ_INT(enumerate_text("wide.yaml", text, &all, &n, &err), MMT_INVALID_ARGUMENT);
    CHECK(strstr(err.msg, "wide.yaml: more than 2097152 configurations hold for this problem") != NULL);
    CHECK(all == NULL && n == 0);
}

/* A levels param (`strassen:`): in the configuration and its text (left out at 0, so the
 * classic text is the one from before the knob), not in the definitions, not searched. */
static void test_levels(void)
{
    static const char text[] = "template: cpu/x.c\nentry: e\nmodes: [f32]\n"
                               "params: {A: [1, 2], LEVELS: [0, 1, 2], B: [3]}\nstrassen: LEVELS\n"
                               "derived: {X: A * 2}\nconstraints:\n  - LEVELS == 0 || M >= 64 * pow2(LEVELS)\n"
                               "default: {A: 1, LEVELS: 0, B: 3}\n";
    mmt_space *s;
    mmt_err err = {0};
    CHECK_OK(mmt_space_load_text("levels.yaml", text, strlen(text), &s, &err), &err);
    if (!s) return;
    CHECK_EQ_INT(s->levels_param, 1);
    mmt_config c;
    char buf[256];
    CHECK_OK(mmt_config_parse(s, "A=2,B=3", &c, &err), &err); /* a text from before the knob */
    CHECK_EQ_INT(mmt_config_levels(s, &c), 0);
    mmt_config_format(s, &c, buf, sizeof buf);
    CHECK_EQ_STR(buf, "A=2,B=3");
    c = mmt_config_with_levels(s, &c, 2);
    mmt_config_format(s, &c, buf, sizeof buf);
    CHECK_EQ_STR(buf, "A=2,LEVELS=2,B=3");
    mmt_config back;
    CHECK_OK(mmt_config_parse(s, buf, &back, &err), &err);
    CHECK(memcmp(&back, &c, sizeof c) == 0);
    CHECK_OK(mmt_config_parse(s, "LEVELS=0,A=2,B=3", &back, &err), &err);
    CHECK_EQ_INT(mmt_config_levels(s, &back), 0);
    CHECK_EQ_INT(mmt_config_parse(s, "A=2,LEVELS=3,B=3", &back, &err), MMT_PARSE);
    mmt_problem p = problem(MMT_F32, 512, 512, 512);
    mmt_space_env env = {.problem = &p};
    CHECK_OK(mmt_space_defines(s, &c, &env, buf, sizeof buf, &err), &err);
    CHECK_EQ_STR(buf, "A=2 B=3 X=4"); /* every level runs the same binary */
    int valid = 0;
    CHECK_OK(mmt_space_check(s, &c, &env, &valid, NULL, &err), &err);
    CHECK_EQ_INT(valid, 1);
    p.m = 255;
    CHECK_OK(mmt_space_check(s, &c, &env, &valid, NULL, &err), &err);
    CHECK_EQ_INT(valid, 0);
    mmt_config *all = NULL;
    size_t n = 0;
    CHECK_OK(mmt_space_enumerate(s, &env, &all, &n, &err), &err);
    CHECK_EQ_INT(n, 2); /* A = 1, 2 at 0 levels: the levels round adds levels */
    for (size_t i = 0; i < n; i++) CHECK_EQ_INT(mmt_config_levels(s, &all[i]), 0);
    free(all);
    mmt_space_free(s);
    /* a space without the param keeps every configuration at 0 levels */
    CHECK_OK(mmt_space_load_file(GOOD, &s, &err), &err);
    if (!s) return;
    CHECK_EQ_INT(s->levels_param, -1);
    mmt_space_default(s, &c);
    mmt_config same = mmt_config_with_levels(s, &c, 2);
    CHECK(memcmp(&same, &c, sizeof c) == 0);
    CHECK_EQ_INT(mmt_config_levels(s, &same), 0);
    mmt_space_free(s);
}

int main(void)
{
    test_levels();
    test_eval_errors();
    test_shape_defaults();
    test_speed();
    test_enumerate_real();
    test_enumerate_missing();
    test_enumerate_bound();
    return check_result();
}
