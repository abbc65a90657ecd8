/* test_bench.c - the tuner's verification (tuner/measure/bench.c), which decides what a kernel may
 * be: mmt_bench_error_bound's value for each mode, output type and Strassen level, pinned
 * to the formula bench.h states (numbers written out here, not the function again); and
 * mmt_bench_verify on the CPU backend with a GEMM of the test's own (long double sums of
 * the stored inputs, not the bench's reference) into which an error is planted:
 *   - the right result passes, with an error far inside the bound;
 *   - an error of 0.9 bound passes and one of 1.1 bound fails, placed on the first, a
 *     middle or the last element of C: the whole of C is compared, at the stated bound;
 *   - a NaN anywhere fails, and so does an element left unwritten after a right run
 *     (C is poisoned before each verification).
 * Problems in f32, f64 (column major, transposed: the bench's row-major form) and bf16 in.
 * And mmt_bench_time_paired's order: every other round reversed, so that no implementation
 * always follows the same other (a fixed A B C order would), and each sample after an
 * untimed run of its own implementation (twice the sample's calls); mmt_bench_time_cool's
 * order and sample length; mmt_bench_warm's turns. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "check.h"
#include "clock.h"
#include "half.h"

/* The bound as bench.h states it, written out: 8 (sqrt(K) + L) 7^(L/2) u_acc (x2 for
 * f32x3) + 4 u_in + 2 u_out. */
static void test_bound_values(void)
{
    const double u24 = ldexp(1.0, -24), u53 = ldexp(1.0, -53);
    struct {
        const char *problem;
        int levels;
        double want;
    } cases[] = {
        {"f32 row NN 64x64x100", 0, 8 * 10 * u24},
        {"f32 row NN 64x64x1", 0, 8 * u24},
        {"f64 col TN 64x64x100", 0, 8 * 10 * u53},
        {"tf32 row NN 64x64x64", 0, 8 * 8 * u24 + 4 * ldexp(1.0, -11)},
        {"f32x3 row NN 64x64x64", 0, 2 * 8 * 8 * u24},
        {"bf16->f32 row NN 64x64x64", 0, 8 * 8 * u24},
        {"bf16 row NN 64x64x64", 0, 8 * 8 * u24 + 2 * ldexp(1.0, -8)},
        {"f16 row NN 64x64x64", 0, 8 * 8 * u24 + 2 * ldexp(1.0, -11)},
        {"f32 row NN 64x64x64", 1, 8 * (8 + 1) * sqrt(7.0) * u24},
        {"f32 row NN 64x64x64", 2, 8 * (8 + 2) * 7 * u24},
        {"f64 row NN 64x64x64", 1, 8 * (8 + 1) * sqrt(7.0) * u53},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        mmt_problem p;
        const char *bad = mmt_problem_parse(cases[i].problem, &p);
        if (bad) fprintf(stderr, "%s: %s\n", cases[i].problem, bad);
        CHECK(bad == NULL);
        if (bad) continue;
        const double got = mmt_bench_error_bound(&p, cases[i].levels);
        if (!(fabs(got - cases[i].want) <= 1e-12 * cases[i].want)) {
            fprintf(stderr, "bound of %s, %d levels: %.17g, wanted %.17g\n", cases[i].problem, cases[i].levels, got,
                    cases[i].want);
            CHECK(0);
        }
    }
    mmt_problem empty; /* K = 0 counts as 1 (the text names no such problem) */
    CHECK(mmt_problem_parse("f32 row NN 64x64x1", &empty) == NULL);
    empty.k = 0;
    CHECK(mmt_bench_error_bound(&empty, 0) == 8 * u24);
}

/* What the test's GEMM does wrong, if anything. */
typedef enum plant { RIGHT, ADD, NAN_AT, SKIP } plant;

typedef struct planted {
    plant what;
    int64_t at;   /* the element of C (row-major, dense: the bench's ldc is n) */
    double delta; /* ADD: added to it */
} planted;

static void set_elem(void *buf, mmt_dtype dt, int64_t i, double v)
{
    switch (dt) {
    case MMT_F64: ((double *)buf)[i] = v; break;
    case MMT_BF16: ((uint16_t *)buf)[i] = mmt_bf16_from_double(v); break;
    case MMT_F16: ((uint16_t *)buf)[i] = mmt_f16_from_double(v); break;
    default: ((float *)buf)[i] = (float)v; break;
    }
}

/* C = alpha op(A) op(B) (beta is 0 in a verification) from the stored inputs, summed in long
 * double, then the planted fault. The bench's problem is row major. */
static const mmt_problem *current;

static mmt_status test_gemm(void *user, const mmt_gemm_params *g, void *stream, mmt_err *err)
{
    (void)stream, (void)err;
    const planted *pl = user;
    const mmt_dtype ab = current->dtype, out = current->out;
    for (int64_t i = 0; i < g->m; i++)
        for (int64_t j = 0; j < g->n; j++) {
            const int64_t at = i * g->ldc + j;
            if (pl->what == SKIP && at == pl->at) continue;
            long double s = 0;
            for (int64_t l = 0; l < g->k; l++)
                s += (long double)mmt_bench_elem(g->a, ab, (size_t)(g->trans_a ? l * g->lda + i : i * g->lda + l)) *
                     mmt_bench_elem(g->b, ab, (size_t)(g->trans_b ? j * g->ldb + l : l * g->ldb + j));
            double v = (double)(g->alpha * s);
            if (at == pl->at && pl->what == ADD) v += pl->delta;
            if (at == pl->at && pl->what == NAN_AT) v = NAN;
            set_elem(g->c, out, at, v);
        }
    return MMT_OK;
}

/* Verifies the test's GEMM with plant pl; *rel the error the bench measured. */
static int verify(mmt_bench *b, planted pl, double *rel)
{
    mmt_err err;
    int ok = -1;
    *rel = -1;
    CHECK_OK(mmt_bench_verify(b, test_gemm, &pl, 0, rel, &ok, &err), &err);
    return ok;
}

static void test_verify(const mmt_device_info *dev, const char *text, double bound)
{
    mmt_problem up;
    CHECK(mmt_problem_parse(text, &up) == NULL);
    mmt_bench *b = NULL;
    mmt_err err;
    CHECK_OK(mmt_bench_setup(&mmt_backend_cpu, dev, NULL, &up, 0, &b, &err), &err);
    if (!b) return;
    current = &b->p;
    const int64_t count = b->p.m * b->p.n;
    const double norm = b->ref_norm;
    CHECK(norm > 0);
    double rel;

    CHECK_EQ_INT(verify(b, (planted){RIGHT, -1, 0}, &rel), 1);
    CHECK(rel >= 0 && rel < bound / 8);
    printf("%-26s bound %.3g, a right result %.3g\n", text, bound, rel);

    const int64_t places[] = {0, count / 2 + 1, count - 1};
    for (size_t i = 0; i < sizeof places / sizeof places[0]; i++) {
        const int64_t at = places[i];
        /* the bench's bound is sqrt(s) / norm <= bound: 0.9 and 1.1 of it on one element */
        int inside = verify(b, (planted){ADD, at, 0.9 * bound * norm}, &rel);
        if (inside != 1) fprintf(stderr, "%s: 0.9 bound at %lld failed (%.4g)\n", text, (long long)at, rel);
        CHECK_EQ_INT(inside, 1);
        int outside = verify(b, (planted){ADD, at, -1.1 * bound * norm}, &rel);
        if (outside != 0) fprintf(stderr, "%s: 1.1 bound at %lld passed (%.4g)\n", text, (long long)at, rel);
        CHECK_EQ_INT(outside, 0);
        CHECK(rel > bound && rel < 1.2 * bound);
        CHECK_EQ_INT(verify(b, (planted){NAN_AT, at, 0}, &rel), 0);
        CHECK(isnan(rel));
        /* a right run leaves right values in C; one that then skips an element must not
         * find them there */
        CHECK_EQ_INT(verify(b, (planted){RIGHT, -1, 0}, &rel), 1);
        CHECK_EQ_INT(verify(b, (planted){SKIP, at, 0}, &rel), 0);
    }
    mmt_bench_free(b);
}

/* The order the paired timing ran three implementations in, runs of one collapsed (a
 * sample is many calls of one): after C, B must come at some time, not always A. And the
 * calls of each run (test_paired_order says which it expects). */
static int order_log[4096], run_calls[4096], order_n;

static mmt_status logged_gemm(void *user, const mmt_gemm_params *g, void *stream, mmt_err *err)
{
    (void)g, (void)stream, (void)err;
    const int id = *(const int *)user;
    if ((order_n == 0 || order_log[order_n - 1] != id) && order_n < (int)(sizeof order_log / sizeof *order_log))
        order_log[order_n++] = id;
    run_calls[order_n - 1]++;
    return MMT_OK;
}

/* A bench of a tiny problem, for the order of the timing functions' calls (the log cleared);
 * NULL: failed. */
static mmt_bench *tiny_bench(const mmt_device_info *dev)
{
    order_n = 0;
    memset(run_calls, 0, sizeof run_calls);
    mmt_problem up;
    CHECK(mmt_problem_parse("f32 row NN 8x8x8", &up) == NULL);
    mmt_bench *b = NULL;
    mmt_err err;
    CHECK_OK(mmt_bench_setup(&mmt_backend_cpu, dev, NULL, &up, 0, &b, &err), &err);
    return b;
}

static void test_paired_order(const mmt_device_info *dev, int settle)
{
    mmt_bench *b = tiny_bench(dev);
    if (!b) return;
    CHECK_EQ_INT(b->settle, 0); /* the CPU's: no power controller to settle */
    b->settle = settle;
    mmt_err err;
    static const int ids[3] = {0, 1, 2};
    const mmt_gemm_fn fns[3] = {logged_gemm, logged_gemm, logged_gemm};
    void *const users[3] = {(void *)&ids[0], (void *)&ids[1], (void *)&ids[2]};
    mmt_timing t[3];
    CHECK_OK(mmt_bench_time_paired(b, 3, fns, users, t, &err), &err);
    int after_c[3] = {0, 0, 0}, rounds_first = 0;
    for (int i = 1; i < order_n; i++)
        if (order_log[i - 1] == 2) after_c[order_log[i]]++;
    for (int i = 0; i + 2 < order_n; i++) rounds_first += order_log[i] == 2 && order_log[i + 1] == 1 && order_log[i + 2] == 0;
    printf("paired order: %d runs over %d rounds; after C: A %d times, B %d times; C B A %d times\n", order_n,
           t[0].samples, after_c[0], after_c[1], rounds_first);
    CHECK(t[0].samples >= 2 && t[0].samples == t[1].samples && t[1].samples == t[2].samples);
    CHECK(after_c[1] > 0 && after_c[0] > 0);
    CHECK(rounds_first >= t[0].samples / 2);
    /* the three warm-up calls are runs of one; settled, every run after them a sample of r
     * calls after 2 r of settling, and one more sample where a round begins; else samples of
     * r, two where a round begins */
    int shortest = run_calls[3];
    for (int i = 3; i < order_n; i++) shortest = run_calls[i] < shortest ? run_calls[i] : shortest;
    printf("paired runs%s: %d calls in the shortest after the warm-ups\n", settle ? ", settled" : "", shortest);
    CHECK(run_calls[0] == 1 && run_calls[1] == 1 && run_calls[2] == 1);
    const int r = settle ? shortest / 3 : shortest;
    CHECK(r >= 1 && (!settle || shortest % 3 == 0));
    const int run = (settle ? 3 : 1) * r, joined = (settle ? 4 : 2) * r; /* a round's first with the last */
    for (int i = 3; i < order_n; i++) CHECK(run_calls[i] == run || run_calls[i] == joined);
    mmt_bench_free(b);
}

/* mmt_bench_time_cool: rounds of one sample each, every other round reversed (A B, B A),
 * each sample the same number of calls, at least 5 ms of them; a call too long for the
 * rounds to fit their budget times nothing. */
static void test_cool(const mmt_device_info *dev)
{
    mmt_bench *b = tiny_bench(dev);
    if (!b) return;
    mmt_err err;
    static const int ids[2] = {0, 1};
    mmt_cool c;
    CHECK_OK(mmt_bench_time_cool(b, logged_gemm, (void *)&ids[0], logged_gemm, (void *)&ids[1], 0.01, &c, &err), &err);
    printf("cool: %d rounds, %d runs, %d calls in the first\n", c.rounds, order_n, run_calls[0]);
    CHECK_EQ_INT(c.rounds, 10);
    CHECK(c.ours_ms > 0 && c.other_ms > 0);
    CHECK_EQ_INT(order_n, 1 + 2 * 5); /* A B | B A | A B ...: each round's first joins the last's run */
    CHECK_EQ_INT(run_calls[0], 500);
    CHECK_EQ_INT(run_calls[order_n - 1], 500);
    for (int i = 1; i < order_n - 1; i++) CHECK_EQ_INT(run_calls[i], 1000);
    order_n = 0;
    CHECK_OK(mmt_bench_time_cool(b, logged_gemm, (void *)&ids[0], logged_gemm, (void *)&ids[1], 300, &c, &err), &err);
    CHECK_EQ_INT(c.rounds, 0);
    CHECK_EQ_INT(order_n, 0);
    mmt_bench_free(b);
}

/* mmt_bench_warm: the implementations by turns, each turn a sample's calls, until
 * about the time asked has passed. */
static void test_warm(const mmt_device_info *dev)
{
    mmt_bench *b = tiny_bench(dev);
    if (!b) return;
    mmt_err err;
    static const int ids[2] = {0, 1};
    const mmt_gemm_fn fns[2] = {logged_gemm, logged_gemm};
    void *const users[2] = {(void *)&ids[0], (void *)&ids[1]};
    const double t0 = mmt_now_s();
    CHECK_OK(mmt_bench_warm(b, 2, fns, users, 200, &err), &err);
    const double took_ms = 1e3 * (mmt_now_s() - t0);
    printf("warm: %d turns in %.0f ms\n", order_n, took_ms);
    CHECK(took_ms >= 150);
    CHECK(order_n >= 4);
    for (int i = 1; i < order_n; i++) CHECK(order_log[i] != order_log[i - 1]);
    mmt_bench_free(b);
}

int main(void)
{
    test_bound_values();
    mmt_device_info dev;
    mmt_err err;
    CHECK_OK(mmt_backend_cpu.probe(0, &dev, &err), &err);
    const double u24 = ldexp(1.0, -24), u53 = ldexp(1.0, -53);
    test_verify(&dev, "f32 row NN 37x23x64", 8 * 8 * u24);
    test_verify(&dev, "f64 col TN 20x31x49", 8 * 7 * u53);
    test_verify(&dev, "bf16->f32 row NT 16x24x100", 8 * 10 * u24);
    test_paired_order(&dev, 1);
    test_paired_order(&dev, 0);
    test_cool(&dev);
    test_warm(&dev);
    return check_result();
}
