/* test_gpu_context.c - libmmtuned leaves the caller's CUDA context as it was: with a
 * context of the application's own (not the primary one) current on the thread, opening a
 * GPU context, allocating and copying through the backend, a first-time and a repeated
 * mmt_sgemm, a sync and the close each leave that context current, and the product is
 * right: served by the vendor library (cuBLAS) and, with it off, by a template. Exits 77
 * (skipped) without a GPU. */
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "check.h"
#include "mmtuned.h"

/* The few driver calls the test makes itself (libcuda's stable ABI). */
typedef int (*init_fn)(unsigned);
typedef int (*device_get_fn)(int *, int);
typedef int (*ctx_create_fn)(void **, unsigned, int);
typedef int (*ctx_get_fn)(void **);
typedef int (*ctx_set_fn)(void *);
typedef int (*ctx_destroy_fn)(void *);
static ctx_get_fn ctx_get;

static void *current(void)
{
    void *c = NULL;
    ctx_get(&c);
    return c;
}

int main(void)
{
    mmt_err err;
    const mmt_backend *be = mmt_backend_cuda(&err);
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!be || !lib || be->device_count() == 0) {
        printf("skipped: no GPU\n");
        return 77;
    }
    init_fn init = (init_fn)dlsym(lib, "cuInit");
    device_get_fn device_get = (device_get_fn)dlsym(lib, "cuDeviceGet");
    ctx_create_fn ctx_create = (ctx_create_fn)dlsym(lib, "cuCtxCreate_v2");
    ctx_set_fn ctx_set = (ctx_set_fn)dlsym(lib, "cuCtxSetCurrent");
    ctx_destroy_fn ctx_destroy = (ctx_destroy_fn)dlsym(lib, "cuCtxDestroy_v2");
    ctx_get = (ctx_get_fn)dlsym(lib, "cuCtxGetCurrent");
    CHECK(init && device_get && ctx_create && ctx_set && ctx_destroy && ctx_get);
    if (check_result()) return 1;
    int dev = 0;
    void *mine = NULL;
    CHECK_EQ_INT(init(0), 0);
    CHECK_EQ_INT(device_get(&dev, 0), 0);
    CHECK_EQ_INT(ctx_create(&mine, 0, dev), 0); /* current now, and not the primary context */

    setenv("MMTUNE_DB", "/nonexistent/mmtune-test.db", 1);
    const int64_t m = 70, n = 50, k = 90;
    float *a = malloc(sizeof(float) * m * k), *b = malloc(sizeof(float) * k * n), *c = malloc(sizeof(float) * m * n);
    for (int64_t i = 0; i < m * k; i++) a[i] = (float)((i * 7 % 13) - 6) / 8;
    for (int64_t i = 0; i < k * n; i++) b[i] = (float)((i * 5 % 11) - 5) / 4;
    /* untuned: the vendor library serves (cuBLAS, in the primary context), then, with it
     * off, the template's default */
    for (int off = 0; off < 2; off++) {
        setenv("MMTUNE_VENDOR", off ? "off" : "auto", 1);
        mmt_ctx *ctx = NULL;
        CHECK_EQ_INT(mmt_open(&ctx, "0", NULL), MMT_OK);
        CHECK(current() == mine);
        mmt_device_info info;
        CHECK_OK(be->probe(0, &info, &err), &err);
        void *da = NULL, *db = NULL, *dc = NULL;
        CHECK_OK(be->alloc(&info, sizeof(float) * m * k, &da, &err), &err);
        CHECK_OK(be->alloc(&info, sizeof(float) * k * n, &db, &err), &err);
        CHECK_OK(be->alloc(&info, sizeof(float) * m * n, &dc, &err), &err);
        CHECK(current() == mine);
        CHECK_OK(be->copy(da, a, sizeof(float) * m * k, MMT_H2D, &err), &err);
        CHECK_OK(be->copy(db, b, sizeof(float) * k * n, MMT_H2D, &err), &err);
        CHECK(current() == mine);
        for (int call = 0; call < 2; call++) { /* the first makes the handle or builds the kernel */
            CHECK_EQ_INT(mmt_sgemm(ctx, MMT_ROW_MAJOR, MMT_NO_TRANS, MMT_NO_TRANS, m, n, k, 1.0f, da, k, db, n, 0.0f,
                                   dc, n),
                         MMT_OK);
            CHECK(current() == mine);
        }
        CHECK_EQ_INT(mmt_last_choice(ctx, NULL), off ? MMT_CHOICE_DEFAULT : MMT_CHOICE_VENDOR);
        CHECK_OK(be->sync(NULL, &err), &err);
        CHECK_OK(be->copy(c, dc, sizeof(float) * m * n, MMT_D2H, &err), &err);
        CHECK(current() == mine);
        double worst = 0;
        for (int64_t i = 0; i < m; i++)
            for (int64_t j = 0; j < n; j++) {
                double s = 0;
                for (int64_t l = 0; l < k; l++) s += (double)a[i * k + l] * b[l * n + j];
                worst = fmax(worst, fabs(c[i * n + j] - s));
            }
        CHECK(worst < 1e-3);
        be->free(da), be->free(db), be->free(dc);
        mmt_close(ctx);
        CHECK(current() == mine);
    }
    unsetenv("MMTUNE_VENDOR");
    free(a), free(b), free(c);
    ctx_destroy(mine);
    return check_result();
}
