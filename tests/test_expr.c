/* test_expr.c - the expression language: precedence, functions, short-circuit, slots,
 * syntax errors with their columns, evaluation errors, and random inputs that must
 * never crash. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "expr.h"

/* Names for the tests: BM=64 BN=32 TM=4 ZERO=0 device.max_threads_per_block=1024 */
static int lookup(void *user, const char *name, size_t len, int64_t *value)
{
    static const struct {
        const char *name;
        int64_t v;
    } vars[] = {{"BM", 64}, {"BN", 32}, {"TM", 4}, {"ZERO", 0}, {"device.max_threads_per_block", 1024}};
    (void)user;
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
        if (strlen(vars[i].name) == len && memcmp(vars[i].name, name, len) == 0) {
            *value = vars[i].v;
            return 0;
        }
    return -1;
}

static int64_t ev(const char *text)
{
    mmt_expr *e;
    mmt_err err;
    int col;
    int64_t v = -999999;
    if (mmt_expr_parse(text, &e, &col, &err) != MMT_OK) {
        fprintf(stderr, "parse '%s': %s\n", text, err.msg);
        return v;
    }
    if (mmt_expr_eval(e, lookup, NULL, &v, &err) != MMT_OK) fprintf(stderr, "eval '%s': %s\n", text, err.msg);
    mmt_expr_free(e);
    return v;
}

/* The column of a syntax error, or 0 if it parses. */
static int syntax_col(const char *text, char *msg, size_t size)
{
    mmt_expr *e = NULL;
    mmt_err err = {0};
    int col = -1;
    mmt_status st = mmt_expr_parse(text, &e, &col, &err);
    if (msg) snprintf(msg, size, "%s", err.msg);
    if (st == MMT_OK) {
        mmt_expr_free(e);
        return 0;
    }
    CHECK_EQ_INT(st, MMT_PARSE);
    CHECK(e == NULL);
    return col;
}

static mmt_status eval_status(const char *text, char *msg, size_t size)
{
    mmt_expr *e;
    mmt_err err = {0};
    int col;
    int64_t v;
    mmt_status st = mmt_expr_parse(text, &e, &col, &err);
    if (st != MMT_OK) return st;
    st = mmt_expr_eval(e, lookup, NULL, &v, &err);
    snprintf(msg, size, "%s", err.msg);
    mmt_expr_free(e);
    return st;
}

static void test_values(void)
{
    CHECK_EQ_INT(ev("1 + 2 * 3"), 7);
    CHECK_EQ_INT(ev("(1 + 2) * 3"), 9);
    CHECK_EQ_INT(ev("10 - 4 - 3"), 3);
    CHECK_EQ_INT(ev("100 / 10 / 5"), 2);
    CHECK_EQ_INT(ev("7 % 4 * 2"), 6);
    CHECK_EQ_INT(ev("-7 / 2"), -3);
    CHECK_EQ_INT(ev("-7 % 2"), -1);
    CHECK_EQ_INT(ev("- -3"), 3);
    CHECK_EQ_INT(ev("+5"), 5);
    CHECK_EQ_INT(ev("!0"), 1);
    CHECK_EQ_INT(ev("!5"), 0);
    CHECK_EQ_INT(ev("!!7"), 1);
    CHECK_EQ_INT(ev("-2 * -3"), 6);
    CHECK_EQ_INT(ev("1 < 2 == 1"), 1); /* relational binds tighter than equality */
    CHECK_EQ_INT(ev("2 + 3 > 4"), 1);
    CHECK_EQ_INT(ev("1 || 0 && 0"), 1); /* && binds tighter than || */
    CHECK_EQ_INT(ev("(1 || 0) && 0"), 0);
    CHECK_EQ_INT(ev("3 && 4"), 1);
    CHECK_EQ_INT(ev("0 || 7"), 1);
    CHECK_EQ_INT(ev("1 ? 10 : 20"), 10);
    CHECK_EQ_INT(ev("0 ? 10 : 20"), 20);
    CHECK_EQ_INT(ev("0 ? 1 : 0 ? 2 : 3"), 3); /* right associative */
    CHECK_EQ_INT(ev("1 ? 0 ? 5 : 6 : 7"), 6);
    CHECK_EQ_INT(ev("1 + 1 ? 2 : 3"), 2);
    CHECK_EQ_INT(ev("5 <= 5"), 1);
    CHECK_EQ_INT(ev("5 >= 6"), 0);
    CHECK_EQ_INT(ev("5 != 6"), 1);
    CHECK_EQ_INT(ev("true + true"), 2);
    CHECK_EQ_INT(ev("false"), 0);
    CHECK_EQ_INT(ev("0x10"), 16);
    CHECK_EQ_INT(ev("9223372036854775807"), INT64_MAX);
    CHECK_EQ_INT(ev("ceil_div(10, 3)"), 4);
    CHECK_EQ_INT(ev("ceil_div(9, 3)"), 3);
    CHECK_EQ_INT(ev("ceil_div(-10, 3)"), -3);
    CHECK_EQ_INT(ev("ceil_div(4097, 128)"), 33);
    CHECK_EQ_INT(ev("min(3, -4)"), -4);
    CHECK_EQ_INT(ev("max(3, -4)"), 3);
    CHECK_EQ_INT(ev("log2(1)"), 0);
    CHECK_EQ_INT(ev("log2(1023)"), 9);
    CHECK_EQ_INT(ev("log2(1024)"), 10);
    CHECK_EQ_INT(ev("pow2(10)"), 1024);
    CHECK_EQ_INT(ev("pow2(0)"), 1);
    CHECK_EQ_INT(ev("abs(-5) + abs(5)"), 10);
    CHECK_EQ_INT(ev("max(min(1, 2), ceil_div(7, 2))"), 4);
    CHECK_EQ_INT(ev("(BM / TM) * (BN / TM)"), 128);
    CHECK_EQ_INT(ev("BM*BN < device.max_threads_per_block * 2"), 0);
    CHECK_EQ_INT(ev("  BM\t+\nBN  "), 96);
    CHECK_EQ_INT(ev("!ZERO || (BM % 4 == 0)"), 1);
    /* short-circuit: the untaken side is not evaluated, so no division by zero */
    CHECK_EQ_INT(ev("ZERO != 0 && BM / ZERO > 1"), 0);
    CHECK_EQ_INT(ev("ZERO == 0 || BM / ZERO > 1"), 1);
    CHECK_EQ_INT(ev("ZERO ? BM / ZERO : 5"), 5);
    /* overflow wraps instead of trapping */
    CHECK_EQ_INT(ev("9223372036854775807 + 1"), INT64_MIN);
    CHECK_EQ_INT(ev("(-9223372036854775807 - 1) / -1"), INT64_MIN);
    CHECK_EQ_INT(ev("(-9223372036854775807 - 1) % -1"), 0);
}

static void test_syntax_errors(void)
{
    char msg[4096];
    CHECK_EQ_INT(syntax_col("1 +", msg, sizeof msg), 4);
    CHECK(strstr(msg, "column 4") != NULL);
    CHECK_EQ_INT(syntax_col("(1 + 2", msg, sizeof msg), 7);
    CHECK(strstr(msg, "')'") != NULL);
    CHECK_EQ_INT(syntax_col("1 + 2)", NULL, 0), 6);
    CHECK_EQ_INT(syntax_col("BM $ 2", msg, sizeof msg), 4);
    CHECK(strstr(msg, "'$'") != NULL);
    CHECK_EQ_INT(syntax_col("", NULL, 0), 1);
    CHECK_EQ_INT(syntax_col("   ", NULL, 0), 4);
    CHECK_EQ_INT(syntax_col("1 2", NULL, 0), 3);
    CHECK_EQ_INT(syntax_col("a ? b", msg, sizeof msg), 6);
    CHECK_EQ_INT(syntax_col("foo(1)", msg, sizeof msg), 1);
    CHECK(strstr(msg, "foo") != NULL);
    CHECK_EQ_INT(syntax_col("min(1)", msg, sizeof msg), 6);
    CHECK(strstr(msg, "2 arguments") != NULL);
    CHECK_EQ_INT(syntax_col("abs(1, 2)", msg, sizeof msg), 6);
    CHECK_EQ_INT(syntax_col("min()", NULL, 0), 5);
    CHECK_EQ_INT(syntax_col("12ab", NULL, 0), 1);
    CHECK_EQ_INT(syntax_col("99999999999999999999", msg, sizeof msg), 1);
    CHECK(strstr(msg, "too large") != NULL);
    CHECK_EQ_INT(syntax_col("device.", NULL, 0), 1);
    CHECK_EQ_INT(syntax_col("a..b", NULL, 0), 1);
    CHECK_EQ_INT(syntax_col("x = 1", NULL, 0), 3);
    CHECK_EQ_INT(syntax_col("1 & 2", NULL, 0), 3);
    /* very deep nesting is an error, not a stack overflow */
    char deep[4001];
    memset(deep, '(', 2000);
    memset(deep + 2000, ')', 2000);
    deep[1000] = '1';
    deep[4000] = '\0';
    CHECK(syntax_col(deep, NULL, 0) > 0);
    memset(deep, '-', 4000);
    deep[3999] = '1';
    CHECK(syntax_col(deep, NULL, 0) > 0);
    CHECK_EQ_INT(syntax_col("1 ? 2 : 3", NULL, 0), 0);
}

static void test_eval_errors(void)
{
    char msg[4096];
    CHECK_EQ_INT(eval_status("BM / ZERO", msg, sizeof msg), MMT_PARSE);
    CHECK(strstr(msg, "division by zero") && strstr(msg, "BM / ZERO"));
    CHECK_EQ_INT(eval_status("BM % (TM - 4)", msg, sizeof msg), MMT_PARSE);
    CHECK(strstr(msg, "modulo by zero") && strstr(msg, "BM % (TM - 4)"));
    CHECK_EQ_INT(eval_status("ceil_div(1, ZERO)", msg, sizeof msg), MMT_PARSE);
    CHECK_EQ_INT(eval_status("BK + 1", msg, sizeof msg), MMT_PARSE);
    CHECK(strstr(msg, "'BK'") != NULL);
    CHECK_EQ_INT(eval_status("device.warp_size", msg, sizeof msg), MMT_PARSE);
    CHECK(strstr(msg, "device.warp_size") != NULL);
    CHECK_EQ_INT(eval_status("log2(0)", msg, sizeof msg), MMT_PARSE);
    CHECK_EQ_INT(eval_status("pow2(63)", msg, sizeof msg), MMT_PARSE);
    CHECK_EQ_INT(eval_status("pow2(-1)", msg, sizeof msg), MMT_PARSE);
}

static void count_name(void *user, const char *name, size_t len)
{
    char *buf = user;
    strncat(buf, name, len);
    strcat(buf, ";");
}

static int resolve(void *user, const char *name, size_t len)
{
    (void)user;
    if (len == 1 && name[0] == 'A') return 0;
    if (len == 1 && name[0] == 'B') return 2;
    return -1;
}

static void test_names_and_slots(void)
{
    mmt_expr *e;
    mmt_err err;
    int col;
    CHECK_OK(mmt_expr_parse("A * B + A - TM + device.x - min(A, 2)", &e, &col, &err), &err);
    char names[256] = "";
    mmt_expr_names(e, count_name, names);
    CHECK_EQ_STR(names, "A;B;TM;device.x;");
    mmt_expr_free(e);

    CHECK_OK(mmt_expr_parse("A * 10 + B + TM", &e, &col, &err), &err);
    mmt_expr_bind(e, resolve, NULL);
    int64_t slots[3] = {3, -1, 5}, v = 0;
    CHECK_OK(mmt_expr_eval_slots(e, slots, lookup, NULL, &v, &err), &err);
    CHECK_EQ_INT(v, 39);
    /* without slots every name goes to lookup: A is unknown there */
    CHECK_EQ_INT(mmt_expr_eval(e, lookup, NULL, &v, &err), MMT_PARSE);
    CHECK(strstr(err.msg, "'A'") != NULL);
    /* unbound TM with no lookup */
    CHECK_EQ_INT(mmt_expr_eval_slots(e, slots, NULL, NULL, &v, &err), MMT_PARSE);
    CHECK(strstr(err.msg, "'TM'") != NULL);
    CHECK_EQ_STR(mmt_expr_text(e), "A * 10 + B + TM");
    mmt_expr_free(e);
    mmt_expr_free(NULL);
}

/* Random texts over the expression alphabet, and mutations of a valid one: no crash. */
static void test_fuzz(void)
{
    static const char alphabet[] = "0123456789 ()+-*/%<>=!&|?:,abBMNK_.x";
    const char *base = "THREADS >= 64 && (BM % TM == 0 ? ceil_div(N, BN) : max(1, -K)) <= device.max_threads";
    srand(1234);
    int parsed = 0;
    for (int it = 0; it < 20000; it++) {
        char text[128];
        if (it % 2) {
            int len = rand() % 40;
            for (int i = 0; i < len; i++) text[i] = alphabet[rand() % (sizeof alphabet - 1)];
            text[len] = '\0';
        } else {
            snprintf(text, sizeof text, "%s", base);
            int len = (int)strlen(text);
            for (int m = rand() % 4; m >= 0; m--) text[rand() % len] = (char)(1 + rand() % 255);
        }
        mmt_expr *e;
        mmt_err err;
        int col;
        if (mmt_expr_parse(text, &e, &col, &err) == MMT_OK) {
            int64_t v;
            mmt_expr_eval(e, lookup, NULL, &v, &err);
            mmt_expr_free(e);
            parsed++;
        } else {
            CHECK(col >= 1 && col <= (int)strlen(text) + 1);
        }
    }
    CHECK(parsed > 0);
}

int main(void)
{
    test_values();
    test_syntax_errors();
    test_eval_errors();
    test_names_and_slots();
    test_fuzz();
    return check_result();
}
