/* test_parallel_for.c - loops on plain threads (src/parallel_for.c): every iteration of
 * [0, n) runs exactly once, for static shares (chunk 0) and handed-out chunks, more threads
 * than iterations, one thread, and the host's count (0); a static split is the same for the
 * same n and threads (STREAM's first touch and a CPU batch's contiguous ranges rely on it);
 * loops from several threads at once (one has the kept workers, the others threads of their
 * own); a forked child's loops (the workers stayed with the parent). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "parallel_for.h"

typedef struct {
    atomic_int *visits;
    atomic_int calls;
} tally;

static void count(void *ctx, int64_t begin, int64_t end)
{
    tally *t = ctx;
    atomic_fetch_add(&t->calls, 1);
    for (int64_t i = begin; i < end; i++) atomic_fetch_add(&t->visits[i], 1);
}

static void test_each_once(void)
{
    const int64_t sizes[] = {0, 1, 7, 1000, 100003};
    const int64_t chunks[] = {0, 1, 13, 1 << 20};
    const int threads[] = {0, 1, 3, 64};
    for (size_t a = 0; a < sizeof sizes / sizeof *sizes; a++)
        for (size_t b = 0; b < sizeof chunks / sizeof *chunks; b++)
            for (size_t c = 0; c < sizeof threads / sizeof *threads; c++) {
                const int64_t n = sizes[a];
                tally t = {calloc((size_t)n + 1, sizeof(atomic_int)), 0};
                mmt_parallel_for(n, chunks[b], threads[c], count, &t);
                int64_t wrong = 0;
                for (int64_t i = 0; i < n; i++) wrong += atomic_load(&t.visits[i]) != 1;
                CHECK_EQ_INT(wrong, 0);
                if (n == 0) CHECK_EQ_INT(atomic_load(&t.calls), 0);
                free(t.visits);
            }
}

/* where each share wrote its first index, the owner of every element */
typedef struct {
    int64_t *owner;
} owners;

static void mark(void *ctx, int64_t begin, int64_t end)
{
    owners *o = ctx;
    for (int64_t i = begin; i < end; i++) o->owner[i] = begin;
}

static void test_static_split_repeats(void)
{
    enum { N = 10007 };
    int64_t *first = malloc(sizeof(int64_t) * N), *second = malloc(sizeof(int64_t) * N);
    owners a = {first}, b = {second};
    mmt_parallel_for(N, 0, 5, mark, &a);
    mmt_parallel_for(N, 0, 5, mark, &b);
    int64_t differ = 0, shares = 1;
    for (int64_t i = 0; i < N; i++) {
        differ += first[i] != second[i];
        if (i > 0 && first[i] != first[i - 1]) shares++;
    }
    CHECK_EQ_INT(differ, 0);
    CHECK_EQ_INT(shares, 5);
    free(first);
    free(second);
}

/* Loops of n iterations, each checked to visit every one once; the count of wrong ones. */
static int64_t loops_wrong(int rounds, int64_t n, int64_t chunk, int threads)
{
    int64_t wrong = 0;
    atomic_int *visits = calloc((size_t)n, sizeof(atomic_int));
    for (int r = 0; r < rounds; r++) {
        tally t = {visits, 0};
        for (int64_t i = 0; i < n; i++) atomic_store(&visits[i], 0);
        mmt_parallel_for(n, chunk, threads, count, &t);
        for (int64_t i = 0; i < n; i++) wrong += atomic_load(&visits[i]) != 1;
    }
    free(visits);
    return wrong;
}

static void *caller(void *arg)
{
    *(int64_t *)arg = loops_wrong(200, 1000, (*(int64_t *)arg) % 2 ? 7 : 0, 3);
    return NULL;
}

static void test_callers_at_once(void)
{
    enum { CALLERS = 4 };
    pthread_t t[CALLERS];
    int64_t result[CALLERS];
    for (int i = 0; i < CALLERS; i++) {
        result[i] = i;
        CHECK(pthread_create(&t[i], NULL, caller, &result[i]) == 0);
    }
    for (int i = 0; i < CALLERS; i++) {
        pthread_join(t[i], NULL);
        CHECK_EQ_INT(result[i], 0);
    }
}

static void test_forked_child(void)
{
    CHECK_EQ_INT(loops_wrong(3, 1000, 0, 3), 0); /* the parent's workers exist */
    const pid_t pid = fork();
    if (pid == 0) _exit(loops_wrong(20, 1000, 0, 3) == 0 && loops_wrong(20, 1000, 5, 3) == 0 ? 0 : 1);
    int status = -1;
    CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    CHECK_EQ_INT(loops_wrong(3, 1000, 0, 3), 0);
}

int main(void)
{
    test_each_once();
    test_static_split_repeats();
    test_callers_at_once();
    test_forked_child();
    return check_result();
}
