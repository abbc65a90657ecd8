/* test_store.c - the SQLite store on a real file: schema and version, ids, the best
 * rule (faster wins, wrong results never, a changed template source replaces), lookups,
 * baselines in best_view (a ratio only beside the trial timed with the vendor), partial
 * bests and session outcomes, resume order, two writers at once, a new file opened by
 * several processes at once, precision modes as distinct problems, trials measured busy,
 * the miss table, a device's props brought up to date, and the out-of-core knobs' rows
 * (pseudo-template "ooc") stored and looked up beside a kernel's, never mixed with them;
 * a best's row by problem id; the configurations measured for a problem, fastest first.
 * Files of older versions: test_store_migrate.c. */
#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "query.h"
#include "ooc_tuned.h"
#include "store.h"
#include "store_check.h"

static char dir[] = "/tmp/mmtune-test-store-XXXXXX";

/* Opens a new database from several processes at once: exactly one applies the schema. */
static void test_concurrent_create(void)
{
    char path[256];
    snprintf(path, sizeof path, "%s/race/r.db", dir);
    open_from_children(path);
    char text[64];
    query(path, "SELECT count(*) FROM device", text, sizeof text);
    CHECK_EQ_STR(text, "1");
    query(path, "PRAGMA user_version", text, sizeof text);
    CHECK_EQ_STR(text, "6");
}

typedef struct seen {
    char params[8][64];
    int n;
} seen;

static int collect(void *user, const char *params, mmt_trial_status status, double ms, double gflops)
{
    (void)status, (void)ms, (void)gflops;
    seen *s = user;
    if (s->n < 8) snprintf(s->params[s->n++], 64, "%s", params);
    return 0;
}

static int stop_after_two(void *user, const char *params, mmt_trial_status status, double ms, double gflops)
{
    collect(user, params, status, ms, gflops);
    return ((seen *)user)->n == 2;
}

/* best_list's entries for one mode, as "params dtype->out" joined by spaces. */
static void list_mode(mmt_store *st, const char *hash, mmt_mode mode, char *out, size_t size)
{
    mmt_err err;
    mmt_best_rec *bests = NULL;
    size_t n = 0, len = 0;
    out[0] = '\0';
    CHECK_OK(mmt_store_best_list(st, "modes-cpu", "cpu/gemm_avx.c", hash, mode, &bests, &n, &err), &err);
    for (size_t i = 0; i < n && len < size; i++) {
        CHECK_EQ_INT(bests[i].problem.mode, mode);
        CHECK_EQ_INT(bests[i].problem.dtype, mmt_mode_dtype(mode));
        len += snprintf(out + len, size - len, "%s%s %s->%s", i ? " " : "", bests[i].params,
                        mmt_dtype_name(bests[i].problem.dtype), mmt_dtype_name(bests[i].problem.out));
    }
    free(bests);
}

/* The same shape in several modes and output types: distinct problems, each with its
 * own best, listed by its own mode, and told apart in best_view. */
static void test_modes(void)
{
    mmt_err err;
    char path[256], text[1024];
    snprintf(path, sizeof path, "%s/modes.db", dir);
    mmt_store *st;
    CHECK_OK(mmt_store_open(path, 0, &st, &err), &err);
    if (!st) return;
    mmt_device_info d = device("modes-cpu");
    int64_t dev, tpl, cfg[6], prob[5], again;
    CHECK_OK(mmt_store_device(st, &d, &dev, &err), &err);
    CHECK_OK(mmt_store_template(st, "cpu/gemm_avx.c", "mmmm", &tpl, &err), &err);
    for (int i = 0; i < 6; i++) {
        char params[16];
        snprintf(params, sizeof params, "A=%d", i + 1);
        CHECK_OK(mmt_store_config(st, tpl, params, &cfg[i], &err), &err);
    }
    /* f32, tf32, f32x3, bf16->bf16, bf16->f32 of one shape */
    const mmt_problem base = {.layout = MMT_ROW_MAJOR, .m = 128, .n = 96, .k = 64};
    const struct { mmt_dtype dtype, out; mmt_mode mode; } kinds[5] = {
        {MMT_F32, MMT_F32, MMT_MODE_F32},   {MMT_F32, MMT_F32, MMT_MODE_TF32},  {MMT_F32, MMT_F32, MMT_MODE_F32X3},
        {MMT_BF16, MMT_BF16, MMT_MODE_BF16}, {MMT_BF16, MMT_F32, MMT_MODE_BF16},
    };
    const double ms[5] = {4.0, 2.0, 3.0, 1.0, 1.5};
    for (int i = 0; i < 5; i++) {
        mmt_problem p = base;
        p.dtype = kinds[i].dtype, p.out = kinds[i].out, p.mode = kinds[i].mode;
        CHECK_OK(mmt_store_problem(st, &p, &prob[i], &err), &err);
        CHECK_OK(mmt_store_problem(st, &p, &again, &err), &err);
        CHECK_EQ_INT(prob[i], again);
        for (int j = 0; j < i; j++) CHECK(prob[i] != prob[j]);
        add(st, dev, prob[i], cfg[i], MMT_TRIAL_OK, ms[i]);
    }
    query(path, "SELECT count(*) FROM problem", text, sizeof text);
    CHECK_EQ_STR(text, "5");
    /* a faster tf32 result replaces the tf32 best only */
    add(st, dev, prob[1], cfg[5], MMT_TRIAL_OK, 0.5);
    query(path, "SELECT count(*) FROM best", text, sizeof text);
    CHECK_EQ_STR(text, "5");

    list_mode(st, "mmmm", MMT_MODE_TF32, text, sizeof text);
    CHECK_EQ_STR(text, "A=6 f32->f32");
    list_mode(st, "mmmm", MMT_MODE_F32, text, sizeof text);
    CHECK_EQ_STR(text, "A=1 f32->f32");
    list_mode(st, "mmmm", MMT_MODE_F32X3, text, sizeof text);
    CHECK_EQ_STR(text, "A=3 f32->f32");
    list_mode(st, "mmmm", MMT_MODE_BF16, text, sizeof text); /* any output type */
    CHECK_EQ_STR(text, "A=4 bf16->bf16 A=5 bf16->f32");
    list_mode(st, "mmmm", MMT_MODE_F16, text, sizeof text);
    CHECK_EQ_STR(text, "");
    mmt_best_rec *bests = NULL;
    size_t n = 0;
    CHECK_OK(mmt_store_best_list(st, "modes-cpu", "cpu/gemm_avx.c", "mmmm", MMT_MODE_TF32, &bests, &n, &err), &err);
    CHECK_EQ_INT(n, 1);
    if (n == 1) {
        char name[128];
        mmt_problem_format(&bests[0].problem, name, sizeof name);
        CHECK_EQ_STR(name, "tf32 row NN 128x96x64");
    }
    free(bests);

    /* what a person reads: the mode tells the rows of one shape apart */
    query(path,
          "SELECT group_concat(mode || ' ' || dtype || '->' || out_dtype || ' ' || params, ', ') "
          "FROM (SELECT * FROM best_view)",
          text, sizeof text);
    CHECK_EQ_STR(text, "bf16 bf16->bf16 A=4, bf16 bf16->f32 A=5, f32 f32->f32 A=1, f32x3 f32->f32 A=3, "
                       "tf32 f32->f32 A=6");
    FILE *f = tmpfile();
    CHECK_OK(mmt_store_print_best(st, f, NULL, &err), &err);
    rewind(f);
    char line[1024];
    int tf32_rows = 0;
    while (fgets(line, sizeof line, f)) tf32_rows += strstr(line, " tf32 ") != NULL;
    CHECK_EQ_INT(tf32_rows, 1);
    fclose(f);

    /* types and mode that disagree are refused, and nothing is written */
    mmt_problem bad = base;
    bad.dtype = MMT_F64, bad.out = MMT_F64, bad.mode = MMT_MODE_TF32;
    CHECK(mmt_store_problem(st, &bad, &again, &err) == MMT_INVALID_ARGUMENT);
    CHECK(strstr(err.msg, "mode") != NULL);
    bad.dtype = MMT_F32, bad.out = MMT_BF16, bad.mode = MMT_MODE_F32;
    CHECK(mmt_store_problem(st, &bad, &again, &err) == MMT_INVALID_ARGUMENT);
    query(path, "SELECT count(*) FROM problem", text, sizeof text);
    CHECK_EQ_STR(text, "5");

    /* the f32 shape in every orientation and both layouts: a row each, found again (the
     * first is f32 row NN, prob[0]) */
    int64_t orient[8];
    for (int i = 0; i < 8; i++) {
        mmt_problem p = base;
        p.dtype = MMT_F32, p.out = MMT_F32, p.mode = MMT_MODE_F32;
        p.trans_a = i & 1, p.trans_b = (i >> 1) & 1, p.layout = i & 4 ? MMT_COL_MAJOR : MMT_ROW_MAJOR;
        CHECK_OK(mmt_store_problem(st, &p, &orient[i], &err), &err);
        CHECK_OK(mmt_store_problem(st, &p, &again, &err), &err);
        CHECK_EQ_INT(orient[i], again);
        for (int j = 0; j < i; j++) CHECK(orient[i] != orient[j]);
    }
    CHECK_EQ_INT(orient[0], prob[0]);
    query(path, "SELECT count(*) FROM problem", text, sizeof text);
    CHECK_EQ_STR(text, "12");
    mmt_store_close(st);
}

/* A device of this fingerprint, template cpu/gemm_avx.c (hash aaaa) and the problems f32 row
 * NN 64x64x64 and 65x64x64, in st: their ids. */
static void two_problems(mmt_store *st, const char *fingerprint, int64_t *dev, int64_t *tpl, int64_t *prob,
                         int64_t *prob2)
{
    mmt_err err;
    mmt_device_info d = device(fingerprint);
    mmt_problem p = {.dtype = MMT_F32, .layout = MMT_ROW_MAJOR, .m = 64, .n = 64, .k = 64}, q = p;
    q.m = 65;
    CHECK_OK(mmt_store_device(st, &d, dev, &err), &err);
    CHECK_OK(mmt_store_template(st, "cpu/gemm_avx.c", "aaaa", tpl, &err), &err);
    CHECK_OK(mmt_store_problem(st, &p, prob, &err), &err);
    CHECK_OK(mmt_store_problem(st, &q, prob2, &err), &err);
}

/* Trials measured busy (cpu_wait above MMT_CPU_BUSY): a faster busy one leaves a quiet best
 * (and one whose cpu_wait is not known) where it is, mmt_store_best_set too; a quiet one
 * takes a busy best, slower or not; resuming leaves busy trials out, to be measured again. */
static void test_busy(void)
{
    mmt_err err;
    char path[256], text[256];
    snprintf(path, sizeof path, "%s/busy.db", dir);
    mmt_store *st;
    CHECK_OK(mmt_store_open(path, 0, &st, &err), &err);
    if (!st) return;
    int64_t dev, tpl, c1, c2, prob, prob2;
    two_problems(st, "busy-cpu", &dev, &tpl, &prob, &prob2);
    CHECK_OK(mmt_store_config(st, tpl, "MR=6", &c1, &err), &err);
    CHECK_OK(mmt_store_config(st, tpl, "MR=4", &c2, &err), &err);
    const int64_t quiet = add(st, dev, prob, c1, MMT_TRIAL_OK, 1.0);
    mmt_trial_rec busy = {.device_id = dev, .problem_id = prob, .config_id = c2, .status = MMT_TRIAL_OK,
                          .time_ms_median = 0.5, .time_ms_min = 0.5, .time_ms_max = 0.5, .gflops = 2000,
                          .rel_error = 1e-7, .reps = 5, .cpu_wait = 0.6};
    int64_t busy_id = 0;
    CHECK_OK(mmt_store_trial_add(st, &busy, &busy_id, &err), &err);
    CHECK_OK(mmt_store_best_set(st, busy_id, &err), &err);
    snprintf(text, sizeof text, "%lld", (long long)quiet);
    char best[64];
    query(path, "SELECT trial_id FROM best", best, sizeof best);
    CHECK_EQ_STR(best, text);
    query(path, "SELECT cpu_wait FROM trial WHERE config_id = (SELECT id FROM config WHERE params = 'MR=4')", text,
          sizeof text);
    CHECK_EQ_STR(text, "0.6");
    seen s = {0};
    CHECK_OK(mmt_store_trials_each(st, dev, prob, tpl, collect, &s, &err), &err);
    CHECK_EQ_INT(s.n, 1);
    CHECK_EQ_STR(s.params[0], "MR=6");
    /* a busy best, where nothing quiet was there: a quiet trial takes it, though slower */
    busy.problem_id = prob2, busy.config_id = c1;
    CHECK_OK(mmt_store_trial_add(st, &busy, NULL, &err), &err);
    const int64_t later = add(st, dev, prob2, c2, MMT_TRIAL_OK, 0.8);
    snprintf(text, sizeof text, "SELECT trial_id = %lld FROM best WHERE problem_id = %lld", (long long)later,
             (long long)prob2);
    query(path, text, best, sizeof best);
    CHECK_EQ_STR(best, "1");
    mmt_store_close(st);
}

/* The tuner's fallback where the fastest winner is less accurate than the vendor: the
 * fastest ok trial whose error is known and within a bound, measured quiet, of this
 * template and problem alone. */
static void test_fastest_within(void)
{
    mmt_err err;
    char path[256], params[64];
    snprintf(path, sizeof path, "%s/within.db", dir);
    mmt_store *st;
    CHECK_OK(mmt_store_open(path, 0, &st, &err), &err);
    if (!st) return;
    int64_t dev, tpl, other, c[5], prob, prob2;
    two_problems(st, "within-cpu", &dev, &tpl, &prob, &prob2);
    CHECK_OK(mmt_store_template(st, "cpu/gemm_avx.c", "bbbb", &other, &err), &err);
    static const char *const texts[5] = {"MR=4", "MR=6", "MR=8", "MR=14", "MR=2"};
    for (int i = 0; i < 4; i++) CHECK_OK(mmt_store_config(st, tpl, texts[i], &c[i], &err), &err);
    CHECK_OK(mmt_store_config(st, other, texts[4], &c[4], &err), &err);
    /* (config, problem, ms, error, cpu_wait): the fastest is too inaccurate, the next one busy,
     * the next one's error unknown; another template's and another problem's are faster */
    const struct { int cfg; int64_t problem; double ms, error, wait; } rows[] = {
        {0, prob, 1.0, 3.3e-7, 0}, {1, prob, 1.1, 2.9e-7, 0.6}, {2, prob, 1.15, -1, 0},
        {3, prob, 1.2, 3.0e-7, 0}, {4, prob, 0.5, 1e-7, 0},     {3, prob2, 0.4, 1e-7, 0}};
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        mmt_trial_rec t = {.device_id = dev, .problem_id = rows[i].problem, .config_id = c[rows[i].cfg],
                           .status = MMT_TRIAL_OK, .time_ms_median = rows[i].ms, .time_ms_min = rows[i].ms,
                           .time_ms_max = rows[i].ms, .gflops = 1000 / rows[i].ms, .rel_error = rows[i].error,
                           .reps = 5, .cpu_wait = rows[i].wait};
        CHECK_OK(mmt_store_trial_add(st, &t, NULL, &err), &err);
    }
    double ms = 0;
    CHECK_OK(mmt_store_fastest_within(st, dev, prob, tpl, 3.3e-7, params, sizeof params, &ms, &err), &err);
    CHECK_EQ_STR(params, "MR=4");
    CHECK_OK(mmt_store_fastest_within(st, dev, prob, tpl, 3.2e-7, params, sizeof params, &ms, &err), &err);
    CHECK_EQ_STR(params, "MR=14");
    CHECK(ms == 1.2);
    CHECK_OK(mmt_store_fastest_within(st, dev, prob, tpl, 1e-8, params, sizeof params, &ms, &err), &err);
    CHECK_EQ_STR(params, ""); /* none */
    mmt_store_close(st);
}

/* The miss table: counts add up per (device, problem) across writes, lists are per device
 * and most called first, a write is one transaction (a bad problem leaves nothing), and
 * miss_view says which misses have a best now. */
static void test_misses(void)
{
    mmt_err err;
    char path[256], text[1024];
    snprintf(path, sizeof path, "%s/misses.db", dir);
    mmt_store *st;
    CHECK_OK(mmt_store_open(path, 0, &st, &err), &err);
    if (!st) return;
    mmt_device_info d = device("miss-cpu"), other = device("miss-other");
    snprintf(other.name, sizeof other.name, "Other CPU");
    mmt_miss_rec recs[3] = {
        {.problem = {.dtype = MMT_F32, .layout = MMT_ROW_MAJOR, .m = 24, .n = 20, .k = 16}, .calls = 2},
        {.problem = {.dtype = MMT_F64, .out = MMT_F64, .mode = MMT_MODE_F64, .layout = MMT_ROW_MAJOR, .trans_b = 1,
                     .m = 3, .n = 3, .k = 3},
         .calls = 5},
        {.problem = {.dtype = MMT_F32, .layout = MMT_ROW_MAJOR, .m = 24, .n = 20, .k = 16}, .calls = 1},
    };
    CHECK_OK(mmt_store_miss_add(st, &d, recs, 3, &err), &err); /* the same problem twice in one write */
    recs[0].calls = 4;
    CHECK_OK(mmt_store_miss_add(st, &d, recs, 1, &err), &err);
    recs[0].calls = 100;
    CHECK_OK(mmt_store_miss_add(st, &other, recs, 1, &err), &err);
    mmt_miss_rec *list;
    size_t n;
    CHECK_OK(mmt_store_miss_list(st, "miss-cpu", &list, &n, &err), &err);
    CHECK_EQ_INT(n, 2);
    if (n == 2) {
        char name[128];
        mmt_problem_format(&list[0].problem, name, sizeof name);
        CHECK_EQ_STR(name, "f32 row NN 24x20x16");
        CHECK_EQ_INT(list[0].calls, 7);
        mmt_problem_format(&list[1].problem, name, sizeof name);
        CHECK_EQ_STR(name, "f64 row NT 3x3x3");
        CHECK_EQ_INT(list[1].calls, 5);
        CHECK(list[0].problem_id != list[1].problem_id);
    }
    free(list);
    CHECK_OK(mmt_store_miss_list(st, "no-such-device", &list, &n, &err), &err);
    CHECK_EQ_INT(n, 0);
    free(list);

    /* one bad problem: the whole write is refused and nothing of it stays */
    mmt_miss_rec bad[2] = {recs[1], recs[1]};
    bad[1].problem.mode = MMT_MODE_TF32;
    CHECK(mmt_store_miss_add(st, &d, bad, 2, &err) == MMT_INVALID_ARGUMENT);
    query(path, "SELECT group_concat(device || ' ' || calls, ', ') FROM miss_view", text, sizeof text);
    CHECK_EQ_STR(text, "Other CPU 100, Test CPU 7, Test CPU 5");

    /* a best for the f64 problem shows in miss_view; the miss row stays */
    int64_t dev, tpl, cfg, prob;
    CHECK_OK(mmt_store_device(st, &d, &dev, &err), &err);
    CHECK_OK(mmt_store_template(st, "cpu/gemm_avx.c", "mmmm", &tpl, &err), &err);
    CHECK_OK(mmt_store_config(st, tpl, "A=1", &cfg, &err), &err);
    CHECK_OK(mmt_store_problem(st, &recs[1].problem, &prob, &err), &err);
    add(st, dev, prob, cfg, MMT_TRIAL_OK, 1.0);
    query(path,
          "SELECT group_concat(mode || ' ' || trans || ' ' || calls || ' ' || tuned, ', ') FROM miss_view "
          "WHERE device = 'Test CPU'",
          text, sizeof text);
    CHECK_EQ_STR(text, "f32 NN 7 0, f64 NT 5 1");
    /* a best of the column-major problem equal to the row-major miss tunes it too */
    mmt_problem twin = recs[0].problem;
    twin.layout = MMT_COL_MAJOR, twin.m = 20, twin.n = 24;
    CHECK_OK(mmt_store_problem(st, &twin, &prob, &err), &err);
    add(st, dev, prob, cfg, MMT_TRIAL_OK, 1.0);
    twin.k = 17; /* not equal: untouched */
    CHECK_OK(mmt_store_problem(st, &twin, &prob, &err), &err);
    add(st, dev, prob, cfg, MMT_TRIAL_OK, 1.0);
    query(path, "SELECT group_concat(tuned, ' ') FROM miss_view", text, sizeof text);
    CHECK_EQ_STR(text, "0 1 1");
    query(path, "SELECT count(*) FROM miss_view WHERE first_seen IS NULL OR last_seen < first_seen", text,
          sizeof text);
    CHECK_EQ_STR(text, "0");
    mmt_store_close(st);
}

/* The out-of-core knobs' rows (the pseudo-template "ooc") are listed by their template and
 * source hash like a kernel family's; a stale pipeline's are not served. */
static void test_ooc_rows(void)
{
    mmt_err err;
    char path[256];
    snprintf(path, sizeof path, "%s/ooc.db", dir);
    mmt_store *st;
    CHECK_OK(mmt_store_open(path, 0, &st, &err), &err);
    if (!st) return;
    mmt_device_info d = device("ooc-gpu");
    const mmt_problem p = {.dtype = MMT_F32, .out = MMT_F32, .mode = MMT_MODE_F32, .layout = MMT_ROW_MAJOR,
                           .m = 16384, .n = 16384, .k = 16384};
    int64_t dev, kernel, ooc, prob, cfg[3];
    CHECK_OK(mmt_store_device(st, &d, &dev, &err), &err);
    CHECK_OK(mmt_store_problem(st, &p, &prob, &err), &err);
    CHECK_OK(mmt_store_template(st, "cuda/gemm_simt.cu", "kkkk", &kernel, &err), &err);
    CHECK_OK(mmt_store_template(st, MMT_OOC_TEMPLATE, MMT_OOC_SOURCE_HASH, &ooc, &err), &err);
    CHECK_OK(mmt_store_config(st, kernel, "BM=128,BN=128", &cfg[0], &err), &err);
    mmt_ooc_knobs grid[MMT_OOC_GRID_MAX];
    CHECK(mmt_ooc_grid(p.m, p.n, p.k, 4, 4, grid) >= 2);
    char text[2][128];
    for (int i = 0; i < 2; i++) {
        mmt_ooc_knobs_format(&grid[i], text[i], sizeof text[i]);
        CHECK_OK(mmt_store_config(st, ooc, text[i], &cfg[1 + i], &err), &err);
    }
    add(st, dev, prob, cfg[0], MMT_TRIAL_OK, 200.0);  /* the kernel on device memory */
    add(st, dev, prob, cfg[1], MMT_TRIAL_OK, 300.0);  /* host memory, the default plan */
    add(st, dev, prob, cfg[2], MMT_TRIAL_OK, 280.0);  /* host memory, the grid's second */
    /* each keeps its best: the ooc one is the faster of its own trials, not the kernel's */
    mmt_best_rec *bests = NULL;
    size_t n = 0;
    CHECK_OK(mmt_store_best_list(st, "ooc-gpu", MMT_OOC_TEMPLATE, MMT_OOC_SOURCE_HASH, MMT_MODE_F32, &bests, &n, &err),
             &err);
    CHECK_EQ_INT(n, 1);
    mmt_ooc_knobs k;
    mmt_choice how;
    CHECK_EQ_INT(mmt_ooc_tuned_choose(bests, n, &p, &k, &how), 1);
    CHECK(how == MMT_CHOICE_EXACT && k.tile_m == grid[1].tile_m && k.panel_k == grid[1].panel_k &&
          k.streams == grid[1].streams);
    free(bests);
    CHECK_OK(mmt_store_best_list(st, "ooc-gpu", "cuda/gemm_simt.cu", "kkkk", MMT_MODE_F32, &bests, &n, &err), &err);
    CHECK(n == 1 && strcmp(bests[0].params, "BM=128,BN=128") == 0);
    free(bests);
    /* a stale pipeline's knobs are not served */
    CHECK_OK(mmt_store_best_list(st, "ooc-gpu", MMT_OOC_TEMPLATE, "0000", MMT_MODE_F32, &bests, &n, &err), &err);
    CHECK_EQ_INT(n, 0);
    free(bests);
    mmt_store_close(st);
}

int main(void)
{
    mmt_err err;
    char path[256], text[256];
    if (!mkdtemp(dir)) return 1;
    snprintf(path, sizeof path, "%s/sub/dir/t.db", dir);

    mmt_store *st = NULL;
    CHECK(mmt_store_open(path, 1, &st, &err) == MMT_NOT_FOUND); /* read-only never creates */
    CHECK(st == NULL);
    CHECK_OK(mmt_store_open(path, 0, &st, &err), &err);
    query(path, "PRAGMA user_version", text, sizeof text);
    CHECK_EQ_STR(text, "6");
    query(path, "PRAGMA journal_mode", text, sizeof text);
    CHECK_EQ_STR(text, "wal");

    mmt_device_info d = device("test-cpu-1");
    mmt_problem p = {.dtype = MMT_F32, .layout = MMT_ROW_MAJOR, .m = 64, .n = 48, .k = 40};
    mmt_problem q = {.dtype = MMT_F64, .out = MMT_F64, .mode = MMT_MODE_F64, .layout = MMT_COL_MAJOR, .trans_a = 1,
                     .m = 33, .n = 17, .k = 65};
    int64_t dev, dev2, tpl, tpl2, c1, c2, c3, prob, prob2, again;
    CHECK_OK(mmt_store_device(st, &d, &dev, &err), &err);
    CHECK_OK(mmt_store_device(st, &d, &again, &err), &err);
    CHECK_EQ_INT(dev, again);
    /* a probe that records more (a clock, for a report's peaks) updates the row's props, not its id */
    mmt_device_info more = d;
    mmt_device_set_prop(&more, "mhz", 2600);
    CHECK_OK(mmt_store_device(st, &more, &again, &err), &err);
    CHECK_EQ_INT(dev, again);
    query(path, "SELECT props FROM device WHERE fingerprint = 'test-cpu-1'", text, sizeof text);
    CHECK_EQ_STR(text, "cores=2 mhz=2600");
    CHECK_OK(mmt_store_template(st, "cpu/gemm_avx.c", "aaaa", &tpl, &err), &err);
    CHECK_OK(mmt_store_template(st, "cpu/gemm_avx.c", "aaaa", &again, &err), &err);
    CHECK_EQ_INT(tpl, again);
    CHECK_OK(mmt_store_config(st, tpl, "MR=6,NV=2", &c1, &err), &err);
    CHECK_OK(mmt_store_config(st, tpl, "MR=4,NV=3", &c2, &err), &err);
    CHECK_OK(mmt_store_config(st, tpl, "MR=6,NV=2", &again, &err), &err);
    CHECK_EQ_INT(c1, again);
    CHECK(c1 != c2);
    CHECK_OK(mmt_store_problem(st, &p, &prob, &err), &err);
    CHECK_OK(mmt_store_problem(st, &q, &prob2, &err), &err);
    CHECK_OK(mmt_store_problem(st, &p, &again, &err), &err);
    CHECK_EQ_INT(prob, again);
    CHECK(prob != prob2);
    query(path, "SELECT dtype || ' ' || layout || ' ' || trans_a || trans_b FROM problem WHERE m = 33", text,
          sizeof text);
    CHECK_EQ_STR(text, "f64 col 10");
    CHECK_EQ_STR(mmt_trial_status_name(MMT_TRIAL_WRONG_RESULT), "wrong_result");
    CHECK_EQ_STR(mmt_trial_status_name(MMT_TRIAL_CRASHED), "crashed");

    /* the best rule */
    add(st, dev, prob, c1, MMT_TRIAL_OK, 2.0);
    add(st, dev, prob, c2, MMT_TRIAL_OK, 3.0); /* slower: stays */
    query(path, "SELECT params FROM best_view", text, sizeof text);
    CHECK_EQ_STR(text, "MR=6,NV=2");
    add(st, dev, prob, c2, MMT_TRIAL_WRONG_RESULT, 0.5); /* fast but wrong: never best */
    query(path, "SELECT params FROM best_view", text, sizeof text);
    CHECK_EQ_STR(text, "MR=6,NV=2");
    add(st, dev, prob, c2, MMT_TRIAL_OK, 1.0); /* faster: replaces */
    query(path, "SELECT params FROM best_view", text, sizeof text);
    CHECK_EQ_STR(text, "MR=4,NV=3");
    query(path, "SELECT count(*) FROM trial", text, sizeof text);
    CHECK_EQ_STR(text, "4");
    /* a failed trial insert (no such config) says why and where, and leaves no transaction open */
    mmt_trial_rec bad = {.device_id = dev, .problem_id = prob, .config_id = 9999, .status = MMT_TRIAL_OK,
                         .time_ms_median = 0.1, .gflops = 1, .rel_error = -1};
    CHECK(mmt_store_trial_add(st, &bad, NULL, &err) == MMT_DATABASE);
    CHECK(strstr(err.msg, path) != NULL && strstr(err.msg, "FOREIGN KEY") != NULL);
    query(path, "SELECT time_ms_median IS NULL FROM trial WHERE status = 'wrong_result'", text, sizeof text);
    CHECK_EQ_STR(text, "1");

    /* a new template source: its first result replaces a faster stale one */
    CHECK_OK(mmt_store_template(st, "cpu/gemm_avx.c", "bbbb", &tpl2, &err), &err);
    CHECK(tpl2 != tpl);
    CHECK_OK(mmt_store_config(st, tpl2, "MR=8,NV=1", &c3, &err), &err);
    add(st, dev, prob, c3, MMT_TRIAL_OK, 9.0);
    query(path, "SELECT params || ' ' || template_hash FROM best_view", text, sizeof text);
    CHECK_EQ_STR(text, "MR=8,NV=1 bbbb");
    /* ... and the row as it stands, read back by problem id (the tuner's incumbent) */
    mmt_best_row row;
    CHECK_OK(mmt_store_best_get(st, dev, prob, "cpu/gemm_avx.c", &row, &err), &err);
    CHECK(row.template_id == tpl2 && row.trial_id > 0 && strcmp(row.params, "MR=8,NV=1") == 0 && row.gflops > 0);
    CHECK_OK(mmt_store_best_get(st, dev, prob, "cpu/gemm_other.c", &row, &err), &err);
    CHECK(row.trial_id == 0 && row.params[0] == '\0');

    /* the configurations measured for a problem: each once at its fastest, fastest first,
     * wrong results never, per template source and problem */
    mmt_best_rec *measured;
    size_t n_measured;
    CHECK_OK(mmt_store_measured_list(st, "test-cpu-1", "cpu/gemm_avx.c", "aaaa", &p, &measured, &n_measured, &err),
             &err);
    CHECK_EQ_INT(n_measured, 2);
    CHECK_EQ_STR(measured[0].params, "MR=4,NV=3");
    CHECK(fabs(measured[0].gflops - 1000) < 1e-9 && fabs(measured[1].gflops - 500) < 1e-9);
    CHECK_EQ_STR(measured[1].params, "MR=6,NV=2");
    CHECK(measured[1].problem.m == 64 && measured[1].problem.k == 40);
    free(measured);
    CHECK_OK(mmt_store_measured_list(st, "test-cpu-1", "cpu/gemm_avx.c", "bbbb", &p, &measured, &n_measured, &err),
             &err);
    CHECK(n_measured == 1 && strcmp(measured[0].params, "MR=8,NV=1") == 0);
    free(measured);
    CHECK_OK(mmt_store_measured_list(st, "test-cpu-1", "cpu/gemm_avx.c", "aaaa", &q, &measured, &n_measured, &err),
             &err);
    CHECK_EQ_INT(n_measured, 0);
    free(measured);

    /* another template family keeps its own best beside it, and is not listed below */
    int64_t tplx, cx;
    CHECK_OK(mmt_store_template(st, "cpu/gemm_other.c", "bbbb", &tplx, &err), &err);
    CHECK_OK(mmt_store_config(st, tplx, "X=1", &cx, &err), &err);
    add(st, dev, prob, cx, MMT_TRIAL_OK, 0.25);
    query(path, "SELECT count(*) FROM best", text, sizeof text);
    CHECK_EQ_STR(text, "2");
    query(path, "SELECT params FROM best_view WHERE template = 'cpu/gemm_avx.c'", text, sizeof text);
    CHECK_EQ_STR(text, "MR=8,NV=1");

    /* lookups see only this device, template name and source, and mode */
    mmt_best_rec *bests;
    size_t n;
    CHECK_OK(mmt_store_best_list(st, "test-cpu-1", "cpu/gemm_avx.c", "bbbb", MMT_MODE_F32, &bests, &n, &err), &err);
    CHECK_EQ_INT(n, 1);
    if (n == 1) {
        CHECK_EQ_STR(bests[0].params, "MR=8,NV=1");
        CHECK_EQ_INT(bests[0].problem.m, 64);
        CHECK_EQ_INT(bests[0].problem.k, 40);
        CHECK_EQ_INT(bests[0].problem.mode, MMT_MODE_F32);
        CHECK_EQ_INT(bests[0].problem.dtype, MMT_F32);
        CHECK_EQ_INT(bests[0].problem.out, MMT_F32);
    }
    free(bests);
    CHECK_OK(mmt_store_best_list(st, "test-cpu-1", "cpu/gemm_avx.c", "aaaa", MMT_MODE_F32, &bests, &n, &err), &err);
    CHECK_EQ_INT(n, 0);
    free(bests);
    CHECK_OK(mmt_store_best_list(st, "other-cpu", "cpu/gemm_avx.c", "bbbb", MMT_MODE_F32, &bests, &n, &err), &err);
    CHECK_EQ_INT(n, 0);
    free(bests);
    CHECK_OK(mmt_store_best_list(st, "test-cpu-1", "cpu/gemm_avx.c", "bbbb", MMT_MODE_F64, &bests, &n, &err), &err);
    CHECK_EQ_INT(n, 0);
    free(bests);
    CHECK_OK(mmt_store_best_list(st, "test-cpu-1", "cpu/gemm_other.c", "bbbb", MMT_MODE_F32, &bests, &n, &err), &err);
    CHECK_EQ_INT(n, 1);
    if (n == 1) CHECK_EQ_STR(bests[0].params, "X=1");
    free(bests);
    mmt_device_info d2 = device("test-cpu-2");
    CHECK_OK(mmt_store_device(st, &d2, &dev2, &err), &err);
    CHECK(dev2 != dev);

    /* the vendor's figure appears in best_view with the ratio only beside the trial it was
     * timed with: a figure timed at another moment makes no ratio */
    CHECK_OK(mmt_store_baseline_put(st, dev, prob, "OpenBLAS 0.3.21", 18.0, 1000 / 18.0, 0, &err), &err);
    query(path, "SELECT coalesce(vendor, '-') || ' ' || coalesce(ratio, '-') FROM best_view "
                "WHERE template = 'cpu/gemm_avx.c'", text, sizeof text);
    CHECK_EQ_STR(text, "- -");
    int64_t paired = add(st, dev, prob, c3, MMT_TRIAL_OK, 9.0); /* the winner timed again, beside it */
    CHECK_OK(mmt_store_best_set(st, paired, &err), &err);
    CHECK_OK(mmt_store_baseline_put(st, dev, prob, "OpenBLAS 0.3.21", 18.0, 1000 / 18.0, paired, &err), &err);
    query(path, "SELECT vendor || ' ' || ratio FROM best_view WHERE template = 'cpu/gemm_avx.c'", text,
          sizeof text);
    CHECK_EQ_STR(text, "OpenBLAS 0.3.21 2.0");
    /* a later trial becomes the best: the pair no longer describes it */
    int64_t later = add(st, dev, prob, c3, MMT_TRIAL_OK, 8.0);
    query(path, "SELECT coalesce(vendor, '-') FROM best_view WHERE template = 'cpu/gemm_avx.c'", text, sizeof text);
    CHECK_EQ_STR(text, "-");
    CHECK_OK(mmt_store_baseline_put(st, dev, prob, "OpenBLAS 0.3.21", 16.0, 1000 / 16.0, later, &err), &err);
    /* a second library timed beside the same trial: still one row per best, against the faster figure */
    CHECK_OK(mmt_store_baseline_put(st, dev, prob, "BLIS 0.9", 4.0, 1000 / 4.0, later, &err), &err);
    query(path, "SELECT count(*) FROM best_view", text, sizeof text);
    CHECK_EQ_STR(text, "2");
    query(path, "SELECT vendor || ' ' || ratio FROM best_view WHERE template = 'cpu/gemm_avx.c'", text,
          sizeof text);
    CHECK_EQ_STR(text, "BLIS 0.9 0.5");
    query(path, "SELECT trans || ' ' || m || 'x' || n || 'x' || k || ' ' || device FROM best_view", text,
          sizeof text);
    CHECK_EQ_STR(text, "NN 64x48x40 Test CPU");

    /* resume sees every trial of a template, in order */
    seen s = {0};
    CHECK_OK(mmt_store_trials_each(st, dev, prob, tpl, collect, &s, &err), &err);
    CHECK_EQ_INT(s.n, 4);
    CHECK_EQ_STR(s.params[0], "MR=6,NV=2");
    CHECK_EQ_STR(s.params[1], "MR=4,NV=3");
    CHECK_EQ_STR(s.params[3], "MR=4,NV=3");
    seen s2 = {0};
    CHECK_OK(mmt_store_trials_each(st, dev, prob, tpl, stop_after_two, &s2, &err), &err);
    CHECK_EQ_INT(s2.n, 2);

    /* a best a trial moves is partial until its search ends and says how it went */
    query(path, "SELECT partial FROM best_view WHERE template = 'cpu/gemm_avx.c'", text, sizeof text);
    CHECK_EQ_STR(text, "1");
    CHECK_OK(mmt_store_best_partial(st, dev, prob, "cpu/gemm_avx.c", 0, &err), &err);
    query(path, "SELECT partial FROM best_view WHERE template = 'cpu/gemm_avx.c'", text, sizeof text);
    CHECK_EQ_STR(text, "0");
    query(path, "SELECT partial FROM best_view WHERE template = 'cpu/gemm_other.c'", text, sizeof text);
    CHECK_EQ_STR(text, "1"); /* another family's search did not end */

    /* sessions: how each ended; an outcome the schema does not know is refused */
    int64_t sess, sess2;
    CHECK_OK(mmt_store_session_begin(st, dev, "mmtune --device cpu", "random", "10", &sess, &err), &err);
    query(path, "SELECT (ended IS NULL) || ' ' || coalesce(outcome, 'none') FROM session", text, sizeof text);
    CHECK_EQ_STR(text, "1 none");
    CHECK_OK(mmt_store_session_end(st, sess, "partial", &err), &err);
    query(path, "SELECT (ended IS NOT NULL) || ' ' || outcome FROM session", text, sizeof text);
    CHECK_EQ_STR(text, "1 partial");
    CHECK_OK(mmt_store_session_begin(st, dev, "mmtune", "random", "10", &sess2, &err), &err);
    CHECK(mmt_store_session_end(st, sess2, "stopped", &err) == MMT_DATABASE);
    CHECK(strstr(err.msg, "CHECK") != NULL);
    CHECK_OK(mmt_store_session_end(st, sess2, "interrupted", &err), &err);

    /* two writers: a child process and this one add trials at the same time */
    pid_t child = fork();
    if (child == 0) {
        mmt_store *cs;
        if (mmt_store_open(path, 0, &cs, &err) != MMT_OK) _exit(2);
        for (int i = 0; i < 200; i++) add(cs, dev2, prob, c1, MMT_TRIAL_OK, 1.0 + i);
        mmt_store_close(cs);
        _exit(check_failures_ ? 1 : 0);
    }
    for (int i = 0; i < 200; i++) add(st, dev, prob2, c1, MMT_TRIAL_OK, 1.0 + i);
    int status = 0;
    waitpid(child, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    query(path, "SELECT count(*) FROM trial", text, sizeof text);
    CHECK_EQ_STR(text, "408");
    query(path, "SELECT count(*) FROM best", text, sizeof text);
    CHECK_EQ_STR(text, "4");

    /* `mmtune show`: a header line and one aligned row per best */
    FILE *f = tmpfile();
    CHECK_OK(mmt_store_print_best(st, f, NULL, &err), &err);
    rewind(f);
    char line[1024];
    int lines = 0;
    size_t col_ratio = 0;
    while (fgets(line, sizeof line, f)) {
        if (lines == 0) {
            CHECK(strncmp(line, "device", 6) == 0);
            CHECK(strstr(line, "vendor_gflops") != NULL);
            CHECK(strstr(line, "mode") != NULL && strstr(line, "out_dtype") != NULL);
            col_ratio = strstr(line, "ratio") ? (size_t)(strstr(line, "ratio") - line) : 0;
        } else if (strstr(line, "MR=8,NV=1")) {
            CHECK(col_ratio > 0 && strncmp(line + col_ratio, "0.5", 3) == 0); /* columns line up */
        }
        lines++;
    }
    CHECK_EQ_INT(lines, 5);
    fclose(f);
    /* one device's rows, and a device the file does not know */
    f = tmpfile();
    CHECK_OK(mmt_store_print_best(st, f, "Test CPU", &err), &err);
    rewind(f);
    for (lines = 0; fgets(line, sizeof line, f);) lines++;
    CHECK_EQ_INT(lines, 5);
    fclose(f);
    f = tmpfile();
    CHECK_OK(mmt_store_print_best(st, f, "Other CPU", &err), &err);
    rewind(f);
    for (lines = 0; fgets(line, sizeof line, f);) lines += strstr(line, "no tuned problems for Other CPU") ? 10 : 1;
    CHECK_EQ_INT(lines, 11); /* the header and the note */
    fclose(f);
    mmt_store_close(st);

    /* a reader of an existing file */
    CHECK_OK(mmt_store_open(path, 1, &st, &err), &err);
    CHECK_OK(mmt_store_best_list(st, "test-cpu-1", "cpu/gemm_avx.c", "bbbb", MMT_MODE_F32, &bests, &n, &err), &err);
    CHECK_EQ_INT(n, 1);
    free(bests);
    mmt_store_close(st);

    /* reopen is idempotent; a newer schema than ours is refused */
    CHECK_OK(mmt_store_open(path, 0, &st, &err), &err);
    mmt_store_close(st);
    sqlite3 *db;
    sqlite3_open(path, &db);
    sqlite3_exec(db, "PRAGMA user_version = 99", NULL, NULL, NULL);
    sqlite3_close(db);
    CHECK(mmt_store_open(path, 0, &st, &err) == MMT_DATABASE);
    CHECK(strstr(err.msg, "newer") != NULL && strstr(err.msg, path) != NULL);
    CHECK(st == NULL);
    CHECK(mmt_store_open(path, 1, &st, &err) == MMT_DATABASE);

    test_concurrent_create();
    test_modes();
    test_busy();
    test_fastest_within();
    test_misses();
    test_ooc_rows();

    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (!getenv("KEEP") && system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
    return check_result();
}
