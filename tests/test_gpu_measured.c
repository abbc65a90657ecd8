/* test_gpu_measured.c - a call that rules out the tuned configuration runs the fastest other
 * one measured for the same problem: a database whose best for an f32 product on GPU 0 adds
 * its split-K slices atomically, with slower trials that sum them in the order of K; a
 * reproducible context (mmt_set_reproducible) runs the fastest of those, as an exact choice,
 * and a free one the best; the products, on a NaN-poisoned C with beta = 0, are within the
 * tuner's bound of a long double host reference, and the reproducible one gives the same bits
 * twice. Exits 77 (skipped) without a GPU. */
#include <unistd.h>

#include "gpu_check.h"
#include "mmtuned.h"
#include "store.h"

/* f32 64 x 64 tiles of the CUDA-core template: 16 tiles of 256 x 256, K long enough to split */
#define CFG(SPLITK, SERIAL)                                                                                    \
    "BM=64,BN=64,BK=8,WM=32,WN=16,TM=4,TN=4,VEC=1,STAGES=1,ASYNC=0,PIPE=0,REGCAP=0,PAD=4,SPLITK=" #SPLITK \
    ",SERIAL=" #SERIAL ",STREAMK=0,GROUP_M=1,EVEN=0,KC=0"
static const struct {
    const char *params;
    double ms;
} trials[] = {{CFG(4, 0), 1.0}, {CFG(4, 1), 2.0}, {CFG(8, 1), 1.5}, {CFG(1, 0), 3.0}};
static const int64_t M = 256, N = 256, K = 8192;

/* The database: GPU 0's trials of the problem with the family's current source. */
static void record(const char *path, const mmt_family *fam)
{
    mmt_err err;
    mmt_store *st;
    int64_t dev_id, tpl, prob;
    mmt_problem p = {.dtype = MMT_F32, .out = MMT_F32, .mode = MMT_MODE_F32, .layout = MMT_ROW_MAJOR,
                     .m = M, .n = N, .k = K};
    CHECK_OK(mmt_store_open(path, 0, &st, &err), &err);
    CHECK_OK(mmt_store_device(st, &dev, &dev_id, &err), &err);
    CHECK_OK(mmt_store_template(st, fam->name, fam->source_hash, &tpl, &err), &err);
    CHECK_OK(mmt_store_problem(st, &p, &prob, &err), &err);
    mmt_space_env env = {.problem = &p, .device = &dev};
    for (size_t i = 0; i < sizeof trials / sizeof trials[0]; i++) {
        mmt_config c;
        int valid = 0;
        CHECK_OK(mmt_config_parse(fam->space, trials[i].params, &c, &err), &err);
        CHECK_OK(mmt_space_check(fam->space, &c, &env, &valid, NULL, &err), &err);
        CHECK(valid);
        int64_t cfg;
        CHECK_OK(mmt_store_config(st, tpl, trials[i].params, &cfg, &err), &err);
        mmt_trial_rec t = {.device_id = dev_id, .problem_id = prob, .config_id = cfg, .status = MMT_TRIAL_OK,
                           .time_ms_median = trials[i].ms, .time_ms_min = trials[i].ms, .time_ms_max = trials[i].ms,
                           .gflops = 2e-6 * M * N * K / trials[i].ms, .rel_error = 1e-7, .reps = 5};
        CHECK_OK(mmt_store_trial_add(st, &t, NULL, &err), &err);
    }
    mmt_store_close(st);
}

/* C = A B on GPU 0 through a context on path, C poisoned with NaN first (beta = 0 must not
 * read it); the configuration it ran, and C. */
static void product(const char *path, int reproducible, const void *da, const void *db, void *dc, const float *nan_c,
                    float *c, mmt_choice *how, char *config, size_t size)
{
    mmt_err err;
    mmt_ctx *ctx = NULL;
    CHECK_OK(be->copy(dc, nan_c, sizeof(float) * M * N, MMT_H2D, &err), &err);
    CHECK_EQ_INT(mmt_open(&ctx, "0", path), MMT_OK);
    CHECK_EQ_INT(mmt_set_reproducible(ctx, reproducible), MMT_OK);
    CHECK_EQ_INT(mmt_sgemm(ctx, MMT_ROW_MAJOR, MMT_NO_TRANS, MMT_NO_TRANS, M, N, K, 1.0f, da, K, db, N, 0.0f, dc, N),
                 MMT_OK);
    const char *text = NULL;
    *how = mmt_last_choice(ctx, &text);
    snprintf(config, size, "%s", text ? text : "");
    CHECK_OK(be->sync(NULL, &err), &err);
    CHECK_OK(be->copy(c, dc, sizeof(float) * M * N, MMT_D2H, &err), &err);
    mmt_close(ctx);
}

int main(void)
{
    if (gpu_open()) return 77;
    setenv("MMTUNE_VENDOR", "off", 1); /* the templates' own choice; the vendor family is test_serve's */
    mmt_err err;
    mmt_family *fam;
    CHECK_OK(mmt_family_find_template("cuda/gemm_simt.cu", &fam, &err), &err);
    char dir[] = "/tmp/mmtune-test-measured-XXXXXX", path[128];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(path, sizeof path, "%s/m.db", dir);
    record(path, fam);

    float *a = gc_matrix(0, 0, M, K, K, 0), *b = gc_matrix(0, 0, K, N, N, 0), *nan_c = gc_matrix(0, 0, M, N, N, 1);
    float *c = malloc(sizeof(float) * M * N), *again = malloc(sizeof(float) * M * N);
    double *ref = gc_ref_alloc(M, N);
    gc_reference(0, 0, 0, 0, M, N, K, 1.0, a, K, b, N, 0.0, nan_c, N, ref);
    void *da, *db, *dc;
    CHECK_OK(be->alloc(&dev, sizeof(float) * M * K, &da, &err), &err);
    CHECK_OK(be->alloc(&dev, sizeof(float) * K * N, &db, &err), &err);
    CHECK_OK(be->alloc(&dev, sizeof(float) * M * N, &dc, &err), &err);
    CHECK_OK(be->copy(da, a, sizeof(float) * M * K, MMT_H2D, &err), &err);
    CHECK_OK(be->copy(db, b, sizeof(float) * K * N, MMT_H2D, &err), &err);

    for (int repro = 0; repro < 2; repro++) {
        mmt_choice how;
        char config[512];
        product(path, repro, da, db, dc, nan_c, c, &how, config, sizeof config);
        printf("reproducible %d: %s\n", repro, config);
        CHECK_EQ_INT(how, MMT_CHOICE_EXACT);
        CHECK_EQ_STR(config, repro ? CFG(8, 1) : CFG(4, 0));
        CHECK(gc_rel_error(0, 0, M, N, c, N, ref) <= gc_bound(0, K));
        if (repro) {
            product(path, repro, da, db, dc, nan_c, again, &how, config, sizeof config);
            CHECK(memcmp(c, again, sizeof(float) * M * N) == 0);
        }
    }
    be->free(da), be->free(db), be->free(dc);
    free(a), free(b), free(nan_c), free(c), free(again), free(ref);
    mmt_family_free(fam);
    char cmd[160];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK_EQ_INT(system(cmd), 0);
    return check_result();
}
