/* grouped.c - a mixture of experts' layer on the CPU: tokens routed to E experts, each
 * expert's rows of A (tokens x K, row major) times its own K x N weights, through
 * libmmtuned's mmt_gemm_grouped against OpenBLAS's cblas_sgemm called expert by expert (as
 * an application without a grouped GEMM runs it, on OpenBLAS's threads) and mmt_gemm_ex
 * expert by expert. With nothing tuned, libmmtuned serves as it does by default (OpenBLAS
 * for a shape nobody tuned). Each token goes to an expert drawn (seed 1) among the first three
 * quarters of them: the last quarter's groups are empty. Every way's C is checked against
 * mmt_gemm_ex's first; then rounds of about 20 ms of each, the order reversed every other
 * round, 15 rounds.
 *   grouped [TOKENSxExNxK ...]   (default: 256x8x512x512 64x16x256x256 2048x64x128x128)
 * Prints per layer the median time of each way and OpenBLAS's loop's time over libmmtuned's
 * grouped call. Exits 77 without OpenBLAS. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "mmtuned.h"
#include "openblas_sgemm.h"
#include "stats.h"

enum { ROUNDS = 15, WAYS = 3 };
static const char *const way_name[WAYS] = {"mmt_gemm_grouped", "mmt_gemm_ex by expert", "OpenBLAS by expert"};

typedef struct layer {
    int64_t tokens, experts, n, k, *sizes;
    float *a, *b, *c;
} layer;

static void die(const char *what, const char *msg)
{
    fprintf(stderr, "grouped: %s: %s\n", what, msg);
    exit(1);
}

static void run(mmt_ctx *ctx, cblas_sgemm_fn sgemm, const layer *l, int way)
{
    const mmt_gemm_desc d = {MMT_F32, MMT_F32, MMT_COMPUTE_NATIVE, MMT_ROW_MAJOR, MMT_NO_TRANS, MMT_NO_TRANS};
    if (way == 0) {
        if (mmt_gemm_grouped(ctx, &d, l->experts, l->sizes, l->n, l->k, 1, l->a, l->k, l->b, l->n, l->k * l->n, 0,
                             l->c, l->n) != MMT_OK)
            die(way_name[way], mmt_last_error(ctx));
        return;
    }
    for (int64_t e = 0, row = 0; e < l->experts; row += l->sizes[e], e++) {
        if (!l->sizes[e]) continue;
        const float *a = l->a + row * l->k, *b = l->b + e * l->k * l->n;
        float *c = l->c + row * l->n;
        if (way == 2)
            sgemm(CBLAS_ROW_MAJOR, CBLAS_NO_TRANS, CBLAS_NO_TRANS, (int)l->sizes[e], (int)l->n, (int)l->k, 1, a,
                  (int)l->k, b, (int)l->n, 0, c, (int)l->n);
        else if (mmt_sgemm(ctx, MMT_ROW_MAJOR, MMT_NO_TRANS, MMT_NO_TRANS, l->sizes[e], l->n, l->k, 1, a, l->k, b, l->n,
                           0, c, l->n) != MMT_OK)
            die(way_name[way], mmt_last_error(ctx));
    }
}

int main(int argc, char **argv)
{
    static const char *const defaults[] = {"256x8x512x512", "64x16x256x256", "2048x64x128x128"};
    const int n_layers = argc > 1 ? argc - 1 : 3;
    cblas_sgemm_fn sgemm = openblas_sgemm();
    if (!sgemm) {
        fprintf(stderr, "grouped: OpenBLAS is not installed\n");
        return 77;
    }
    mmt_ctx *ctx = NULL;
    if (mmt_open(&ctx, "cpu", NULL) != MMT_OK) die("mmt_open", ctx ? mmt_last_error(ctx) : "no context");
    printf("f32, row major, nothing tuned; ms a layer (median of %d rounds)\n", ROUNDS);
    printf("%-18s %16s %16s %16s %8s\n", "tokens x E x NxK", way_name[0], way_name[1], way_name[2], "ratio");
    srand(1);
    for (int i = 0; i < n_layers; i++) {
        const char *arg = argc > 1 ? argv[i + 1] : defaults[i];
        long long t, e, n, k;
        if (sscanf(arg, "%lldx%lldx%lldx%lld", &t, &e, &n, &k) != 4 || t < 1 || e < 1 || n < 1 || k < 1)
            die(arg, "not TOKENSxExNxK");
        layer l = {t, e, n, k, calloc((size_t)e, sizeof(int64_t)), NULL, NULL, NULL};
        const long long live = e >= 4 ? e - e / 4 : e; /* the last quarter of the experts gets no token */
        for (long long j = 0; j < t; j++) l.sizes[rand() % live]++;
        l.a = malloc(sizeof(float) * (size_t)(t * k));
        l.b = malloc(sizeof(float) * (size_t)(e * k * n));
        l.c = malloc(sizeof(float) * (size_t)(t * n));
        float *want = malloc(sizeof(float) * (size_t)(t * n));
        if (!l.sizes || !l.a || !l.b || !l.c || !want) die(arg, "out of memory");
        for (long long j = 0; j < t * k; j++) l.a[j] = (float)rand() / RAND_MAX - 0.5f;
        for (long long j = 0; j < e * k * n; j++) l.b[j] = (float)rand() / RAND_MAX - 0.5f;
        run(ctx, sgemm, &l, 1);
        memcpy(want, l.c, sizeof(float) * (size_t)(t * n));
        for (int w = 0; w < WAYS; w++) { /* each way's C against mmt_gemm_ex's, C poisoned first */
            for (long long j = 0; j < t * n; j++) l.c[j] = NAN;
            run(ctx, sgemm, &l, w);
            double num = 0, den = 0;
            for (long long j = 0; j < t * n; j++)
                num += ((double)l.c[j] - want[j]) * ((double)l.c[j] - want[j]), den += (double)want[j] * want[j];
            if (!(sqrt(num) <= 1e-5 * sqrt(den))) die(way_name[w], "a wrong result");
        }
        double t0 = mmt_now_s();
        run(ctx, sgemm, &l, 0);
        const double once = mmt_now_s() - t0;
        const int reps = once > 0.02 ? 1 : (int)(0.02 / (once > 1e-6 ? once : 1e-6)) + 1;
        double ms[WAYS][ROUNDS];
        for (int r = 0; r < ROUNDS; r++)
            for (int j = 0; j < WAYS; j++) {
                const int w = r % 2 ? WAYS - 1 - j : j;
                t0 = mmt_now_s();
                for (int q = 0; q < reps; q++) run(ctx, sgemm, &l, w);
                ms[w][r] = (mmt_now_s() - t0) * 1e3 / reps;
            }
        double med[WAYS];
        for (int w = 0; w < WAYS; w++) med[w] = mmt_stats_median(ms[w], ROUNDS);
        printf("%-18s %16.3f %16.3f %16.3f %7.2fx\n", arg, med[0], med[1], med[2], med[2] / med[0]);
        free(l.sizes), free(l.a), free(l.b), free(l.c), free(want);
    }
    printf("(ratio: OpenBLAS's expert-by-expert time over mmt_gemm_grouped's; above 1.00x libmmtuned is faster)\n");
    mmt_close(ctx);
    return 0;
}
