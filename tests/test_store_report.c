/* test_store_report.c - the queries of mmtune report (src/store_report.c) on a real file:
 * devices with their props and the name filter, bests with the vendor only where it was
 * timed beside that trial (else marked: a figure not paired with it) and the fastest family chosen,
 * every trial with its round, status, time stamp and session, the sessions with their
 * outcome, and a callback that stops a query early. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "store_report.h"

static char dir[] = "/tmp/mmtune-test-store-report-XXXXXX";

typedef struct seen {
    int n;
    char text[8][256];
} seen;

static int on_device(void *user, const mmt_rep_device *d)
{
    seen *s = user;
    int64_t mhz = 0;
    mmt_device_get_prop(&d->info, "mhz", 3, &mhz);
    snprintf(s->text[s->n++ % 8], 256, "%s %s mhz=%lld", d->info.name, d->info.backend, (long long)mhz);
    return 0;
}

static int on_best(void *user, const mmt_rep_best *b)
{
    seen *s = user;
    snprintf(s->text[s->n++ % 8], 256, "m=%lld %s %s %.1f chosen=%d partial=%d vendor=%s %.1f unpaired=%d",
             (long long)b->problem.m, b->template_name, b->params, b->gflops, b->chosen, b->partial,
             b->vendor ? b->vendor : "-", b->vendor_gflops, b->vendor_unpaired);
    return 0;
}

static int on_trial(void *user, const mmt_rep_trial *t)
{
    seen *s = user;
    snprintf(s->text[s->n++ % 8], 256, "m=%lld %s %s %s round=%d session=%lld %.1f stamped=%d", (long long)t->problem.m,
             t->template_name, t->params, mmt_trial_status_name(t->status), (int)t->round, (long long)t->session_id,
             t->time_ms, t->created > 1700000000);
    return 0;
}

static int on_session(void *user, const mmt_rep_session *x)
{
    seen *s = user;
    snprintf(s->text[s->n++ % 8], 256, "%s %s %s ended=%d", x->command, x->strategy,
             x->outcome ? x->outcome : "-", x->ended >= x->started && x->started > 1700000000);
    return 0;
}

static int stop_at_once(void *user, const mmt_rep_trial *t)
{
    (void)t;
    ++*(int *)user;
    return 1;
}

int main(void)
{
    mmt_err err;
    char path[256];
    if (!mkdtemp(dir)) return 1;
    snprintf(path, sizeof path, "%s/r.db", dir);
    mmt_store *st;
    CHECK_OK(mmt_store_open(path, 0, &st, &err), &err);
    mmt_device_info cpu = {.backend = "cpu", .name = "Test CPU", .arch = "x86_64-avx2", .fingerprint = "cpu-1"};
    mmt_device_set_prop(&cpu, "mhz", 2600);
    mmt_device_info gpu = {.backend = "cuda", .name = "Test GPU", .arch = "sm_90", .fingerprint = "gpu-1"};
    int64_t dev, dev2, tpl, tpl2, c1, c2, cx, p1, p2, session;
    CHECK_OK(mmt_store_device(st, &cpu, &dev, &err), &err);
    CHECK_OK(mmt_store_device(st, &gpu, &dev2, &err), &err);
    CHECK_OK(mmt_store_template(st, "cpu/gemm_avx.c", "aaaaaaaaaaaaaaaa", &tpl, &err), &err);
    CHECK_OK(mmt_store_template(st, "cpu/gemm_other.c", "bbbb", &tpl2, &err), &err);
    CHECK_OK(mmt_store_config(st, tpl, "MR=6,NV=2", &c1, &err), &err);
    CHECK_OK(mmt_store_config(st, tpl, "MR=4,NV=3", &c2, &err), &err);
    CHECK_OK(mmt_store_config(st, tpl2, "X=1", &cx, &err), &err);
    mmt_problem a = {.dtype = MMT_F32, .out = MMT_F32, .mode = MMT_MODE_F32, .m = 64, .n = 48, .k = 40};
    mmt_problem b = {.dtype = MMT_F64, .out = MMT_F64, .mode = MMT_MODE_F64, .m = 32, .n = 32, .k = 32};
    CHECK_OK(mmt_store_problem(st, &a, &p1, &err), &err);
    CHECK_OK(mmt_store_problem(st, &b, &p2, &err), &err);
    CHECK_OK(mmt_store_session_begin(st, dev, "mmtune --device cpu", "model", "45s", &session, &err), &err);
    struct {
        int64_t problem, config;
        mmt_trial_status status;
        double ms;
        const char *message;
    } trials[] = {
        {p1, c1, MMT_TRIAL_OK, 2.0, NULL},
        {p1, c2, MMT_TRIAL_COMPILE_ERROR, 0, "planted"},
        {p1, cx, MMT_TRIAL_OK, 4.0, NULL},
        {p1, c1, MMT_TRIAL_OK, 2.5, "final round: 2 finalists side by side"},
        {p1, c1, MMT_TRIAL_OK, 2.2, "vendor round: timed side by side with OpenBLAS"},
        {p2, c1, MMT_TRIAL_OK, 1.0, NULL},
    };
    int64_t id[6];
    for (int i = 0; i < 6; i++) {
        mmt_trial_rec t = {.session_id = session, .device_id = dev, .problem_id = trials[i].problem,
                           .config_id = trials[i].config, .status = trials[i].status,
                           .time_ms_median = trials[i].ms, .time_ms_min = trials[i].ms,
                           .time_ms_max = trials[i].ms, .gflops = trials[i].ms ? 100 / trials[i].ms : 0,
                           .rel_error = -1, .reps = 5, .message = trials[i].message};
        CHECK_OK(mmt_store_trial_add(st, &t, &id[i], &err), &err);
    }
    CHECK_OK(mmt_store_best_set(st, id[4], &err), &err); /* the vendor round's figure */
    CHECK_OK(mmt_store_baseline_put(st, dev, p1, "OpenBLAS 0.3.21", 1.0, 100, id[4], &err), &err);
    CHECK_OK(mmt_store_baseline_put(st, dev, p2, "OpenBLAS 0.3.21", 0.5, 200, 0, &err), &err); /* timed alone */
    CHECK_OK(mmt_store_best_partial(st, dev, p1, "cpu/gemm_avx.c", 0, &err), &err);
    CHECK_OK(mmt_store_session_end(st, session, "complete", &err), &err);

    seen s = {0};
    CHECK_OK(mmt_store_report_devices(st, NULL, on_device, &s, &err), &err);
    CHECK_EQ_INT(s.n, 2);
    CHECK_EQ_STR(s.text[0], "Test CPU cpu mhz=2600");
    CHECK_EQ_STR(s.text[1], "Test GPU cuda mhz=0");
    memset(&s, 0, sizeof s);
    CHECK_OK(mmt_store_report_devices(st, "Test GPU", on_device, &s, &err), &err);
    CHECK_EQ_INT(s.n, 1);
    CHECK_EQ_STR(s.text[0], "Test GPU cuda mhz=0");

    memset(&s, 0, sizeof s);
    CHECK_OK(mmt_store_report_bests(st, dev, on_best, &s, &err), &err);
    CHECK_EQ_INT(s.n, 3); /* f32's two families, then f64 */
    CHECK_EQ_STR(s.text[0], "m=64 cpu/gemm_avx.c MR=6,NV=2 45.5 chosen=1 partial=0 vendor=OpenBLAS 0.3.21 100.0 "
                            "unpaired=0");
    CHECK_EQ_STR(s.text[1], "m=64 cpu/gemm_other.c X=1 25.0 chosen=0 partial=1 vendor=- 0.0 unpaired=1");
    CHECK_EQ_STR(s.text[2], "m=32 cpu/gemm_avx.c MR=6,NV=2 100.0 chosen=1 partial=1 vendor=- 0.0 unpaired=1");
    memset(&s, 0, sizeof s);
    CHECK_OK(mmt_store_report_bests(st, dev2, on_best, &s, &err), &err);
    CHECK_EQ_INT(s.n, 0);

    memset(&s, 0, sizeof s);
    CHECK_OK(mmt_store_report_trials(st, dev, on_trial, &s, &err), &err);
    CHECK_EQ_INT(s.n, 6);
    CHECK_EQ_STR(s.text[0], "m=64 cpu/gemm_avx.c MR=6,NV=2 ok round=0 session=1 2.0 stamped=1");
    CHECK_EQ_STR(s.text[1], "m=64 cpu/gemm_avx.c MR=4,NV=3 compile_error round=0 session=1 0.0 stamped=1");
    CHECK_EQ_STR(s.text[3], "m=64 cpu/gemm_avx.c MR=6,NV=2 ok round=1 session=1 2.5 stamped=1");
    CHECK_EQ_STR(s.text[4], "m=64 cpu/gemm_avx.c MR=6,NV=2 ok round=2 session=1 2.2 stamped=1");
    CHECK_EQ_STR(s.text[5], "m=32 cpu/gemm_avx.c MR=6,NV=2 ok round=0 session=1 1.0 stamped=1");
    int calls = 0;
    CHECK_OK(mmt_store_report_trials(st, dev, stop_at_once, &calls, &err), &err);
    CHECK_EQ_INT(calls, 1);

    memset(&s, 0, sizeof s);
    CHECK_OK(mmt_store_report_sessions(st, dev, on_session, &s, &err), &err);
    CHECK_EQ_INT(s.n, 1);
    CHECK_EQ_STR(s.text[0], "mmtune --device cpu model complete ended=1");
    mmt_store_close(st);

    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
    return check_result();
}
