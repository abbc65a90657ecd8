/* test_lanes.c - one queue of problems, several devices taking from it (tuner/tune/lanes.c):
 * the queue holds the costliest (2mnk) first, ties in the list's order; every problem runs
 * exactly once whatever the number of lanes, each on one lane, the caller's thread being lane
 * 0; one lane runs them in turn, in the queue's order, on the caller's thread. A lane that
 * fails leaves its problem and the queue to the others; the last one left records every
 * problem, whatever happens. */
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "lanes.h"

enum { N = 40 };

typedef struct seen {
    atomic_int runs[N];
    int lane[N];
    size_t sequence[N];
    atomic_size_t done;
    pthread_t caller;
    atomic_int on_caller_not_lane0, lane_out_of_range, other_ran;
    int lanes;
} seen;

static int record(void *user, int lane, size_t i, int last)
{
    (void)last;
    seen *s = user;
    if (lane < 0 || lane >= s->lanes) atomic_fetch_add(&s->lane_out_of_range, 1);
    if ((lane == 0) != (pthread_equal(pthread_self(), s->caller) != 0)) atomic_fetch_add(&s->on_caller_not_lane0, 1);
    atomic_fetch_add(&s->runs[i], 1);
    s->lane[i] = lane;
    s->sequence[atomic_fetch_add(&s->done, 1)] = i;
    if (lane > 0) atomic_store(&s->other_ran, 1);
    /* the caller's lane waits (10 s at most) until another lane took one: the queue is shared */
    for (int w = 0; lane == 0 && s->lanes > 1 && !atomic_load(&s->other_ran) && w < 10000; w++) usleep(1000);
    return 0;
}

static void test_order(void)
{
    /* m*n*k: 8, 64, 8, 1000, 27: the costliest first, the two of 8 in their order */
    const int side[] = {2, 4, 2, 10, 3};
    mmt_problem p[5];
    for (int i = 0; i < 5; i++)
        p[i] = (mmt_problem){.dtype = MMT_F32, .out = MMT_F32, .mode = MMT_MODE_F32, .m = side[i], .n = side[i],
                             .k = side[i]};
    size_t order[5];
    mmt_lanes_order(p, 5, order);
    const size_t want[] = {3, 1, 4, 0, 2};
    for (int i = 0; i < 5; i++) CHECK_EQ_INT((int)order[i], (int)want[i]);
    mmt_lanes_order(p, 0, order); /* nothing to order */
}

static void run(int lanes)
{
    static seen s;
    memset(&s, 0, sizeof s);
    s.caller = pthread_self();
    s.lanes = lanes < 1 ? 1 : lanes;
    size_t order[N];
    for (size_t j = 0; j < N; j++) order[j] = N - 1 - j; /* a queue that is not 0, 1, 2, ... */
    const int ran = mmt_lanes_run(lanes, order, N, record, &s);
    CHECK_EQ_INT(ran, s.lanes);
    int once = 1, others = 0;
    for (int i = 0; i < N; i++) {
        once &= atomic_load(&s.runs[i]) == 1;
        others += s.lane[i] > 0;
    }
    CHECK(once);
    CHECK_EQ_INT(atomic_load(&s.lane_out_of_range), 0);
    CHECK_EQ_INT(atomic_load(&s.on_caller_not_lane0), 0);
    if (s.lanes == 1) /* in turn, in the queue's order */
        for (size_t j = 0; j < N; j++) CHECK_EQ_INT((int)s.sequence[j], (int)order[j]);
    else
        CHECK(others > 0); /* the lanes shared the queue */
    printf("%d lane(s): %d problems, each once\n", lanes, N);
}

/* Lanes that fail: `broken` has a bit per failing lane. A failing lane records nothing
 * unless it is the last one left, and says so; the others record. */
typedef struct flaky {
    unsigned broken;
    atomic_int recorded[N], recorded_by_broken, failures[8], last_calls;
} flaky;

static int fail_some(void *user, int lane, size_t i, int last)
{
    flaky *f = user;
    if ((f->broken >> lane & 1) && !last) {
        atomic_fetch_add(&f->failures[lane], 1);
        usleep(200);
        return 1;
    }
    atomic_fetch_add(&f->last_calls, last);
    if (f->broken >> lane & 1) atomic_fetch_add(&f->recorded_by_broken, 1);
    atomic_fetch_add(&f->recorded[i], 1);
    usleep(500);
    return 0;
}

static void test_broken(unsigned broken, int lanes)
{
    static flaky f;
    memset(&f, 0, sizeof f);
    f.broken = broken;
    size_t order[N];
    for (size_t j = 0; j < N; j++) order[j] = j;
    CHECK_EQ_INT(mmt_lanes_run(lanes, order, N, fail_some, &f), lanes);
    int once = 1, failing = 0, left = 0;
    for (int i = 0; i < N; i++) once &= atomic_load(&f.recorded[i]) == 1;
    for (int l = 0; l < lanes; l++) {
        failing += broken >> l & 1;
        if (broken >> l & 1) CHECK(atomic_load(&f.failures[l]) <= 1); /* then it left, or was the last one left */
        left += atomic_load(&f.failures[l]) > 0;
    }
    CHECK(once); /* every problem recorded exactly once */
    if (failing < lanes) CHECK_EQ_INT(atomic_load(&f.recorded_by_broken), 0); /* a lane that works took them all */
    else CHECK_EQ_INT(atomic_load(&f.recorded_by_broken), N); /* all broken: the last one left records */
    printf("%d lanes, %d failing: every problem recorded once, %d lane(s) failed one\n", lanes, failing, left);
}

int main(void)
{
    test_order();
    run(1);
    run(0); /* no lane asked: one */
    run(3);
    size_t none = 0;
    CHECK_EQ_INT(mmt_lanes_run(2, &none, 0, record, NULL), 2); /* an empty queue: nothing runs */
    test_broken(1u << 1, 3); /* one device fails */
    test_broken(1u << 0, 2); /* the caller's own */
    test_broken(7u, 3);      /* every one: the last one left records each, failed or not */
    test_broken(1u, 1);      /* one lane is always the last one */
    return check_result();
}
