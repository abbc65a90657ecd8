/* test_shard.c - --shard I/N (tuner/tune/shard.c): I/N parses only with 0 <= I < N; the shards
 * of a list are its distinct problems, each in exactly one shard, dealt in turn and in the
 * list's order, for any N (more workers than problems leaves some empty). */
#include <stdlib.h>

#include "check.h"
#include "shard.h"

static void test_parse(void)
{
    int i = -1, n = -1;
    CHECK(mmt_shard_parse("0/1", &i, &n) == 0 && i == 0 && n == 1);
    CHECK(mmt_shard_parse("7/8", &i, &n) == 0 && i == 7 && n == 8);
    const char *bad[] = {"", "1", "1/", "/2", "2/2", "3/2", "-1/2", "1/-2", "+1/2", "1/+2", "1/0", "a/2",
                         "1/2x", "1 /2", " 1/2", "1/ 2", "1/1000001", "0/99999999999999999999"};
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++)
        if (mmt_shard_parse(bad[k], &i, &n) == 0) {
            fprintf(stderr, "  '%s' parsed\n", bad[k]);
            CHECK(0);
        }
}

/* 10 problems, m = 1..10, with m = 3 and m = 7 written again (12 entries). */
static size_t sample(mmt_problem *p)
{
    size_t n = 0;
    for (int m = 1; m <= 10; m++) {
        p[n++] = (mmt_problem){.dtype = MMT_F32, .out = MMT_F32, .mode = MMT_MODE_F32, .m = m, .n = 8, .k = 8};
        if (m == 3 || m == 7) p[n] = p[n - 1], n++;
    }
    return n;
}

static void test_deal(void)
{
    for (int count = 1; count <= 13; count++) {
        int times[11] = {0};
        for (int index = 0; index < count; index++) {
            mmt_problem p[16];
            size_t n = sample(p);
            CHECK(mmt_shard_select(p, &n, index, count) == 0);
            for (size_t j = 0; j < n; j++) {
                CHECK(p[j].m == (int64_t)(index + 1 + (int)j * count)); /* dealt in turn, in order */
                if (p[j].m >= 1 && p[j].m <= 10) times[p[j].m]++;
            }
        }
        for (int m = 1; m <= 10; m++) CHECK_EQ_INT(times[m], 1);
    }
    size_t none = 0;
    CHECK(mmt_shard_select(NULL, &none, 0, 1) == 0 && none == 0);
}

int main(void)
{
    test_parse();
    test_deal();
    return check_result();
}
