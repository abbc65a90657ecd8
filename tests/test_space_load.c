/* test_space_load.c - search spaces loaded from YAML (src/space_load.c): a full space
 * (space_good.yaml) read into its params, derived values, constraints and launch and then
 * used whole (its default, derived values, defines, launch geometry, enumeration against a
 * count by hand, configuration text, what the environment lacks), a CPU fixture without a
 * launch, bad files whose every error names file:line:column, and byte mutations that must
 * never crash. Evaluation on its own: test_space.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "device.h"
#include "problem.h"
#include "space.h"
#include "space_check.h"

static mmt_device_info gpu(void)
{
    mmt_device_info d;
    memset(&d, 0, sizeof d);
    snprintf(d.name, sizeof d.name, "test gpu");
    mmt_device_set_prop(&d, "max_threads_per_block", 1024);
    mmt_device_set_prop(&d, "max_smem_per_block", 49152);
    return d;
}

/* The valid configurations of space_good.yaml, counted the plain way. */
static size_t brute_count(int elem_bytes)
{
    static const int bm[] = {32, 64, 128, 256}, bk[] = {8, 16, 32}, t[] = {4, 8};
    size_t n = 0;
    for (int a = 0; a < 4; a++)
        for (int b = 0; b < 4; b++)
            for (int c = 0; c < 3; c++)
                for (int d = 0; d < 2; d++)
                    for (int e = 0; e < 2; e++)
                        for (int vec = 0; vec < 2; vec++)
                            for (int st = 1; st <= 2; st++) {
                                long threads = (bm[a] / t[d]) * (bm[b] / t[e]);
                                long smem = (long)st * (bm[a] + bm[b]) * bk[c] * elem_bytes;
                                n += threads >= 64 && threads <= 1024 && smem <= 49152 && (!vec || bk[c] % 4 == 0);
                            }
    return n;
}

static void test_good(void)
{
    mmt_space *s;
    mmt_err err = {0};
    CHECK_OK(mmt_space_load_file(GOOD, &s, &err), &err);
    if (!s) return;
    CHECK_EQ_STR(s->template, "cuda/gemm_simt.cu");
    CHECK_EQ_STR(s->entry, "mmt_gemm");
    CHECK_EQ_INT(s->modes, (1u << MMT_F32) | (1u << MMT_F64));
    CHECK_EQ_INT(s->n_params, 7);
    CHECK_EQ_STR(s->params[6].name, "STAGES");
    CHECK_EQ_INT(s->params[2].n_values, 3);
    CHECK_EQ_INT(s->params[2].values[2], 32);
    CHECK_EQ_INT(s->n_derived, 2);
    CHECK_EQ_STR(s->derived[1].name, "SMEM");
    CHECK_EQ_INT(s->derived[1].line, 15);
    CHECK_EQ_INT(s->derived[1].col, 9);
    CHECK_EQ_INT(s->n_constraints, 3);
    CHECK_EQ_STR(s->constraints[2].text, "!VEC || (BK % 4 == 0)");
    CHECK(s->has_launch);

    mmt_device_info dev = gpu();
    mmt_problem p = problem(MMT_F32, 1000, 2000, 300);
    mmt_space_env env = {.problem = &p, .device = &dev};

    mmt_config def;
    mmt_space_default(s, &def);
    CHECK_EQ_INT(def.v[0], 64);
    CHECK_EQ_INT(def.v[5], 1);
    CHECK_EQ_INT(def.v[7], 0);
    int valid = -1;
    int64_t derived[MMT_SPACE_MAX_DERIVED];
    CHECK_OK(mmt_space_check(s, &def, &env, &valid, derived, &err), &err);
    CHECK_EQ_INT(valid, 1);
    CHECK_EQ_INT(derived[0], 256);
    CHECK_EQ_INT(derived[1], 4096);

    char buf[512];
    CHECK_OK(mmt_space_defines(s, &def, &env, buf, sizeof buf, &err), &err);
    CHECK_EQ_STR(buf, "BM=64 BN=64 BK=8 TM=4 TN=4 VEC=1 STAGES=1 THREADS=256 SMEM=4096");
    CHECK_EQ_INT(mmt_space_defines(s, &def, &env, buf, 20, &err), MMT_INVALID_ARGUMENT);

    mmt_geometry g;
    CHECK_OK(mmt_space_geometry(s, &def, &env, &g, &err), &err);
    CHECK_EQ_INT(g.grid[0], 32);
    CHECK_EQ_INT(g.grid[1], 16);
    CHECK_EQ_INT(g.grid[2], 1);
    CHECK_EQ_INT(g.block[0], 256);
    CHECK_EQ_INT(g.block[1], 1);
    CHECK_EQ_INT(g.smem, 4096);

    /* a configuration that breaks a constraint: 8 threads */
    mmt_config bad = def;
    bad.v[0] = 32, bad.v[1] = 32, bad.v[3] = 8, bad.v[4] = 8;
    CHECK_OK(mmt_space_check(s, &bad, &env, &valid, NULL, &err), &err);
    CHECK_EQ_INT(valid, 0);

    /* enumeration: the same count as by hand, odometer order, all valid */
    for (int f64 = 0; f64 < 2; f64++) {
        p.dtype = f64 ? MMT_F64 : MMT_F32;
        mmt_config *all = NULL;
        size_t n = 0;
        CHECK_OK(mmt_space_enumerate(s, &env, &all, &n, &err), &err);
        CHECK_EQ_INT(n, brute_count(f64 ? 8 : 4));
        int ordered = 1, checked = 1;
        for (size_t i = 0; i < n; i++) {
            if (i > 0) {
                int cmp = 0;
                for (int j = 0; j < s->n_params && !cmp; j++) {
                    int a = 0, b = 0;
                    while (s->params[j].values[a] != all[i - 1].v[j]) a++;
                    while (s->params[j].values[b] != all[i].v[j]) b++;
                    cmp = a < b ? -1 : a > b ? 1 : 0;
                }
                ordered &= cmp < 0;
            }
            int v = 0;
            checked &= mmt_space_check(s, &all[i], &env, &v, NULL, NULL) == MMT_OK && v;
        }
        CHECK(ordered);
        CHECK(checked);
        if (n) {
            CHECK_EQ_INT(all[0].v[0], 32);
            CHECK_EQ_INT(all[0].v[7], 0);
        }
        free(all);
    }
    p.dtype = MMT_F32;

    /* configuration text */
    mmt_config_format(s, &def, buf, sizeof buf);
    CHECK_EQ_STR(buf, "BM=64,BN=64,BK=8,TM=4,TN=4,VEC=1,STAGES=1");
    mmt_config c;
    CHECK_OK(mmt_config_parse(s, buf, &c, &err), &err);
    CHECK(memcmp(&c, &def, sizeof c) == 0);
    CHECK_OK(mmt_config_parse(s, "STAGES=2,VEC=0,TN=8,TM=8,BK=32,BN=256,BM=128", &c, &err), &err);
    CHECK_EQ_INT(c.v[0], 128);
    CHECK_EQ_INT(c.v[6], 2);
    CHECK_EQ_INT(mmt_config_parse(s, "BM=64,BN=64,BK=8,TM=4,TN=4,VEC=1", &c, &err), MMT_PARSE);
    CHECK(strstr(err.msg, "STAGES") != NULL);
    CHECK_EQ_INT(mmt_config_parse(s, "BM=64,BN=64,BK=8,TM=4,TN=4,VEC=1,STAGES=1,XX=3", &c, &err), MMT_PARSE);
    CHECK(strstr(err.msg, "XX") != NULL);
    CHECK_EQ_INT(mmt_config_parse(s, "BM=64,BM=64,BN=64,BK=8,TM=4,TN=4,VEC=1,STAGES=1", &c, &err), MMT_PARSE);
    CHECK_EQ_INT(mmt_config_parse(s, "BM=65,BN=64,BK=8,TM=4,TN=4,VEC=1,STAGES=1", &c, &err), MMT_PARSE);
    CHECK_EQ_INT(mmt_config_parse(s, "BM=x,BN=64,BK=8,TM=4,TN=4,VEC=1,STAGES=1", &c, &err), MMT_PARSE);
    CHECK_EQ_INT(mmt_config_parse(s, "BM64,BN=64,BK=8,TM=4,TN=4,VEC=1,STAGES=1", &c, &err), MMT_PARSE);
    CHECK_EQ_INT(mmt_config_parse(s, "", &c, NULL), MMT_PARSE);

    /* what the environment lacks is an evaluation error naming the place */
    mmt_space_env no_dev = {.problem = &p, .device = NULL};
    mmt_config *all = NULL;
    size_t n = 0;
    CHECK_EQ_INT(mmt_space_enumerate(s, &no_dev, &all, &n, &err), MMT_PARSE);
    CHECK(strstr(err.msg, "space_good.yaml:17:5:") && strstr(err.msg, "device.max_threads_per_block"));
    CHECK(all == NULL);
    CHECK_EQ_INT(mmt_space_check(s, &def, NULL, &valid, NULL, &err), MMT_PARSE);
    CHECK(strstr(err.msg, "space_good.yaml:15:9:") && strstr(err.msg, "elem_bytes"));
    mmt_device_info small = {0};
    mmt_device_set_prop(&small, "max_threads_per_block", 512);
    mmt_space_env env2 = {.problem = &p, .device = &small};
    CHECK_EQ_INT(mmt_space_check(s, &def, &env2, &valid, NULL, &err), MMT_PARSE);
    CHECK(strstr(err.msg, "space_good.yaml:18:5:") && strstr(err.msg, "device.max_smem_per_block"));
    /* geometry needs no device here, but does need the problem */
    CHECK_EQ_INT(mmt_space_geometry(s, &def, NULL, &g, &err), MMT_PARSE);
    mmt_space_free(s);
    mmt_space_free(NULL);
}

static void test_faulty_fixture(void)
{
    mmt_space *s;
    mmt_err err = {0};
    CHECK_OK(mmt_space_load_file(MMT_TEST_DATA "/space_faulty.yaml", &s, &err), &err);
    if (!s) return;
    CHECK_EQ_STR(s->template, "cpu/gemm_faulty.c");
    CHECK_EQ_INT(s->modes, 1u << MMT_F32);
    CHECK(!s->has_launch);
    mmt_problem p = problem(MMT_F32, 40, 30, 20);
    mmt_device_info dev = {0};
    mmt_space_env env = {.problem = &p, .device = &dev};
    mmt_config *all;
    size_t n;
    CHECK_OK(mmt_space_enumerate(s, &env, &all, &n, &err), &err);
    CHECK_EQ_INT(n, 5);
    if (n == 5) CHECK_EQ_INT(all[4].v[0], 0);
    free(all);
    mmt_config def;
    mmt_space_default(s, &def);
    mmt_geometry g = {.smem = 7};
    CHECK_OK(mmt_space_geometry(s, &def, &env, &g, &err), &err);
    CHECK_EQ_INT(g.smem, 0);
    CHECK_EQ_INT(g.grid[0], 0);
    char buf[64];
    CHECK_OK(mmt_space_defines(s, &def, NULL, buf, sizeof buf, &err), &err);
    CHECK_EQ_STR(buf, "FAULT=1");
    mmt_space_free(s);
}

/* Each bad text must fail with a message that starts with the place. */
static void test_bad(void)
{
    static const char head[] = "template: cpu/x.c\nentry: mmt_gemm\ndtypes: [f32]\n";
    static const struct {
        const char *body; /* after head (3 lines) */
        const char *where, *what;
    } cases[] = {
        {"params: {A: [1, 2]}\nfoo: 1\ndefault: {A: 1}\n", "bad.yaml:5:1:", "unknown key 'foo'"},
        {"params: {A: [1, 2]}\nparams: {B: [1]}\ndefault: {A: 1}\n", "bad.yaml:5:1:", "duplicate key"},
        {"params:\n  A: [1, 2]\n  A: [3]\ndefault: {A: 1}\n", "bad.yaml:6:3:", "duplicate param 'A'"},
        {"params:\n  A: []\ndefault: {A: 1}\n", "bad.yaml:5:6:", "no values"},
        {"params:\n  A: [1, x]\ndefault: {A: 1}\n", "bad.yaml:5:10:", "not an integer"},
        {"params:\n  A: [1, 1]\ndefault: {A: 1}\n", "bad.yaml:5:10:", "repeated"},
        {"params:\n  M: [1]\ndefault: {M: 1}\n", "bad.yaml:5:3:", "taken by the problem"},
        {"params:\n  a-b: [1]\ndefault: {a-b: 1}\n", "bad.yaml:5:3:", "not a valid name"},
        {"params: {}\ndefault: {}\n", "bad.yaml:4:9:", "'params' is empty"},
        {"params: [1, 2]\ndefault: {}\n", "bad.yaml:4:9:", "mapping"},
        {"params: {A: [1]}\nderived:\n  X: A + Q * 2\ndefault: {A: 1}\n", "bad.yaml:6:10:", "unknown name 'Q'"},
        {"params: {A: [1]}\nderived:\n  X: Y + 1\n  Y: A\ndefault: {A: 1}\n", "bad.yaml:6:6:", "before it is derived"},
        {"params: {A: [1]}\nderived:\n  X: X + 1\ndefault: {A: 1}\n", "bad.yaml:6:6:", "uses itself"},
        {"params: {A: [1]}\nderived:\n  A: 2\ndefault: {A: 1}\n", "bad.yaml:6:3:", "name of a param"},
        {"params: {A: [1]}\nconstraints:\n  - A + (1\ndefault: {A: 1}\n", "bad.yaml:6:11:", "expected ')'"},
        {"params: {A: [1]}\nconstraints:\n  - \"A >\"\ndefault: {A: 1}\n", "bad.yaml:6:9:", "end"},
        {"params: {A: [1]}\nconstraints:\n  - !A\ndefault: {A: 1}\n", "bad.yaml:6:5:", "quote"},
        {"params: {A: [1]}\nconstraints:\n  - !A || A\ndefault: {A: 1}\n", "bad.yaml:6:", "quote"},
        {"params: {A: [1]}\nconstraints:\n  - A ? 1 : 2\ndefault: {A: 1}\n", "bad.yaml:6:", "quote"},
        {"params: {A: [1]}\nconstraints:\n  - [A]\ndefault: {A: 1}\n", "bad.yaml:6:5:", "must be an expression"},
        {"params: {A: [1]}\nconstraints: A > 0\ndefault: {A: 1}\n", "bad.yaml:5:14:", "list"},
        {"params: {A: [1]}\nlaunch: {grid: [ceil_div(M, A), 1, 1], block: [1, 1, 1]}\ndefault: {A: 1}\n",
         "bad.yaml:5:16:", "quote"},
        {"params: {A: [1]}\nderived: {X: max(A, 2)}\ndefault: {A: 1}\n", "bad.yaml:5:", "quote"},
        {"params: {A: [1]}\nconstraints:\n  - device.x > 0 && device. > 1\ndefault: {A: 1}\n", "bad.yaml:6:21:",
         "malformed name"},
        {"params: {A: [1]}\nlaunch: {grid: [1, 1], block: [1, 1, 1]}\ndefault: {A: 1}\n", "bad.yaml:5:16:",
         "3 expressions"},
        {"params: {A: [1]}\nlaunch: {block: [1, 1, 1]}\ndefault: {A: 1}\n", "bad.yaml:5:9:", "missing 'grid'"},
        {"params: {A: [1]}\nlaunch: {grid: [1, 1, 1], block: [1, 1, 1], shmem: 0}\ndefault: {A: 1}\n",
         "bad.yaml:5:45:", "unknown launch key"},
        {"params: {A: [1]}\nlaunch: {grid: [1, 1, Z], block: [1, 1, 1]}\ndefault: {A: 1}\n", "bad.yaml:5:23:",
         "unknown name 'Z'"},
        {"params: {A: [1], B: [2, 3]}\ndefault: {A: 1}\n", "bad.yaml:5:10:", "missing param 'B'"},
        {"params: {A: [1]}\ndefault: {A: 2}\n", "bad.yaml:5:14:", "not among"},
        {"params: {A: [1]}\ndefault: {A: 1, C: 1}\n", "bad.yaml:5:17:", "'C' is not a param"},
        {"params: {A: [1]}\n", "bad.yaml:1:1:", "missing key 'default'"},
        {"params: {A: [1]}\ndefault: {A: 1}\n  bad indent: 2\n", "bad.yaml:6:", ""},
        /* defaults: a list of {when, config}; a when reads the problem and the device only */
        {"params: {A: [1]}\ndefault: {A: 1}\ndefaults: {when: M > 1}\n", "bad.yaml:6:11:", "must be a list"},
        {"params: {A: [1]}\ndefault: {A: 1}\ndefaults:\n  - M > 1\n", "bad.yaml:7:5:", "must be a mapping"},
        {"params: {A: [1, 2]}\ndefault: {A: 1}\ndefaults:\n  - {when: A > 1, config: {A: 2}}\n", "bad.yaml:7:12:",
         "problem and the device only"},
        {"params: {A: [1, 2]}\ndefault: {A: 1}\ndefaults:\n  - {when: M > Q, config: {A: 2}}\n", "bad.yaml:7:16:",
         "unknown name 'Q'"},
        {"params: {A: [1, 2]}\ndefault: {A: 1}\ndefaults:\n  - {when: M > 1}\n", "bad.yaml:7:5:", "missing 'config'"},
        {"params: {A: [1, 2]}\ndefault: {A: 1}\ndefaults:\n  - {config: {A: 2}}\n", "bad.yaml:7:5:", "missing 'when'"},
        {"params: {A: [1, 2]}\ndefault: {A: 1}\ndefaults:\n  - {when: M > 1, config: {A: 2}, if: 1}\n",
         "bad.yaml:7:35:", "unknown key 'if'"},
        {"params: {A: [1, 2]}\ndefault: {A: 1}\ndefaults:\n  - {when: M > 1, config: {A: 3}}\n", "bad.yaml:7:31:",
         "defaults[0] config A=3 is not among"},
        {"params: {A: [1, 2]}\ndefault: {A: 1}\ndefaults:\n  - {when: M > 1, config: {B: 1}}\n", "bad.yaml:7:28:",
         "'B' is not a param"},
        {"params: {A: [1, 2]}\ndefault: {A: 1}\ndefaults:\n  - {when: M > 1, config: [2]}\n", "bad.yaml:7:27:",
         "mapping of param: value"},
        {"params: {A: [1], L: [0, 1]}\nstrassen: Q\ndefault: {A: 1, L: 0}\n", "bad.yaml:5:11:", "'Q' is not a param"},
        {"params: {A: [1], P: [0, 1]}\nadded: [Q]\ndefault: {A: 1, P: 0}\n", "bad.yaml:5:9:", "'Q' is not a param"},
        {"params: {A: [1], P: [1, 2]}\nadded: [P]\ndefault: {A: 1, P: 1}\n", "bad.yaml:5:9:", "include 0"},
        {"params: {A: [1], L: [0, 3]}\nstrassen: L\ndefault: {A: 1, L: 0}\n", "bad.yaml:5:11:", "L=3"},
        {"params: {A: [1], L: [1, 2]}\nstrassen: L\ndefault: {A: 1, L: 1}\n", "bad.yaml:5:11:", "include 0"},
        {"params: {A: [1], L: [0, 1]}\nstrassen: L\ndefault: {A: 1, L: 1}\n", "bad.yaml:6:10:", "must be 0"},
        {"params: {A: [1], L: [0, 1]}\nstrassen: L\nderived: {X: A + L}\ndefault: {A: 1, L: 0}\n", "bad.yaml:6:18:",
         "cannot read 'L'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[1024];
        snprintf(text, sizeof text, "%s%s", head, cases[i].body);
        mmt_space *s = (mmt_space *)1;
        mmt_err err = {0};
        mmt_status st = mmt_space_load_text("bad.yaml", text, strlen(text), &s, &err);
        if (st != MMT_PARSE || s != NULL || strncmp(err.msg, cases[i].where, strlen(cases[i].where)) != 0 ||
            !strstr(err.msg, cases[i].what)) {
            fprintf(stderr, "case %zu: status %d, want %s ... %s, got: %s\n", i, (int)st, cases[i].where,
                    cases[i].what, err.msg);
            check_failures_++;
        }
        if (st == MMT_OK) mmt_space_free(s);
    }
    /* the head itself */
    static const struct {
        const char *text, *where, *what;
    } whole[] = {
        {"", "bad.yaml:1:1:", "empty"},
        {"- 1\n- 2\n", "bad.yaml:1:1:", "mapping"},
        {"entry: e\ndtypes: [f32]\nparams: {A: [1]}\ndefault: {A: 1}\n", "bad.yaml:1:1:", "missing key 'template'"},
        {"template: ''\nentry: e\ndtypes: [f32]\nparams: {A: [1]}\ndefault: {A: 1}\n", "bad.yaml:1:11:", "empty"},
        {"template: ../x.c\nentry: e\ndtypes: [f32]\nparams: {A: [1]}\ndefault: {A: 1}\n", "bad.yaml:1:11:",
         "inside templates"},
        {"template: t\nentry: e\nmodes: [f32, bf32]\nparams: {A: [1]}\ndefault: {A: 1}\n", "bad.yaml:3:14:",
         "unknown mode 'bf32'"},
        {"template: t\nentry: e\ndtypes: []\nparams: {A: [1]}\ndefault: {A: 1}\n", "bad.yaml:3:9:", "empty"},
        {"template: [t]\nentry: e\ndtypes: [f32]\nparams: {A: [1]}\ndefault: {A: 1}\n", "bad.yaml:1:11:",
         "single value"},
    };
    for (size_t i = 0; i < sizeof whole / sizeof whole[0]; i++) {
        mmt_space *s;
        mmt_err err = {0};
        mmt_status st = mmt_space_load_text("bad.yaml", whole[i].text, strlen(whole[i].text), &s, &err);
        if (st != MMT_PARSE || strncmp(err.msg, whole[i].where, strlen(whole[i].where)) != 0 ||
            !strstr(err.msg, whole[i].what)) {
            fprintf(stderr, "whole %zu: status %d, want %s ... %s, got: %s\n", i, (int)st, whole[i].where,
                    whole[i].what, err.msg);
            check_failures_++;
        }
        if (st == MMT_OK) mmt_space_free(s);
    }

    /* a bad file names its own path */
    mmt_space *s;
    mmt_err err = {0};
    CHECK_EQ_INT(mmt_space_load_file(MMT_TEST_DATA "/space_bad_name.yaml", &s, &err), MMT_PARSE);
    CHECK(strstr(err.msg, "space_bad_name.yaml:8:11: unknown name 'MAXBM'") != NULL);
    CHECK_EQ_INT(mmt_space_load_file(MMT_TEST_DATA "/space_no_such_file.yaml", &s, &err), MMT_NOT_FOUND);
    CHECK(strstr(err.msg, "space_no_such_file.yaml") != NULL);
}

/* Random byte mutations of a valid space: every outcome is OK or an error with a message. */
static void test_fuzz(void)
{
    char *good;
    FILE *f = fopen(GOOD, "rb");
    CHECK(f != NULL);
    if (!f) return;
    good = malloc(8192);
    size_t len = fread(good, 1, 8191, f);
    fclose(f);
    good[len] = '\0';
    static const char interesting[] = "!?:-[]{},#&*|>'\"%\n \t0x.";
    mmt_device_info dev = gpu();
    mmt_problem p = problem(MMT_F64, 100, 100, 100);
    mmt_space_env env = {.problem = &p, .device = &dev};
    srand(42);
    int ok = 0, bad = 0;
    char *text = malloc(len + 1);
    for (int it = 0; it < 3000; it++) {
        memcpy(text, good, len + 1);
        size_t tl = len;
        for (int m = rand() % 4; m >= 0; m--) {
            size_t at = (size_t)rand() % tl;
            switch (rand() % 3) {
            case 0: text[at] = (char)(rand() % 256); break;
            case 1: text[at] = interesting[rand() % (sizeof interesting - 1)]; break;
            default: memmove(text + at, text + at + 1, tl - at), tl--; break; /* delete a byte */
            }
        }
        mmt_space *s = NULL;
        mmt_err err = {0};
        if (mmt_space_load_text("fuzz.yaml", text, tl, &s, &err) == MMT_OK) {
            ok++;
            long long total = 1;
            for (int i = 0; i < s->n_params; i++) total *= s->params[i].n_values;
            if (total <= 100000) {
                mmt_config *all = NULL;
                size_t n = 0;
                if (mmt_space_enumerate(s, &env, &all, &n, &err) == MMT_OK && n) {
                    char buf[1024];
                    mmt_geometry g;
                    mmt_space_defines(s, &all[0], &env, buf, sizeof buf, &err);
                    mmt_space_geometry(s, &all[0], &env, &g, &err);
                    mmt_config c;
                    mmt_config_format(s, &all[n - 1], buf, sizeof buf);
                    CHECK_OK(mmt_config_parse(s, buf, &c, &err), &err);
                }
                free(all);
            }
            mmt_space_free(s);
        } else {
            bad++;
            CHECK(err.msg[0] != '\0');
            CHECK(s == NULL);
        }
    }
    printf("fuzz: %d loaded, %d rejected\n", ok, bad);
    free(text);
    free(good);
}

/* `added:` a param a space gained after configurations were recorded: the text of one at 0
 * leaves it out, and a text without it reads 0 (a text recorded before the knob existed). */
static void test_added(void)
{
    static const char text[] = "template: cpu/x.c\nentry: mmt_gemm\nmodes: [f32]\nparams: {A: [1, 2], P: [0, 1]}\n"
                               "added: [P]\ndefault: {A: 2, P: 0}\n";
    mmt_space *s = NULL;
    mmt_err err;
    CHECK_OK(mmt_space_load_text("added.yaml", text, sizeof text - 1, &s, &err), &err);
    if (!s) return;
    mmt_config c;
    char buf[128];
    CHECK_OK(mmt_config_parse(s, "A=1", &c, &err), &err);
    CHECK(c.v[0] == 1 && c.v[1] == 0);
    mmt_config_format(s, &c, buf, sizeof buf);
    CHECK_EQ_STR(buf, "A=1");
    CHECK_OK(mmt_config_parse(s, "A=1,P=1", &c, &err), &err);
    mmt_config_format(s, &c, buf, sizeof buf);
    CHECK_EQ_STR(buf, "A=1,P=1");
    CHECK_EQ_INT(mmt_config_parse(s, "P=1", &c, &err), MMT_PARSE); /* A was always there */
    mmt_space_free(s);
}

int main(void)
{
    test_good();
    test_added();
    test_faulty_fixture();
    test_bad();
    test_fuzz();
    return check_result();
}
