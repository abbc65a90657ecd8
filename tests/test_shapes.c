/* test_shapes.c - shapes files: defaults, sweeps and their order, the fixtures, errors
 * with file:line:column, and byte mutations that must never crash. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "problem.h"
#include "shapes.h"

static void test_sweep(void)
{
    mmt_problem *p = NULL;
    size_t n = 0;
    mmt_err err = {0};
    CHECK_OK(mmt_shapes_load_file(MMT_TEST_DATA "/shapes_sweep.yaml", &p, NULL, &n, &err), &err);
    CHECK_EQ_INT(n, 1 + 2 + 2 * 3 * 2 * 2);
    if (n != 27) {
        free(p);
        return;
    }
    CHECK_EQ_INT(p[0].m, 4096);
    CHECK_EQ_INT(p[0].dtype, MMT_F32);
    CHECK_EQ_INT(p[0].layout, MMT_ROW_MAJOR);
    CHECK_EQ_INT(p[0].trans_a, 0);
    CHECK_EQ_INT(p[0].trans_b, 0);
    CHECK_EQ_INT(p[1].m, 1024);
    CHECK_EQ_INT(p[2].m, 2048);
    CHECK_EQ_INT(p[2].trans_a, 1);
    /* the third entry: m n k dtype layout trans_a trans_b, the last varying fastest */
    char buf[128];
    mmt_problem_format(&p[3], buf, sizeof buf);
    CHECK_EQ_STR(buf, "f32 col NT 1x3x7");
    mmt_problem_format(&p[4], buf, sizeof buf);
    CHECK_EQ_STR(buf, "f32 col TT 1x3x7");
    mmt_problem_format(&p[5], buf, sizeof buf);
    CHECK_EQ_STR(buf, "f64 col NT 1x3x7");
    mmt_problem_format(&p[7], buf, sizeof buf);
    CHECK_EQ_STR(buf, "f32 col NT 1x4x7");
    mmt_problem_format(&p[26], buf, sizeof buf);
    CHECK_EQ_STR(buf, "f64 col TT 2x5x7");
    free(p);
}

static void test_fixtures(void)
{
    mmt_problem *p = NULL;
    size_t n = 0;
    mmt_err err = {0};
    CHECK_OK(mmt_shapes_load_file(MMT_TEST_DATA "/shapes_tiny.yaml", &p, NULL, &n, &err), &err);
    CHECK_EQ_INT(n, 3);
    if (n == 3) {
        CHECK_EQ_INT(p[1].m, 33);
        CHECK_EQ_INT(p[1].trans_a, 1);
        CHECK_EQ_INT(p[1].layout, MMT_COL_MAJOR);
        CHECK_EQ_INT(p[2].dtype, MMT_F64);
    }
    free(p);
    CHECK_OK(mmt_shapes_load_file(MMT_TEST_DATA "/shapes_faulty.yaml", &p, NULL, &n, &err), &err);
    CHECK_EQ_INT(n, 1);
    free(p);
    p = (mmt_problem *)1;
    CHECK_EQ_INT(mmt_shapes_load_file(MMT_TEST_DATA "/shapes_bad_key.yaml", &p, NULL, &n, &err), MMT_PARSE);
    CHECK(strstr(err.msg, "shapes_bad_key.yaml:3:") != NULL);
    CHECK(strstr(err.msg, "shapes_bad_key.yaml:3:20: unknown key 'kk'") != NULL);
    CHECK(p == NULL);
    CHECK_EQ_INT(n, 0);
    CHECK_EQ_INT(mmt_shapes_load_file(MMT_TEST_DATA "/shapes_no_such_file.yaml", &p, NULL, &n, &err), MMT_NOT_FOUND);
    CHECK(strstr(err.msg, "shapes_no_such_file.yaml") != NULL);
    /* the examples shipped with the source parse */
    CHECK_OK(mmt_shapes_load_file(MMT_SOURCE_DIR "/examples/shapes.yaml", &p, NULL, &n, &err), &err);
    CHECK(n >= 8 && n <= 12);
    free(p);
    CHECK_OK(mmt_shapes_load_file(MMT_SOURCE_DIR "/examples/shapes_gpu.yaml", &p, NULL, &n, &err), &err);
    CHECK(n > 0);
    free(p);
}

static void test_errors(void)
{
    static const struct {
        const char *text, *where, *what;
    } cases[] = {
        {"problems:\n  - {m: 1, n: 2, k: 0}\n", "s.yaml:2:21:", "at least 1"},
        {"problems:\n  - {m: -4, n: 2, k: 1}\n", "s.yaml:2:9:", "at least 1"},
        {"problems:\n  - {m: x, n: 2, k: 1}\n", "s.yaml:2:9:", "not an integer"},
        {"problems:\n  - {m: 1, n: 2, k: 3, dtype: bf32}\n", "s.yaml:2:31:", "'bf32' is not supported"},
        {"problems:\n  - {m: 1, n: 2, k: 3, dtype: [f32, f8]}\n", "s.yaml:2:37:", "'f8'"},
        {"problems:\n  - {m: 1, n: 2, k: 3, out: int8}\n", "s.yaml:2:29:", "out 'int8' is not a type"},
        /* the output is the input type, or f32 for bf16 and f16 */
        {"problems:\n  - {m: 1, n: 2, k: 3, dtype: tf32, out: bf16}\n", "s.yaml:2:5:", "tf32->bf16 row NN 1x2x3: the output"},
        {"problems:\n  - {m: 1, n: 2, k: 3, dtype: [bf16, f64], out: f32}\n", "s.yaml:2:5:", "f64->f32 row NN"},
        {"problems:\n  - {m: 1, n: 2, k: 3, layout: diag}\n", "s.yaml:2:32:", "'diag'"},
        {"problems:\n  - {m: 1, n: 2, k: 3, scale: row}\n", "s.yaml:2:31:", "neither tensor nor block"},
        {"problems:\n  - {m: 1, n: 2, k: 3, dtype: bf16, scale: block}\n", "s.yaml:2:5:", "FP8 dtype"},
        {"problems:\n  - {m: 1, n: 2, k: 3, dtype: e4m3-block, layout: col}\n", "s.yaml:2:5:", "row-major"},
        {"problems:\n  - {m: 1, n: 2, k: 3, dtype: e4m3-block, host: true}\n", "s.yaml:2:5:", "device memory"},
        {"problems:\n  - {m: 1, n: 2, k: 3, trans_a: yes}\n", "s.yaml:2:33:", "true nor false"},
        {"problems:\n  - {m: 1, n: 2, k: 3, trans_b: [true, 2]}\n", "s.yaml:2:40:", "true nor false"},
        {"problems:\n  - {m: 1, n: 2}\n", "s.yaml:2:5:", "no 'k'"},
        {"problems:\n  - {m: 1, n: 2, k: 3, m: 4}\n", "s.yaml:2:24:", "duplicate key 'm'"},
        {"problems:\n  - {m: [], n: 2, k: 3}\n", "s.yaml:2:9:", "empty"},
        {"problems:\n  - {m: {a: 1}, n: 2, k: 3}\n", "s.yaml:2:9:", "single value"},
        {"problems:\n  - [1, 2, 3]\n", "s.yaml:2:5:", "mapping"},
        {"problems: []\n", "s.yaml:1:11:", "empty"},
        {"problems: {m: 1}\n", "s.yaml:1:11:", "list"},
        {"problem:\n  - {m: 1, n: 1, k: 1}\n", "s.yaml:1:1:", "unknown key 'problem'"},
        {"shapes: 1\n", "s.yaml:1:1:", "unknown key"},
        {"{}\n", "s.yaml:1:1:", "missing key 'problems'"},
        {"- 1\n", "s.yaml:1:1:", "mapping"},
        {"", "s.yaml:1:1:", "empty"},
        {"# only a comment\n", "s.yaml:", "empty"},
        {"problems:\n  - {m: 1, n: 2, k: 3\n", "s.yaml:3:", ""},
        {"problems:\n  - {m: 99999999999999999999, n: 2, k: 3}\n", "s.yaml:2:9:", "not an integer"},
        {"problems:\n  - {m: !big 1, n: 2, k: 3}\n", "s.yaml:2:9:", "tag"},
        {"problems:\n  - {m: \"6\\0 4\", n: 2, k: 3}\n", "s.yaml:2:9:", "NUL"}, /* not m = 6 */
        {"problems:\n  - {m: 1, n: 2, k: 3}\n---\nproblems:\n  - {m: 4, n: 5, k: 6}\n", "s.yaml:3:1:",
         "a second YAML document"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        mmt_problem *p = NULL;
        size_t n = 99;
        mmt_err err = {0};
        mmt_status st = mmt_shapes_load_text("s.yaml", cases[i].text, strlen(cases[i].text), &p, NULL, &n, &err);
        if (st != MMT_PARSE || p != NULL || n != 0 || strncmp(err.msg, cases[i].where, strlen(cases[i].where)) != 0 ||
            !strstr(err.msg, cases[i].what)) {
            fprintf(stderr, "case %zu: status %d, want %s ... %s, got: %s\n", i, (int)st, cases[i].where,
                    cases[i].what, err.msg);
            check_failures_++;
        }
        free(p);
    }
    /* a sweep too large is refused, not allocated */
    char big[4096] = "problems:\n  - {m: [";
    for (int i = 1; i <= 200; i++) snprintf(big + strlen(big), sizeof big - strlen(big), "%d,", i);
    big[strlen(big) - 1] = '\0';
    strcat(big, "], n: [1,2,3,4,5,6,7,8,9,10], k: [1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,"
                "27,28,29,30,31,32,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47,48,49,50,51,52,53,54,55,56,57,58,59,60,"
                "61,62,63,64,65,66,67,68,69,70,71,72,73,74,75,76,77,78,79,80,81,82,83,84,85,86,87,88,89,90,91,92,93,"
                "94,95,96,97,98,99,100,101,102,103,104,105,106,107,108,109,110,111,112,113,114,115,116,117,118,119,"
                "120,121,122,123,124,125,126,127,128,129,130,131,132,133,134,135,136,137,138,139,140,141,142,143,"
                "144,145,146,147,148,149,150,151,152,153,154,155,156,157,158,159,160,161,162,163,164,165,166,167,"
                "168,169,170,171,172,173,174,175,176,177,178,179,180,181,182,183,184,185,186,187,188,189,190,191,"
                "192,193,194,195,196,197,198,199,200,201,202,203,204,205,206,207,208,209,210,211,212,213,214,215,"
                "216,217,218,219,220,221,222,223,224,225,226,227,228,229,230,231,232,233,234,235,236,237,238,239,"
                "240,241,242,243,244,245,246,247,248,249,250], dtype: [f32, f64, f32]}\n");
    mmt_problem *p = NULL;
    size_t n = 0;
    mmt_err err = {0};
    CHECK_EQ_INT(mmt_shapes_load_text("big.yaml", big, strlen(big), &p, NULL, &n, &err), MMT_PARSE);
    CHECK(strstr(err.msg, "big.yaml:2:5: too many problems") != NULL);
    CHECK(p == NULL);
    /* nesting libyaml would take quadratic time over (100,000 levels: 32 s) is refused first,
     * at the bracket that goes too deep; a bracket in a quoted value or a comment is text */
    char deep[400] = "problems: ";
    for (int i = 0; i < 65; i++) strcat(deep, "[");
    for (int i = 0; i < 65; i++) strcat(deep, "]");
    CHECK_EQ_INT(mmt_shapes_load_text("deep.yaml", deep, strlen(deep), &p, NULL, &n, &err), MMT_PARSE);
    CHECK(strstr(err.msg, "deep.yaml:1:75: lists or mappings nested more than 64 deep") != NULL);
    char commented[400] = "problems:\n  - {m: 1, n: 2, k: 3} # ";
    for (int i = 0; i < 65; i++) strcat(commented, "[");
    strcat(commented, "\n");
    CHECK_OK(mmt_shapes_load_text("commented.yaml", commented, strlen(commented), &p, NULL, &n, &err), &err);
    free(p);
}

/* host: a boolean like the transposes, swept like any key, reported per problem; refused
 * where it is not a boolean. */
/* A problem written more than once (a line repeated, sweeps that meet) is kept once, where
 * it first stands; the same shape in another layout or with host: true is another one. */
/* scale: block makes an FP8 problem's block-scaled mode, as its mode name does; tensor
 * leaves it as it is. */
static void test_scale(void)
{
    const char *text = "problems:\n  - {m: 64, n: 64, k: 256, dtype: e4m3, out: bf16, scale: [tensor, block]}\n"
                       "  - {m: 64, n: 64, k: 256, dtype: e5m2-block, out: f16}\n";
    mmt_problem *p = NULL;
    size_t n = 0;
    mmt_err err;
    CHECK_OK(mmt_shapes_load_text("s.yaml", text, strlen(text), &p, NULL, &n, &err), &err);
    CHECK_EQ_INT((int)n, 3);
    if (n == 3) {
        CHECK_EQ_INT(p[0].mode, MMT_MODE_E4M3);
        CHECK_EQ_INT(p[1].mode, MMT_MODE_E4M3_BLOCK);
        CHECK_EQ_INT(p[1].dtype, MMT_E4M3);
        CHECK_EQ_INT(p[2].mode, MMT_MODE_E5M2_BLOCK);
        CHECK_EQ_INT(p[2].dtype, MMT_E5M2);
    }
    free(p);
}

static void test_repeats(void)
{
    static const char text[] = "problems:\n"
                               "  - {m: [8, 16], n: 4, k: 4}\n"
                               "  - {m: 8, n: 4, k: 4}\n"
                               "  - {m: 16, n: 4, k: [4, 5]}\n"
                               "  - {m: 8, n: 4, k: 4, layout: col}\n"
                               "  - {m: 8, n: 4, k: 4, host: true}\n"
                               "  - {m: 8, n: 4, k: 4}\n";
    mmt_problem *p = NULL;
    unsigned char *host = NULL;
    size_t n = 0;
    mmt_err err = {0};
    CHECK_OK(mmt_shapes_load_text("r.yaml", text, strlen(text), &p, &host, &n, &err), &err);
    CHECK_EQ_INT(n, 5);
    static const char *const want[] = {"f32 row NN 8x4x4", "f32 row NN 16x4x4", "f32 row NN 16x4x5",
                                       "f32 col NN 8x4x4", "f32 row NN 8x4x4"};
    for (size_t i = 0; i < n && i < 5; i++) {
        char buf[64];
        mmt_problem_format(&p[i], buf, sizeof buf);
        CHECK_EQ_STR(buf, want[i]);
        CHECK_EQ_INT(host[i], i == 4);
    }
    free(p);
    free(host);
}

static void test_host(void)
{
    const char *text = "problems:\n  - {m: 64, n: 64, k: 64}\n  - {m: 128, n: 64, k: 32, host: [false, true]}\n"
                       "  - {m: 16384, n: 16384, k: 16384, host: true}\n";
    mmt_problem *p = NULL;
    unsigned char *host = NULL;
    size_t n = 0;
    mmt_err err = {0};
    CHECK_OK(mmt_shapes_load_text("h.yaml", text, strlen(text), &p, &host, &n, &err), &err);
    CHECK_EQ_INT(n, 4);
    if (n == 4 && host) {
        CHECK(!host[0] && !host[1] && host[2] && host[3]);
        CHECK_EQ_INT(p[2].m, 128);
        CHECK_EQ_INT(p[3].k, 16384);
    }
    free(p);
    free(host);
    /* without a host array the problems load alike */
    CHECK_OK(mmt_shapes_load_text("h.yaml", text, strlen(text), &p, NULL, &n, &err), &err);
    CHECK_EQ_INT(n, 4);
    free(p);
    const char *bad = "problems:\n  - {m: 1, n: 2, k: 3, host: maybe}\n";
    host = (unsigned char *)&n; /* must come back NULL */
    CHECK_EQ_INT(mmt_shapes_load_text("h.yaml", bad, strlen(bad), &p, &host, &n, &err), MMT_PARSE);
    CHECK(strstr(err.msg, "h.yaml:2:30: host: 'maybe' is neither true nor false") != NULL);
    CHECK(p == NULL && host == NULL);
}

/* Random byte mutations of a valid file: OK or an error with a message, never a crash. */
static void test_fuzz(void)
{
    static const char good[] = "# shapes\nproblems:\n"
                               "  - {m: 4096, n: 4096, k: 4096}\n"
                               "  - {m: [1024, 2048], n: 1024, k: 512, trans_a: true}\n"
                               "  - {m: 33, n: 17, k: 65, dtype: f64, layout: col, trans_b: [false, true]}\n"
                               "  - m: 5\n    n: [1, 2]\n    k: 3\n";
    static const char interesting[] = "[]{},:-#&*!|>'\"\n 0123456789";
    size_t len = sizeof good - 1;
    char text[sizeof good];
    srand(7);
    int ok = 0;
    for (int it = 0; it < 5000; it++) {
        memcpy(text, good, sizeof good);
        size_t tl = len;
        for (int m = rand() % 4; m >= 0; m--) {
            size_t at = (size_t)rand() % tl;
            switch (rand() % 3) {
            case 0: text[at] = (char)(rand() % 256); break;
            case 1: text[at] = interesting[rand() % (sizeof interesting - 1)]; break;
            default: memmove(text + at, text + at + 1, tl - at), tl--; break;
            }
        }
        mmt_problem *p = NULL;
        size_t n = 0;
        mmt_err err = {0};
        if (mmt_shapes_load_text("fuzz.yaml", text, tl, &p, NULL, &n, &err) == MMT_OK) {
            ok++;
            int sane = n > 0;
            for (size_t i = 0; i < n; i++) sane &= p[i].m >= 1 && p[i].n >= 1 && p[i].k >= 1;
            CHECK(sane);
        } else {
            CHECK(err.msg[0] != '\0');
            CHECK(p == NULL);
        }
        free(p);
    }
    printf("fuzz: %d of 5000 mutations loaded\n", ok);
}

int main(void)
{
    test_scale();
    test_repeats();
    test_sweep();
    test_fixtures();
    test_errors();
    test_host();
    test_fuzz();
    return check_result();
}
