/* test_gpu_autotune.c - background tuning for a GPU context (autotune.h, api.c's sync) on
 * GPU 0, end to end with the real mmtune: a context on device 0 meets a shape nobody tuned,
 * serves it at once (right), and starts one detached mmtune on the same GPU, in a process
 * and on a stream of its own, bounded by MMTUNE_AUTOTUNE_BUDGET; a later call of the same
 * context runs the tuned entry (MMT_CHOICE_EXACT), right, and the database holds that one
 * tune. The templates' own choice: the vendor family is test_gpu_serve's. Exits 77
 * (skipped) without a GPU. */
#include <time.h>
#include <unistd.h>

#include "gpu_check.h"
#include "mmtuned.h"
#include "query.h"

enum { M = 200, N = 300, K = 100 };

static void sleep_s(double s)
{
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    nanosleep(&ts, NULL);
}

/* One mmt_sgemm of the context on device copies of random A and B (C poisoned first); its
 * relative error against the long double reference, INFINITY where it failed. */
static double call(mmt_ctx *ctx, void *da, void *db, void *dc, const float *a, const float *b, const double *ref)
{
    mmt_err err;
    float *c = gc_matrix(0, 0, M, N, N, 1);
    double e = INFINITY;
    if (be->copy(da, a, sizeof(float) * M * K, MMT_H2D, &err) == MMT_OK &&
        be->copy(db, b, sizeof(float) * K * N, MMT_H2D, &err) == MMT_OK &&
        be->copy(dc, c, sizeof(float) * M * N, MMT_H2D, &err) == MMT_OK &&
        mmt_sgemm(ctx, MMT_ROW_MAJOR, MMT_NO_TRANS, MMT_NO_TRANS, M, N, K, 1, da, K, db, N, 0, dc, N) == MMT_OK &&
        be->sync(NULL, &err) == MMT_OK && be->copy(c, dc, sizeof(float) * M * N, MMT_D2H, &err) == MMT_OK)
        e = gc_rel_error(0, 0, M, N, c, N, ref);
    else
        fprintf(stderr, "sgemm: %s\n", mmt_last_error(ctx));
    free(c);
    return e;
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (gpu_open()) return 77;
    char dir[] = "/tmp/mmtune-test-gpu-autotune-XXXXXX", db_path[600], text[1024];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(db_path, sizeof db_path, "%s/mmtune.db", dir);
    setenv("MMTUNE_DB", db_path, 1);
    setenv("MMTUNE_AUTOTUNE", "background", 1);
    setenv("MMTUNE_BIN", MMT_MMTUNE_BIN, 1);
    setenv("MMTUNE_AUTOTUNE_BUDGET", "5s", 1);
    setenv("MMTUNE_SYNC_S", "0.2", 1);
    setenv("MMTUNE_VENDOR", "off", 1);

    float *a = gc_matrix(0, 0, M, K, K, 0), *b = gc_matrix(0, 0, K, N, N, 0);
    double *ref = gc_ref_alloc(M, N);
    gc_reference(0, 0, 0, 0, M, N, K, 1, a, K, b, N, 0, NULL, N, ref);
    mmt_err err;
    void *da = NULL, *db = NULL, *dc = NULL;
    CHECK_OK(be->alloc(&dev, sizeof(float) * M * K, &da, &err), &err);
    CHECK_OK(be->alloc(&dev, sizeof(float) * K * N, &db, &err), &err);
    CHECK_OK(be->alloc(&dev, sizeof(float) * M * N, &dc, &err), &err);

    mmt_ctx *ctx;
    CHECK_EQ_INT(mmt_open(&ctx, "0", NULL), MMT_OK);
    const double bound = gc_bound(0, K);
    CHECK(call(ctx, da, db, dc, a, b, ref) <= bound);
    CHECK(mmt_last_choice(ctx, NULL) != MMT_CHOICE_EXACT);
    int exact = 0, calls = 1;
    const time_t t0 = time(NULL);
    while (!exact && time(NULL) - t0 < 180) { /* the tune's budget, its compiles and the vendor round */
        sleep_s(0.2);
        CHECK(call(ctx, da, db, dc, a, b, ref) <= bound);
        calls++;
        exact = mmt_last_choice(ctx, NULL) == MMT_CHOICE_EXACT;
    }
    const char *config = NULL;
    mmt_last_choice(ctx, &config);
    printf("f32 row NN %dx%dx%d on GPU 0: tuned in the background after %ld s (%d calls meanwhile, all right): %s\n",
           M, N, K, (long)(time(NULL) - t0), calls, exact && config ? config : "not picked up");
    CHECK(exact);
    if (!exact) {
        snprintf(text, sizeof text, "cat '%s.autotune/log' >&2", db_path);
        CHECK(system(text) == 0);
    }
    mmt_close(ctx);

    query(db_path, "SELECT count(*) || ' ' || min(command) FROM session", text, sizeof text);
    CHECK(strncmp(text, "1 ", 2) == 0 && strstr(text, "--device 0") && strstr(text, "f32 row NN 200x300x100"));
    query(db_path, "SELECT count(*) FROM best_view WHERE m = 200 AND n = 300 AND k = 100 AND chosen", text,
          sizeof text);
    CHECK_EQ_STR(text, "1");

    be->free(da), be->free(db), be->free(dc);
    free(a), free(b), free(ref);
    snprintf(text, sizeof text, "rm -rf %s", dir);
    if (!getenv("KEEP")) CHECK(system(text) == 0);
    return check_result();
}
