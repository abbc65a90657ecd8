/* call_tail.c - the slowest calls of an application that calls small GEMMs for a while:
 * mmt_sgemm of 8 untuned shapes in turn (M, M + 1, ... M + 7 rows: the vendor serves them;
 * their calls are counted and written to the database every MMTUNE_SYNC_S seconds) and
 * OpenBLAS's cblas_sgemm called directly, alternating in one process, each call timed.
 * Prints, for each, the calls slower than 200 us and the four slowest: what a tail of
 * latency libmmtuned adds to the vendor's.
 *   call_tail [SECONDS (6)] [MxNxK (24x20x30)]
 * libmmtuned opens the database of MMTUNE_DB as an application's would. Exits 77 without
 * OpenBLAS. */
#include <stdio.h>
#include <stdlib.h>

#include "clock.h"
#include "mmtuned.h"
#include "openblas_sgemm.h"

typedef struct tail {
    long calls, slow;
    double top[4];
} tail;

static void count(tail *t, double s)
{
    t->calls++;
    if (s > 200e-6) t->slow++;
    for (int i = 0; i < 4; i++)
        if (s > t->top[i]) {
            for (int j = 3; j > i; j--) t->top[j] = t->top[j - 1];
            t->top[i] = s;
            break;
        }
}

static void print(const char *who, const tail *t)
{
    printf("%-10s %10ld calls, %4ld slower than 200 us; slowest %.0f %.0f %.0f %.0f us\n", who, t->calls, t->slow,
           1e6 * t->top[0], 1e6 * t->top[1], 1e6 * t->top[2], 1e6 * t->top[3]);
}

int main(int argc, char **argv)
{
    const double seconds = argc > 1 ? atof(argv[1]) : 6;
    int m = 24, n = 20, k = 30;
    if (argc > 2 && sscanf(argv[2], "%dx%dx%d", &m, &n, &k) != 3) {
        fprintf(stderr, "usage: call_tail [SECONDS] [MxNxK]\n");
        return 2;
    }
    const cblas_sgemm_fn sgemm = openblas_sgemm();
    if (!sgemm) {
        printf("skipped: no OpenBLAS (libopenblas.so.0)\n");
        return 77;
    }
    mmt_ctx *ctx;
    if (mmt_open(&ctx, "cpu", NULL) != MMT_OK) {
        fprintf(stderr, "call_tail: %s\n", mmt_last_error(ctx));
        return 1;
    }
    float *a = malloc(sizeof(float) * (m + 7) * k), *b = malloc(sizeof(float) * k * n), *c = malloc(sizeof(float) * (m + 7) * n);
    if (!a || !b || !c) return 1;
    for (int i = 0; i < (m + 7) * k; i++) a[i] = (float)(i % 7) / 8 - 0.375f;
    for (int i = 0; i < k * n; i++) b[i] = (float)(i % 5) / 4 - 0.5f;
    /* the first calls load the vendor and make the calls' entries: not the tail asked about */
    for (int r = m; r < m + 8; r++) {
        mmt_sgemm(ctx, MMT_ROW_MAJOR, MMT_NO_TRANS, MMT_NO_TRANS, r, n, k, 1, a, k, b, n, 0, c, n);
        sgemm(CBLAS_ROW_MAJOR, CBLAS_NO_TRANS, CBLAS_NO_TRANS, r, n, k, 1, a, k, b, n, 0, c, n);
    }
    tail ours = {0}, vendor = {0};
    const double end = mmt_now_s() + seconds;
    for (int i = 0; mmt_now_s() < end; i++) {
        const int r = m + i % 8;
        double t0 = mmt_now_s();
        if (mmt_sgemm(ctx, MMT_ROW_MAJOR, MMT_NO_TRANS, MMT_NO_TRANS, r, n, k, 1, a, k, b, n, 0, c, n) != MMT_OK) {
            fprintf(stderr, "call_tail: %s\n", mmt_last_error(ctx));
            return 1;
        }
        const double t1 = mmt_now_s();
        sgemm(CBLAS_ROW_MAJOR, CBLAS_NO_TRANS, CBLAS_NO_TRANS, r, n, k, 1, a, k, b, n, 0, c, n);
        count(&ours, t1 - t0);
        count(&vendor, mmt_now_s() - t1);
    }
    printf("f32 %d..%dx%dx%d for %.0f s, MMTUNE_SYNC_S=%s, calls alternating:\n", m, m + 7, n, k, seconds,
           getenv("MMTUNE_SYNC_S") ? getenv("MMTUNE_SYNC_S") : "(unset: 5)");
    print("libmmtuned", &ours);
    print("OpenBLAS", &vendor);
    mmt_close(ctx);
    free(a), free(b), free(c);
    return 0;
}
