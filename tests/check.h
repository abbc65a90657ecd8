/* check.h - the small assert macros the tests share: each failure prints the expression,
 * the values and the place, and the test goes on; main returns check_result(). */
#ifndef MMT_CHECK_H
#define MMT_CHECK_H

#include <stdio.h>
#include <string.h>

static int check_failures_;

#define CHECK(cond)                                                                \
    do {                                                                           \
        if (!(cond)) {                                                             \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
            check_failures_++;                                                     \
        }                                                                          \
    } while (0)

#define CHECK_EQ_INT(a, b)                                                                       \
    do {                                                                                         \
        long long a_ = (long long)(a), b_ = (long long)(b);                                      \
        if (a_ != b_) {                                                                          \
            fprintf(stderr, "%s:%d: CHECK failed: %s == %s (%lld vs %lld)\n", __FILE__, __LINE__, #a, \
                    #b, a_, b_);                                                                 \
            check_failures_++;                                                                   \
        }                                                                                        \
    } while (0)

#define CHECK_EQ_STR(a, b)                                                                        \
    do {                                                                                          \
        const char *a_ = (a), *b_ = (b);                                                          \
        if (!a_ || !b_ || strcmp(a_, b_) != 0) {                                                  \
            fprintf(stderr, "%s:%d: CHECK failed: %s == %s (\"%s\" vs \"%s\")\n", __FILE__, __LINE__, \
                    #a, #b, a_ ? a_ : "(null)", b_ ? b_ : "(null)");                              \
            check_failures_++;                                                                    \
        }                                                                                         \
    } while (0)

/* Status checks print the error record's message. */
#define CHECK_OK(expr, errp)                                                                       \
    do {                                                                                           \
        mmt_status s_ = (expr);                                                                    \
        if (s_ != MMT_OK) {                                                                        \
            fprintf(stderr, "%s:%d: %s failed: %s: %s\n", __FILE__, __LINE__, #expr,               \
                    mmt_status_string(s_), (errp)->msg);                            \
            check_failures_++;                                                                     \
        }                                                                                          \
    } while (0)

static int check_result(void)
{
    if (check_failures_) fprintf(stderr, "%d check(s) failed\n", check_failures_);
    return check_failures_ ? 1 : 0;
}

#endif
