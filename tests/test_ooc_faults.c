/* test_ooc_faults.c - the out-of-core GEMM's dealing of tiles over several GPUs when one
 * fails part way (ooc.c), without a GPU: this program's own mmt_cuda_async table stands in
 * for the driver (every copy done at once, on the host; a record or a wait of a chosen GPU
 * failing at its n-th call) and a double-precision tile kernel for the tiles' GEMMs. Checks:
 * where another GPU lives it computes the failed one's unfinished tiles (the one it was
 * computing, those whose write-back was pending) and C is right and said complete, through
 * staging with beta != 0 too; copying in place into a pinned C with beta != 0, a tile whose
 * write-back had begun is not computed again (C said partly written); one GPU alone that
 * fails says nothing of completeness. The real driver's side is test_gpu_ooc's. */
#define _GNU_SOURCE
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"
#include "check.h"
#include "ooc.h"

/* ---- a driver that does every operation at once ------------------------------------------ */

typedef struct handle {
    int ordinal, index; /* made index-th on its GPU: streams and events in the order ooc.c makes them */
} handle;

static int pinned;                        /* every host pointer is pinned (copies in place) */
static atomic_int made[2];                /* handles made per GPU */
static atomic_int fail_record[2], records[2]; /* a GPU's n-th record on its write-back stream fails (0: none) */
static atomic_int fail_wait[2], waits[2];     /* its n-th wait for a C tile's write-back fails */

static void *new_handle(int o)
{
    handle *h = malloc(sizeof *h);
    h->ordinal = o, h->index = atomic_fetch_add(&made[o], 1);
    return h;
}

/* ooc.c makes, per GPU: streams cload (0) and cstore (1), the C tiles' events (2-7: loaded,
 * done, out of tile 0, then of tile 1), then the lanes' streams and events */
static int is_cstore(const void *stream) { return stream && ((const handle *)stream)->index == 1; }
static int is_out(const void *event) { return ((const handle *)event)->index == 4 || ((const handle *)event)->index == 7; }

static int is_host(const void *p) { return (void)p, 1; }
static int is_pinned(const void *p) { return (void)p, pinned; }
static mmt_status mem_free(int o, int64_t *fr, mmt_err *e) { return (void)o, (void)e, *fr = (int64_t)1 << 34, MMT_OK; }
static mmt_status alloc(int o, size_t s, void **p, mmt_err *e) { return (void)o, (void)e, *p = calloc(1, s ? s : 1), MMT_OK; }
static void release(int o, void *p) { (void)o, free(p); }
static mmt_status new_stream(int o, void **s, mmt_err *e) { return (void)e, *s = new_handle(o), MMT_OK; }

static mmt_status record(int o, void *event, void *stream, mmt_err *e)
{
    (void)event;
    if (is_cstore(stream) && atomic_fetch_add(&records[o], 1) + 1 == atomic_load(&fail_record[o]))
        return mmt_err_set(e, MMT_LAUNCH, "a forced failure of a record");
    return MMT_OK;
}

static mmt_status wait_host(int o, void *event, mmt_err *e)
{
    if (is_out(event) && atomic_fetch_add(&waits[o], 1) + 1 == atomic_load(&fail_wait[o]))
        return mmt_err_set(e, MMT_LAUNCH, "a forced failure of a wait");
    return MMT_OK;
}

static mmt_status wait_stream(int o, void *s, void *ev, mmt_err *e) { return (void)o, (void)s, (void)ev, (void)e, MMT_OK; }
static mmt_status sync_stream(int o, void *s, mmt_err *e) { return (void)o, (void)s, (void)e, MMT_OK; }

static mmt_status copy(int o, void *d, const void *s, size_t n, mmt_copy_dir dir, void *st, mmt_err *e)
{
    (void)o, (void)dir, (void)st, (void)e;
    memcpy(d, s, n);
    return MMT_OK;
}

static mmt_status copy_2d(int o, void *d, size_t dp, const void *s, size_t sp, size_t w, size_t rows, mmt_copy_dir dir,
                          void *st, mmt_err *e)
{
    (void)o, (void)dir, (void)st, (void)e;
    for (size_t i = 0; i < rows; i++) memcpy((char *)d + i * dp, (const char *)s + i * sp, w);
    return MMT_OK;
}

static const mmt_cuda_async fake = {
    .is_host = is_host, .is_pinned = is_pinned, .mem_free = mem_free, .dev_alloc = alloc, .dev_free = release,
    .host_alloc = alloc, .host_free = release, .stream_new = new_stream, .stream_free = release,
    .event_new = new_stream, .event_free = release, .record = record, .wait_host = wait_host,
    .wait_stream = wait_stream, .copy = copy, .sync = sync_stream, .copy_2d = copy_2d,
};

const mmt_cuda_async *mmt_cuda_async_api(void) { return &fake; }

/* The tiles' GEMM (double, row major, on "device" memory that is host memory here); GPU 0
 * sleeps a little at each so that GPU 1 takes tiles before it is done. */
static mmt_status tile_gemm(void *user, const mmt_gemm_desc *d, int64_t m, int64_t n, int64_t k, double alpha,
                            const void *a, int64_t lda, const void *b, int64_t ldb, double beta, void *c, int64_t ldc,
                            mmt_err *err)
{
    (void)d, (void)err;
    if (*(const int *)user) usleep(2000);
    const double *A = a, *B = b;
    double *C = c;
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) {
            double s = 0;
            for (int64_t q = 0; q < k; q++) s += A[i * lda + q] * B[q * ldb + j];
            C[i * ldc + j] = alpha * s + (beta == 0 ? 0 : beta * C[i * ldc + j]);
        }
    return MMT_OK;
}

typedef struct scenario {
    int gpus, pinned;
    double beta;
    int fail_record, fail_wait; /* GPU 1's (GPU 0's where one GPU) */
    int complete, partly;       /* what the message must say */
} scenario;

static void run(const scenario *sc)
{
    pinned = sc->pinned;
    for (int i = 0; i < 2; i++)
        atomic_store(&made[i], 0), atomic_store(&records[i], 0), atomic_store(&waits[i], 0),
            atomic_store(&fail_record[i], 0), atomic_store(&fail_wait[i], 0);
    const int failing = sc->gpus - 1;
    atomic_store(&fail_record[failing], sc->fail_record), atomic_store(&fail_wait[failing], sc->fail_wait);
    const int64_t m = 110, n = 70, k = 90; /* tiles 48 x 40: 3 x 2 of them, 4 panels of 24 each */
    double *a = malloc(sizeof(double) * m * k), *b = malloc(sizeof(double) * k * n);
    double *c = malloc(sizeof(double) * m * n), *ref = malloc(sizeof(double) * m * n);
    for (int64_t i = 0; i < m * k; i++) a[i] = (double)(i % 7) - 3;
    for (int64_t i = 0; i < k * n; i++) b[i] = (double)(i % 5) - 2;
    for (int64_t i = 0; i < m * n; i++) c[i] = ref[i] = (double)(i % 11) - 5;
    for (int64_t i = 0; i < m; i++) /* small integers: exact in double, so the check is == */
        for (int64_t j = 0; j < n; j++) {
            double s = 0;
            for (int64_t q = 0; q < k; q++) s += a[i * k + q] * b[q * n + j];
            ref[i * n + j] = 0.75 * s + sc->beta * ref[i * n + j];
        }
    int slow[2] = {sc->gpus > 1, 0};
    mmt_ooc_device *dv[2] = {mmt_ooc_device_new(0), mmt_ooc_device_new(1)};
    const mmt_ooc_gpu gpus[2] = {{dv[0], NULL, tile_gemm, &slow[0]}, {dv[1], NULL, tile_gemm, &slow[1]}};
    const mmt_ooc_job job = {.desc = {MMT_F64, MMT_F64, MMT_COMPUTE_NATIVE, MMT_ROW_MAJOR, MMT_NO_TRANS, MMT_NO_TRANS},
                             .m = m, .n = n, .k = k, .alpha = 0.75, .beta = sc->beta, .a = a, .b = b, .c = c,
                             .lda = k, .ldb = n, .ldc = n, .knobs = {48, 40, 24, 2}, .n_gpus = sc->gpus,
                             .gpus = sc->gpus > 1 ? gpus : &gpus[failing]};
    mmt_ooc_plan plan;
    mmt_err err;
    mmt_err_clear(&err);
    const mmt_status st = mmt_ooc_run(&job, &plan, &err);
    int wrong = 0;
    for (int64_t i = 0; i < m * n; i++) wrong += c[i] != ref[i];
    printf("%d GPU(s), %s, beta %g, record %d / wait %d failing: %s: %s; %d elements wrong\n", sc->gpus,
           sc->pinned ? "pinned" : "staged", sc->beta, sc->fail_record, sc->fail_wait, mmt_status_string(st), err.msg,
           wrong);
    CHECK_EQ_INT(st, MMT_LAUNCH);
    CHECK_EQ_INT(plan.pinned, sc->pinned);
    CHECK_EQ_INT(strstr(err.msg, "C is complete") != NULL, sc->complete);
    CHECK_EQ_INT(strstr(err.msg, "C is partly written") != NULL, sc->partly);
    if (sc->complete) CHECK_EQ_INT(wrong, 0);
    mmt_ooc_device_free(dv[0]), mmt_ooc_device_free(dv[1]);
    free(a), free(b), free(c), free(ref);
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    const scenario scenarios[] = {
        /* one GPU: its failure is the call's; C partly written once a tile reached it */
        {1, 0, -1.25, 0, 1, 0, 0},
        {1, 0, -1.25, 0, 6, 0, 1},
        {1, 0, -1.25, 1, 0, 0, 0},
        /* two: GPU 1's write-back fails to be recorded or waited for; GPU 0 completes C */
        {2, 0, -1.25, 1, 0, 1, 0},
        {2, 0, -1.25, 0, 1, 1, 0},
        {2, 0, -1.25, 0, 2, 1, 0},
        {2, 0, -1.25, 0, 3, 1, 0},
        {2, 1, 0.0, 1, 0, 1, 0},
        {2, 1, 0.0, 0, 1, 1, 0},
        {2, 1, 0.0, 0, 2, 1, 0},
        /* in place with beta != 0: a tile whose write-back began cannot be computed again */
        {2, 1, -1.25, 1, 0, 0, 1},
        {2, 1, -1.25, 0, 1, 0, 1},
    };
    for (size_t i = 0; i < sizeof scenarios / sizeof scenarios[0]; i++) run(&scenarios[i]);
    return check_result();
}
