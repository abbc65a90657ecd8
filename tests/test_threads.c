/* test_threads.c - the threading contract of include/mmtuned.h on the CPU: 8 threads call
 * the GEMM functions at once on one context, then 8 threads each on a context of its own,
 * with shapes no thread has run before (first-time shapes are chosen, compiled and loaded
 * while the others keep calling), a database that records misses and syncs every second;
 * every result is checked against a double reference, and each thread's errors and last
 * choice are its own (a bad call in one thread leaves the others' views alone). CI runs it
 * under ThreadSanitizer too (.ci/run). */
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "mmtuned.h"
#include "store.h"

#define THREADS 8
#define ROUNDS 12

typedef struct job {
    mmt_ctx *ctx; /* shared, or NULL: the thread opens its own */
    int id;
    int bad;       /* wrong results or broken contracts, counted here: check.h's counter is not atomic */
    char why[700]; /* the first of them */
} job;

static double uniform(uint64_t *s)
{
    *s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
    return (double)(*s >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

static void fail(job *j, const char *what)
{
    if (!j->bad++) snprintf(j->why, sizeof j->why, "thread %d: %s", j->id, what);
}

/* One call of a shape (f32 or f64, row-major, A transposed or not) against a reference. */
static void one_call(job *j, uint64_t *rng, int f64, int ta, int64_t m, int64_t n, int64_t k)
{
    const size_t es = f64 ? 8 : 4;
    const int64_t lda = (ta ? m : k) + 1, ldb = n + 2, ldc = n + 3;
    double *a = malloc(sizeof(double) * (ta ? k : m) * lda), *b = malloc(sizeof(double) * k * ldb);
    void *af = malloc(es * (ta ? k : m) * lda), *bf = malloc(es * k * ldb), *c = malloc(es * m * ldc);
    for (int64_t i = 0; i < (ta ? k : m) * lda; i++) a[i] = uniform(rng);
    for (int64_t i = 0; i < k * ldb; i++) b[i] = uniform(rng);
    for (int64_t i = 0; i < (ta ? k : m) * lda; i++) /* stored in the call's type, read back exactly */
        f64 ? (void)(((double *)af)[i] = a[i]) : (void)(a[i] = ((float *)af)[i] = (float)a[i]);
    for (int64_t i = 0; i < k * ldb; i++) f64 ? (void)(((double *)bf)[i] = b[i]) : (void)(b[i] = ((float *)bf)[i] = (float)b[i]);
    memset(c, 0xff, es * m * ldc); /* NaN: beta = 0 must not read it, every element must be written */
    const mmt_transpose A = ta ? MMT_TRANS : MMT_NO_TRANS;
    mmt_status st = f64 ? mmt_dgemm(j->ctx, MMT_ROW_MAJOR, A, MMT_NO_TRANS, m, n, k, 1.0, af, lda, bf, ldb, 0.0, c, ldc)
                        : mmt_sgemm(j->ctx, MMT_ROW_MAJOR, A, MMT_NO_TRANS, m, n, k, 1.0f, af, lda, bf, ldb, 0.0f, c,
                                    ldc);
    char what[600];
    if (st != MMT_OK) {
        snprintf(what, sizeof what, "gemm failed: %s", mmt_last_error(j->ctx));
        fail(j, what);
    } else {
        double err = 0, norm = 0;
        for (int64_t r = 0; r < m; r++)
            for (int64_t q = 0; q < n; q++) {
                double s = 0;
                for (int64_t l = 0; l < k; l++) s += (ta ? a[l * lda + r] : a[r * lda + l]) * b[l * ldb + q];
                double got = f64 ? ((double *)c)[r * ldc + q] : ((float *)c)[r * ldc + q];
                err += (got - s) * (got - s), norm += s * s;
            }
        const double rel = sqrt(err / (norm > 0 ? norm : 1)), bound = 8 * sqrt((double)k) * (f64 ? 0x1p-53 : 0x1p-24);
        const char *config;
        if (!(rel <= bound)) {
            snprintf(what, sizeof what, "%s %lldx%lldx%lld: relative error %g (bound %g)", f64 ? "f64" : "f32",
                     (long long)m, (long long)n, (long long)k, rel, bound);
            fail(j, what);
        } else if (mmt_last_choice(j->ctx, &config) == MMT_CHOICE_NONE || !config[0]) {
            fail(j, "a successful call left no choice in this thread's view");
        } else if (mmt_last_error(j->ctx)[0]) {
            fail(j, "a successful call left an error in this thread's view");
        }
    }
    free(a), free(b), free(af), free(bf), free(c);
}

static void *work(void *arg)
{
    job *j = arg;
    int own = j->ctx == NULL;
    if (own && mmt_open(&j->ctx, "cpu", NULL) != MMT_OK) {
        fail(j, mmt_last_error(j->ctx));
        mmt_close(j->ctx);
        return NULL;
    }
    uint64_t rng = 0x9E3779B97F4A7C15ull * (uint64_t)(j->id + 1);
    for (int r = 0; r < ROUNDS; r++) {
        /* shapes of this thread alone, and shapes every thread runs in the same round */
        const int shared = r % 3 == 0;
        const int64_t m = 9 + (shared ? r : j->id * 11 + r * 7) % 40, n = 5 + (shared ? 2 * r : j->id * 5 + r) % 37,
                      k = 3 + (shared ? 3 * r : j->id * 3 + r * 5) % 29;
        one_call(j, &rng, (r + j->id) % 2, r % 4 == 1, m, n, k);
        if (r % 4 == 2) { /* a bad call: its error is this thread's, and the next good call clears it */
            float x[4] = {0};
            mmt_status st = mmt_sgemm(j->ctx, MMT_ROW_MAJOR, MMT_NO_TRANS, MMT_NO_TRANS, 2, 2, 2, 1.0f, x, 1, x, 2,
                                      0.0f, x, 2);
            if (st != MMT_INVALID_ARGUMENT || !strstr(mmt_last_error(j->ctx), "lda"))
                fail(j, "a bad call's error is not in its thread's view");
        }
    }
    if (own) mmt_close(j->ctx);
    return NULL;
}

static void run(mmt_ctx *shared, const char *what)
{
    pthread_t t[THREADS];
    job jobs[THREADS];
    for (int i = 0; i < THREADS; i++) {
        jobs[i] = (job){.ctx = shared, .id = i};
        CHECK(pthread_create(&t[i], NULL, work, &jobs[i]) == 0);
    }
    int bad = 0;
    for (int i = 0; i < THREADS; i++) {
        pthread_join(t[i], NULL);
        if (jobs[i].bad) fprintf(stderr, "%s: %s (%d in all)\n", what, jobs[i].why, jobs[i].bad);
        bad += jobs[i].bad;
    }
    CHECK_EQ_INT(bad, 0);
    printf("%s: %d threads x %d rounds ok\n", what, THREADS, ROUNDS);
}

int main(void)
{
    char dir[] = "/tmp/mmtune-test-threads-XXXXXX", db[256];
    if (!mkdtemp(dir)) return 1;
    snprintf(db, sizeof db, "%s/t.db", dir);
    mmt_store *st;
    mmt_err err;
    CHECK_OK(mmt_store_open(db, 0, &st, &err), &err); /* a database: misses are counted and written back */
    mmt_store_close(st);
    setenv("MMTUNE_DB", db, 1);
    setenv("MMTUNE_SYNC_S", "1", 1);

    mmt_ctx *ctx;
    CHECK_EQ_INT(mmt_open(&ctx, "cpu", NULL), MMT_OK);
    run(ctx, "one context");
    mmt_close(ctx);
    run(NULL, "a context per thread");

    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
    return check_result();
}
